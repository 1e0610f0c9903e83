# The 27-cell survey table (field x gender, both margins, grand total) by R's `survey` package,
# shared by test/reference/survey_tables.R (reference values) and bench/survey_tables_bench.R
# (peer benchmark); both source it from the repository root, as does
# test/reference/nhanes_tables.R for domain_cells().
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

# The cells of a two-way table on `design` (whose data has a column one = 1): for each level of
# the two margins, a named list of two vectors of levels of columns of `data`, with "all" first
# in each, the domain's count = svytotal(~one) and mean of `outcome` (a formula), with their SEs.
# A list of lists with the two margins' names, count, countSE, mean and meanSE.
domain_cells <- function(design, data, margins, outcome) {
  by <- names(margins)
  cells <- list()
  for (a in c("all", margins[[1]])) {
    for (b in c("all", margins[[2]])) {
      keep <- (a == "all" | data[[by[1]]] == a) & (b == "all" | data[[by[2]]] == b)
      domain <- subset(design, keep)
      total <- svytotal(~one, domain)
      mean <- svymean(outcome, domain)
      cells[[length(cells) + 1]] <- setNames(list(
        a,
        b,
        unname(coef(total)),
        unname(SE(total))[1],
        unname(coef(mean)),
        unname(SE(mean))[1]
      ), c(by, "count", "countSE", "mean", "meanSE"))
    }
  }
  cells
}

# The cells of `sample`, "all" first in each margin: a list of lists with field, gender, count,
# countSE, mean and meanSE.
survey_cells <- function(sample) {
  sample$one <- 1
  design <- svydesign(ids = ~1, strata = ~field, weights = ~w, data = sample)
  margins <- list(field = unique(sample$field), gender = unique(sample$gender))
  domain_cells(design, sample, margins, ~salary)
}
