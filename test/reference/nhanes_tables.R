# Reference values for the confidential survey table of docs/studies/real_file.md: the hi_chol
# prevalence and the weighted counts by agecat x gender (both margins and the grand total) of
# examples/nhanes.csv, by R's `survey` package.
#
#   Rscript test/reference/nhanes_tables.R
#
# reads examples/nhanes.csv (written by test/reference/nhanes_export.R), drops the 745 records
# with a missing hi_chol (as `--missing drop` does) and writes
# test/reference/nhanes_tables_expected.json:
#
# - `cells`: the design ppsynth's src/survey/tables.ts computes (SPEC 8): one-stage stratified by
#   SDMVSTRA, with replacement, no fpc, weights WTMEC2YR, i.e.
#   svydesign(ids = ~1, strata = ~stratum, weights = ~weight). Each cell is a subset() domain
#   (every unit and stratum kept, weights zeroed outside); count = svytotal(~one), mean =
#   svymean(~hi_chol), with their Taylor-linearised SE().
# - `clustered`: for comparison only, the SEs of NHANES's own design, two-stage with the PSUs
#   (SDMVPSU, 2 per stratum) nested in the strata, svydesign(ids = ~psu, strata = ~stratum,
#   weights = ~weight, nest = TRUE); the estimates are the same, the SEs are not.
suppressPackageStartupMessages(library(survey))
source("test/reference/survey_cells.R")
suppressPackageStartupMessages(library(jsonlite))

data <- read.csv(
  "examples/nhanes.csv",
  colClasses = c(
    agecat = "character", gender = "character", race = "character", hi_chol = "numeric",
    weight = "numeric", stratum = "integer", psu = "integer"
  )
)
kept <- data[!is.na(data$hi_chol), ]
kept$one <- 1
margins <- list(agecat = c("0-19", "20-39", "40-59", "60+"), gender = c("male", "female"))
cells_of <- function(design) domain_cells(design, kept, margins, ~hi_chol)

stratified <- svydesign(ids = ~1, strata = ~stratum, weights = ~weight, data = kept)
clustered <- svydesign(ids = ~psu, strata = ~stratum, weights = ~weight, nest = TRUE, data = kept)

out <- list(
  versions = list(
    R = R.version.string,
    survey = as.character(packageVersion("survey")),
    jsonlite = as.character(packageVersion("jsonlite"))
  ),
  design = paste(
    "svydesign(ids = ~1, strata = ~stratum, weights = ~weight);",
    "svytotal(~one) and svymean(~hi_chol) on subset() domains"
  ),
  clusteredDesign = "svydesign(ids = ~psu, strata = ~stratum, weights = ~weight, nest = TRUE)",
  n = nrow(kept),
  dropped = nrow(data) - nrow(kept),
  cells = cells_of(stratified),
  clustered = cells_of(clustered)
)
write_json(
  out, "test/reference/nhanes_tables_expected.json",
  auto_unbox = TRUE, digits = NA, pretty = TRUE
)
cat(sprintf("test/reference/nhanes_tables_expected.json: n = %d, %d cells\n", out$n, length(out$cells)))
