# The 27-cell survey table (field x gender, both margins, grand total) by R's `survey` package,
# shared by test/reference/survey_tables.R (reference values) and bench/survey_tables_bench.R
# (peer benchmark); both source it from the repository root.
#
# Design: one-stage stratified by field, with replacement (no fpc), weights w. Each cell is a
# domain taken with subset(), which keeps every unit and stratum and zeroes the weights outside
# the domain. count = svytotal(~one) with one = 1, mean = svymean(~salary); their standard
# errors are the Taylor-linearised SE() of each.
suppressPackageStartupMessages(library(survey))

# Reads a sample CSV with columns field, gender, salary, w.
read_survey_sample <- function(path) {
  read.csv(
    path,
    colClasses = c(field = "character", gender = "character", salary = "numeric", w = "numeric")
  )
}

# The cells of `sample`, "all" first in each margin: a list of lists with field, gender, count,
# countSE, mean and meanSE.
survey_cells <- function(sample) {
  sample$one <- 1
  design <- svydesign(ids = ~1, strata = ~field, weights = ~w, data = sample)
  cells <- list()
  for (f in c("all", unique(sample$field))) {
    for (g in c("all", unique(sample$gender))) {
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
  cells
}
