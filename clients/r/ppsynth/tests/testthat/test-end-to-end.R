# The vignette's steps end to end against a real server (helper-server.R): the owner registers
# the bundled ACS excerpt with its file schema, an analyst releases every column with synthetic
# weights, reads the m files back typed, and estimates a weighted prevalence by PUMA with svyby,
# combined over the files, beside the confidential estimate. A subsample keeps it short, and so
# does the network without parents (`parents = 0`, a public setting passed through `...`): the
# claim here is the client's plumbing, not the fit, and the vignette releases the whole file with
# the service's default network. The draws stay the exact sampler's defaults (2 chains of 500),
# whose checks (R-hat, bulk ESS) then read one quantity, the sum of the terms u_i, not one
# more per column (each column's parent count is constant).

test_that("register, synthesize all columns, wait, read typed files, analyse, combine", {
  server <- ppsynth_test_server()
  owner <- ppsynth_client(server$url, key = server$owner)
  analyst <- ppsynth_client(server$url, key = server$analyst)
  acs <- ppsynth_test_acs(server$repo, rows = 1:2500)
  dataset <- ppsynth_register(owner, acs$data, epsilon_total = 30, schema = acs$schema,
                              policy = list(publicColumns = "PUMA"), name = "ma2019 excerpt")
  expect_identical(dataset$n, 2500L)
  expect_identical(unlist(dataset$columns), names(acs$data))
  expect_identical(unlist(dataset$policy$publicColumns), "PUMA")

  # A final fit that fails its diagnostics releases nothing (data_rejected, charged): up to
  # three requests, as the vignette does.
  job <- NULL
  for (attempt in 1:3) {
    # Independent columns, drawn exactly (a flagged fit, data_rejected, is still charged and
    # retried).
    submitted <- ppsynth_synthesize(analyst, dataset, y = "all", epsilon = 8, m = 2,
                                    parents = 0L)
    expect_s3_class(submitted, "ppsynth_job")
    expect_true(submitted$status %in% c("queued", "running"))
    job <- tryCatch(ppsynth_wait(analyst, submitted, interval = 0.5),
                    ppsynth_error_data_rejected = function(e) NULL)
    if (!is.null(job)) break
  }
  expect_false(is.null(job))
  expect_identical(job$status, "succeeded")
  budget <- ppsynth_budget(analyst, dataset)
  expect_identical(budget$spent, 8L * attempt)
  expect_identical(budget$remaining, 30L - 8L * attempt)

  report <- ppsynth_report(owner, job)
  expect_identical(report$manifest$model, "bayes-net")
  expect_identical(report$manifest$mechanism, "sw")  # eps/m = 8/2 < 5: SW (auto takes LW from 5)
  expect_identical(report$manifest$mechanismChoice$requested, "auto")
  expect_identical(report$manifest$epsilon, 8L)
  expect_identical(unlist(report$manifest$columns), names(acs$data))
  expect_identical(nrow(report$utility), 2L)
  expect_true(all(report$utility$kMarginal > 0 & report$utility$kMarginal <= 1000))
  # The option in `...` reached the fit: the owner's diagnostics count no parent for any
  # modelled column (all but DENSITY, which the schema copies from PUMA).
  diagnostics <- ppsynth_json(ppsynth_request(owner, paste0("/v1/syntheses/", job$id,
                                                            "/diagnostics")))
  quantities <- diagnostics$fit$summary
  parents <- quantities[startsWith(names(quantities), "parents:")]
  expect_identical(names(parents), paste0("parents:", setdiff(names(acs$data), "DENSITY")))
  expect_true(all(vapply(parents, function(q) isTRUE(q$mean == 0 && q$sd == 0), logical(1))))
  # An analyst sees the public manifest, not the owner's utility.
  expect_null(ppsynth_report(analyst, job)$utility)

  files <- ppsynth_datasets(analyst, job)
  expect_length(files, 2L)
  for (synthetic in files) {
    expect_identical(names(synthetic), names(acs$data))
    expect_identical(nrow(synthetic), 2500L)
    for (column in acs$schema$columns) {
      x <- synthetic[[column$name]]
      if (column$kind == "categorical") {
        expect_s3_class(x, "factor")
        expect_identical(levels(x), unlist(column$levels))
      } else {
        expect_true(is.numeric(x), label = column$name)
      }
      if (is.null(column$notApplicable)) expect_false(anyNA(x), label = column$name)
    }
    # N/A markers became NA, where the schema's rules put them.
    expect_identical(is.na(synthetic$PINCP), synthetic$AGEP < 15)
    expect_true(all(synthetic$PWGTP >= 1))
  }
  # The files differ (m independent draws) and are not the confidential records.
  expect_false(identical(files[[1]], files[[2]]))

  prevalence <- function(design) {
    survey::svyby(~poor, ~PUMA, design, survey::svymean, na.rm = TRUE)
  }
  files <- lapply(files, function(d) transform(d, poor = as.numeric(POVPIP < 100)))
  combined <- ppsynth_svy(files, ~PWGTP, prevalence)
  expect_identical(combined$term, levels(acs$data$PUMA))
  expect_true(all(combined$estimate >= 0 & combined$estimate <= 1))
  expect_true(all(combined$se > 0 & combined$lower < combined$estimate &
                    combined$estimate < combined$upper))
  # Recomputed by hand from the two files' own svyby estimates.
  by_file <- lapply(files, function(d) {
    prevalence(survey::svydesign(ids = ~1, weights = ~PWGTP, data = d))
  })
  q <- sapply(by_file, function(r) stats::coef(r))
  expect_equal(combined$estimate, rowMeans(q), ignore_attr = TRUE)
  expect_equal(combined$between, apply(q, 1, stats::var), ignore_attr = TRUE)

  confidential <- transform(acs$data, poor = as.numeric(POVPIP < 100))
  truth <- prevalence(survey::svydesign(ids = ~1, weights = ~PWGTP, data = confidential))
  ci <- stats::confint(truth)
  overlap <- ppsynth_ci_overlap(ci[, 1], ci[, 2], combined$lower, combined$upper)
  expect_length(overlap, 5L)
  expect_true(all(is.finite(overlap) & overlap <= 1))
})
