# Reference values for src/survey/tables.ts: the 27-cell survey table (field x gender, both
# margins, grand total) of the recorded PPS sample, by R's `survey` package.
#
#   Rscript test/reference/survey_tables.R
#
# reads test/reference/survey_sample.csv (written by test/reference/survey_sample.ts: a
# stratified PPS sample with replacement, n = 1000, from the simulated population of SPEC 9.4)
# and writes test/reference/survey_tables_expected.json. The design and the cells are in
# test/reference/survey_cells.R.
suppressPackageStartupMessages(library(jsonlite))
source("test/reference/survey_cells.R")

sample <- read_survey_sample("test/reference/survey_sample.csv")

out <- list(
  versions = list(
    R = R.version.string,
    survey = as.character(packageVersion("survey")),
    jsonlite = as.character(packageVersion("jsonlite"))
  ),
  design = "svydesign(ids = ~1, strata = ~field, weights = ~w); svytotal(~one) and svymean(~salary) on subset() domains",
  n = nrow(sample),
  cells = survey_cells(sample)
)
write_json(out, "test/reference/survey_tables_expected.json", auto_unbox = TRUE, digits = NA, pretty = TRUE)
