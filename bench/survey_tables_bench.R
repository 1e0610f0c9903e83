# Peer side of bench/survey_vs_r.ts: the 27-cell survey table (field x gender, both margins,
# grand total) of one stratified PPS sample by R's `survey` package, timed inside R.
#
#   Rscript bench/survey_tables_bench.R SAMPLE.csv     (from the repository root)
#
# The design and the cells are test/reference/survey_cells.R's, the same code that made the
# tests' reference values. Prints one JSON line: R and survey versions, n, readSeconds
# (read.csv), computeSeconds (svydesign and the 27 cells; elapsed time from proc.time) and the
# cells with count, countSE, mean, meanSE (17 significant digits, NaN as null).
source("test/reference/survey_cells.R")

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1) stop("usage: Rscript bench/survey_tables_bench.R SAMPLE.csv")

started <- proc.time()[["elapsed"]]
sample <- read_survey_sample(args[1])
read_seconds <- proc.time()[["elapsed"]] - started

started <- proc.time()[["elapsed"]]
cells <- survey_cells(sample)
compute_seconds <- proc.time()[["elapsed"]] - started

# JSON by hand: jsonlite prints at most 15 significant digits, and a round trip needs 17.
# A number: 17 significant digits, null for NaN or infinity.
num <- function(x) if (is.finite(x)) sprintf("%.17g", x) else "null"
# A string (the labels here need no escaping beyond quotes and backslashes).
str <- function(x) sprintf("\"%s\"", gsub("([\"\\\\])", "\\\\\\1", x))

cell_json <- vapply(cells, function(cell) {
  sprintf(
    "{\"field\":%s,\"gender\":%s,\"count\":%s,\"countSE\":%s,\"mean\":%s,\"meanSE\":%s}",
    str(cell$field), str(cell$gender), num(cell$count), num(cell$countSE), num(cell$mean),
    num(cell$meanSE)
  )
}, character(1))
cat(sprintf(
  "{\"R\":%s,\"survey\":%s,\"n\":%d,\"readSeconds\":%s,\"computeSeconds\":%s,\"cells\":[%s]}\n",
  str(R.version.string), str(as.character(packageVersion("survey"))), nrow(sample),
  num(read_seconds), num(compute_seconds), paste(cell_json, collapse = ",")
))
