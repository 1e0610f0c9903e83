# The combining rules against the numbers the project's own TypeScript gives
# (fixtures/combine_expected.json, recorded by scripts/r_combine_fixture.ts from
# src/stats/partial_synthesis.ts and src/survey/combine.ts).

fixture <- jsonlite::fromJSON(testthat::test_path("fixtures", "combine_expected.json"),
                              simplifyVector = FALSE)

as_number <- function(x) {
  if (is.character(x)) return(switch(x, "Infinity" = Inf, "-Infinity" = -Inf, "NaN" = NaN))
  as.numeric(x)
}

test_that("one estimand: every quantity equals combinePartialSynthesis's", {
  expect_gte(length(fixture$estimates), 6L)
  for (case in fixture$estimates) {
    got <- ppsynth_combine(as.numeric(unlist(case$q)), as.numeric(unlist(case$u)), case$level)
    expect_equal(nrow(got), 1L)
    for (name in names(case$expected)) {
      expected <- as_number(case$expected[[name]])
      if (is.infinite(expected)) {
        expect_identical(got[[name]], expected, label = paste(case$name, name))
      } else {
        expect_equal(got[[name]], expected, tolerance = 1e-10,
                     label = paste(case$name, name))
      }
    }
  }
})

test_that("b = 0 gives infinite df and the normal interval; m = 1 takes b as 0", {
  equal <- ppsynth_combine(c(4, 4, 4), c(1, 2, 3))
  expect_identical(equal$df, Inf)
  expect_equal(equal$upper - equal$estimate, stats::qnorm(0.975) * sqrt(2))
  one <- ppsynth_combine(7.5, 0.04)
  expect_identical(one$between, 0)
  expect_equal(one$se, 0.2)
})

test_that("cells of m tables: equal combineTables's, NaN where a table's cell is undefined", {
  table <- fixture$table
  for (k in seq_along(table$input)) {
    input <- table$input[[k]]
    expected <- table$expected[[k]]
    q <- do.call(rbind, lapply(input$q, function(row) vapply(row, as_number, numeric(1))))
    se <- do.call(rbind, lapply(input$se, function(row) vapply(row, as_number, numeric(1))))
    got <- ppsynth_combine(q, se^2, table$level)
    expect_equal(nrow(got), ncol(q))
    for (name in c("estimate", "se", "df", "lower", "upper")) {
      want <- vapply(expected[[name]], as_number, numeric(1))
      expect_identical(is.nan(got[[name]]), is.nan(want), label = paste(input$kind, name))
      ok <- !is.nan(want)
      expect_equal(got[[name]][ok], want[ok], tolerance = 1e-10,
                   label = paste(input$kind, name))
    }
  }
  # The fixture holds an undefined cell: the rule is exercised, not assumed.
  expect_true(any(vapply(table$expected[[2]]$estimate, is.character, logical(1))))
})

test_that("bad inputs are refused", {
  expect_error(ppsynth_combine(1:3, 1:2), "same shape")
  expect_error(ppsynth_combine(1:3, c(1, -1, 1)), "non-negative")
  expect_error(ppsynth_combine(1:3, 1:3, level = 1), "level")
})

test_that("CI overlap is the utility report's measure", {
  # Identical intervals overlap fully; disjoint ones go negative; nested ones average the shares.
  expect_equal(ppsynth_ci_overlap(0, 1, 0, 1), 1)
  expect_equal(ppsynth_ci_overlap(0, 1, 2, 3), 0.5 * (-1 / 1 + -1 / 1))
  expect_equal(ppsynth_ci_overlap(0, 4, 1, 2), 0.5 * (1 / 4 + 1 / 1))
  expect_true(is.na(ppsynth_ci_overlap(0, 0, 0, 1)))
})

test_that("ppsynth_svy combines svymean over synthetic files by these rules", {
  set.seed(11)
  files <- lapply(1:3, function(l) {
    data.frame(y = stats::rbinom(200, 1, 0.3 + 0.02 * l), g = factor(rep(c("a", "b"), 100)),
               w = stats::runif(200, 1, 5))
  })
  got <- ppsynth_svy(files, ~w, function(d) survey::svyby(~y, ~g, d, survey::svymean))
  q <- t(sapply(files, function(d) {
    vapply(c("a", "b"), function(g) stats::weighted.mean(d$y[d$g == g], d$w[d$g == g]),
           numeric(1))
  }))
  u <- t(sapply(files, function(d) {
    design <- survey::svydesign(ids = ~1, weights = ~w, data = d)
    as.numeric(survey::SE(survey::svyby(~y, ~g, design, survey::svymean)))^2
  }))
  expect_equal(got$term, c("a", "b"))
  expect_equal(got$estimate, unname(colMeans(q)))
  expect_equal(got$between, unname(apply(q, 2, stats::var)))
  expect_equal(got$within, unname(colMeans(u)))
  expect_equal(attr(got, "m"), 3L)
  expect_error(ppsynth_svy(list(), ~w, identity), "list of the m")
})
