# Peer side of bench/survey_vs_r.ts: the 27-cell survey table (field x gender, both margins,
# grand total) of one stratified PPS sample by R's `survey` package, timed inside R.
#
#   Rscript bench/survey_tables_bench.R SAMPLE.csv
#
# Same design and domains as test/reference/survey_tables.R: one-stage, stratified by field,
# with replacement (no fpc), weights w; each cell a subset() domain; count = svytotal(~one),
# mean = svymean(~salary), SEs Taylor-linearised. Prints one JSON line: R and survey versions,
# n, readSeconds (read.csv), computeSeconds (svydesign and the 27 cells; elapsed time from
# proc.time) and the cells with count, countSE, mean, meanSE (%.17g, NaN as null).
suppressPackageStartupMessages(library(survey))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1) stop("usage: Rscript bench/survey_tables_bench.R SAMPLE.csv")

started <- proc.time()[["elapsed"]]
sample <- read.csv(
  args[1],
  colClasses = c(field = "character", gender = "character", salary = "numeric", w = "numeric")
)
read_seconds <- proc.time()[["elapsed"]] - started

started <- proc.time()[["elapsed"]]
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
      values = c(
        unname(coef(total)), unname(SE(total))[1], unname(coef(mean)), unname(SE(mean))[1]
      )
    )
  }
}
compute_seconds <- proc.time()[["elapsed"]] - started

# A number as JSON: 17 significant digits (round trip), null for NaN or infinity.
num <- function(x) if (is.finite(x)) sprintf("%.17g", x) else "null"
# A string as JSON (the labels here need no escaping beyond quotes and backslashes).
str <- function(x) sprintf("\"%s\"", gsub("([\"\\\\])", "\\\\\\1", x))

cell_json <- vapply(cells, function(cell) {
  v <- cell$values
  sprintf(
    "{\"field\":%s,\"gender\":%s,\"count\":%s,\"countSE\":%s,\"mean\":%s,\"meanSE\":%s}",
    str(cell$field), str(cell$gender), num(v[1]), num(v[2]), num(v[3]), num(v[4])
  )
}, character(1))
cat(sprintf(
  "{\"R\":%s,\"survey\":%s,\"n\":%d,\"readSeconds\":%s,\"computeSeconds\":%s,\"cells\":[%s]}\n",
  str(R.version.string), str(as.character(packageVersion("survey"))), nrow(sample),
  num(read_seconds), num(compute_seconds), paste(cell_json, collapse = ",")
))
