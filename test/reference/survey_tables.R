# Reference values for src/survey/tables.ts: the 27-cell survey table (field x gender, both
# margins, grand total) of the recorded PPS sample, by R's `survey` package.
#
#   Rscript test/reference/survey_tables.R
#
# reads test/reference/survey_sample.csv (written by test/reference/survey_sample.ts: a
# stratified PPS sample with replacement, n = 1000, from the simulated population of SPEC 9.4)
# and writes test/reference/survey_tables_expected.json.
#
# Design: one-stage stratified by field, with replacement (no fpc), weights w. Each cell is a
# domain taken with subset(), which keeps every unit and stratum and zeroes the weights outside
# the domain. count = svytotal(~one) with one = 1, mean = svymean(~salary); their standard
# errors are the Taylor-linearised SE() of each.
suppressPackageStartupMessages({
  library(survey)
  library(jsonlite)
})

sample <- read.csv(
  "test/reference/survey_sample.csv",
  colClasses = c(field = "character", gender = "character", salary = "numeric", w = "numeric")
)
sample$one <- 1
design <- svydesign(ids = ~1, strata = ~field, weights = ~w, data = sample)

fields <- unique(sample$field)
genders <- unique(sample$gender)
cells <- list()
for (f in c("all", fields)) {
  for (g in c("all", genders)) {
    keep <- (f == "all" | sample$field == f) & (g == "all" | sample$gender == g)
    domain <- subset(design, keep)
    total <- svytotal(~one, domain)
    mean <- svymean(~salary, domain)
    cells[[length(cells) + 1]] <- list(
      field = f,
      gender = g,
      count = unname(coef(total)),
      countSE = unname(SE(total))[1],
      mean = unname(coef(mean)),
      meanSE = unname(SE(mean))[1]
    )
  }
}

out <- list(
  versions = list(
    R = R.version.string,
    survey = as.character(packageVersion("survey")),
    jsonlite = as.character(packageVersion("jsonlite"))
  ),
  design = "svydesign(ids = ~1, strata = ~field, weights = ~w); svytotal(~one) and svymean(~salary) on subset() domains",
  n = nrow(sample),
  cells = cells
)
write_json(out, "test/reference/survey_tables_expected.json", auto_unbox = TRUE, digits = NA, pretty = TRUE)
