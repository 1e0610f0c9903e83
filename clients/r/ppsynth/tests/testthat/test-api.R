# The client against a real server (helper-server.R): the API's errors as R conditions, the
# budget, and a survey table.

survey_frame <- function(n = 400) {
  set.seed(7)
  field <- sample(c("f1", "f2", "f3"), n, replace = TRUE)
  gender <- sample(c("m", "w"), n, replace = TRUE)
  data.frame(field = field, gender = gender,
             salary = round(stats::rlnorm(n, 10 + 0.2 * (field == "f2"), 0.4)),
             w = round(stats::runif(n, 1, 40), 3), stringsAsFactors = FALSE)
}

test_that("a client needs a key, from the environment by default", {
  withr::local_envvar(PPSYNTH_KEY = "")
  expect_error(ppsynth_client("http://127.0.0.1:1"), "PPSYNTH_KEY")
  withr::local_envvar(PPSYNTH_KEY = "from-the-environment", PPSYNTH_URL = "http://h:1/")
  client <- ppsynth_client()
  expect_identical(client$key, "from-the-environment")
  expect_identical(client$url, "http://h:1")
  expect_false(grepl("from-the-environment", paste(capture.output(print(client)), collapse = "")))
})

test_that("errors are conditions with the API's status, code, message and field", {
  server <- ppsynth_test_server()
  bad <- ppsynth_client(server$url, key = "not-a-key")
  e <- tryCatch(ppsynth_budget(bad, "x"), ppsynth_error = function(e) e)
  expect_s3_class(e, "ppsynth_error_unauthorized")
  expect_identical(e$status, 401L)
  expect_identical(e$code, "unauthorized")

  analyst <- ppsynth_client(server$url, key = server$analyst)
  owner <- ppsynth_client(server$url, key = server$owner)
  data <- survey_frame()
  e <- tryCatch(ppsynth_register(analyst, data, 5), ppsynth_error = function(e) e)
  expect_s3_class(e, "ppsynth_error_forbidden")
  expect_identical(e$status, 403L)

  e <- tryCatch(ppsynth_register(owner, data, 5, policy = list(publicColumns = "nope")),
                ppsynth_error = function(e) e)
  expect_identical(e$status, 400L)
  expect_false(is.null(e$field))

  dataset <- ppsynth_register(owner, data, 5, name = "salaries",
                              policy = list(publicColumns = c("field", "gender"),
                                            bounds = list(salary = c(0, 1e6), w = c(0, 50))))
  expect_s3_class(dataset, "ppsynth_dataset")
  expect_identical(dataset$n, 400L)
  expect_identical(unlist(dataset$policy$publicColumns), c("field", "gender"))
  e <- tryCatch(
    ppsynth_synthesize(analyst, dataset, y = "salary", epsilon = 1, model = "normal",
                       seed = 3),
    ppsynth_error = function(e) e
  )
  expect_s3_class(e, "ppsynth_error_seed_not_allowed")
  expect_identical(e$status, 422L)
  expect_identical(e$field, "seed")
  expect_match(conditionMessage(e), "422 seed_not_allowed \\(field `seed`\\)")
  e <- tryCatch(ppsynth_synthesize(analyst, dataset, y = "salary", model = "normal",
                                   x = "gender"),
                ppsynth_error = function(e) e)
  # mechanism "auto" picks by epsilon, so the request itself is invalid without it.
  expect_identical(e$status, 400L)
  expect_identical(e$code, "invalid_request")
  expect_identical(e$field, "epsilon")
  e <- tryCatch(ppsynth_synthesize(analyst, dataset, y = "salary", epsilon = 6,
                                   model = "normal"),
                ppsynth_error = function(e) e)
  expect_s3_class(e, "ppsynth_error_budget_exceeded")
  expect_identical(e$status, 409L)
  # Refusals charge nothing.
  expect_identical(ppsynth_budget(analyst, dataset)$spent, 0L)
})

test_that("a laplace table: charged to the budget, its rows a data frame", {
  server <- ppsynth_test_server()
  owner <- ppsynth_client(server$url, key = server$owner)
  analyst <- ppsynth_client(server$url, key = server$analyst)
  dataset <- ppsynth_register(owner, survey_frame(), 10, name = "salaries",
                              policy = list(publicColumns = c("field", "gender"),
                                            bounds = list(salary = c(0, 1e6), w = c(0, 50))))
  table <- ppsynth_table(analyst, dataset, y = "salary", weight = "w", strata = "field",
                         by = c("field", "gender"), method = "laplace", epsilon = 2)
  expect_s3_class(table, "data.frame")
  # Grand total, 3 + 2 margins, 3 x 2 cells.
  expect_identical(nrow(table), 12L)
  expect_true(all(c("field", "gender", "count", "mean") %in% names(table)))
  expect_identical(table$field[1], "all")
  expect_true(is.numeric(table$mean))
  expect_true(all(is.na(table$meanSE)))
  expect_identical(attr(table, "privacy")$guarantee, "DP")
  budget <- ppsynth_budget(analyst, dataset)
  expect_identical(budget$spent, 2L)
  expect_identical(nrow(budget$releases), 1L)
  expect_identical(budget$releases$epsilon, 2)
})
