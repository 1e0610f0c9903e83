# The API's operations (README "HTTP API"; functions/datasets.ts, syntheses.ts, tables.ts).

# Fields of the policy and of the requests that the API takes as JSON arrays, kept arrays when
# they hold one element (jsonlite would otherwise write a scalar).
ppsynth_arrays <- function(x, fields) {
  for (field in intersect(fields, names(x))) {
    if (!is.null(x[[field]]) && !is.list(x[[field]])) x[[field]] <- I(x[[field]])
  }
  x
}

ppsynth_policy_body <- function(policy) {
  if (!is.list(policy) || (length(policy) > 0L && is.null(names(policy)))) {
    stop("`policy` must be a named list of the API's policy fields ",
         "(publicColumns, bounds, levels, stratumSizes, minEpsilon, guarantee, surveyDesign, ",
         "discloseDesign, allowUnweighted)", call. = FALSE)
  }
  policy <- ppsynth_arrays(policy, "publicColumns")
  if (is.list(policy$levels)) policy$levels <- lapply(policy$levels, function(l) I(as.character(l)))
  if (is.list(policy$stratumSizes)) policy$stratumSizes <- lapply(policy$stratumSizes, as.list)
  policy
}

ppsynth_register <- function(client, data, epsilon_total, policy = list(), schema = NULL,
                             name = NULL) {
  if (!is.data.frame(data)) stop("`data` must be a data.frame", call. = FALSE)
  if (!is.numeric(epsilon_total) || length(epsilon_total) != 1L || !(epsilon_total > 0)) {
    stop("`epsilon_total` must be one positive number", call. = FALSE)
  }
  schema <- ppsynth_schema(schema)
  body <- c(
    list(epsilonTotal = epsilon_total, csv = ppsynth_csv_text(data, schema)),
    if (is.null(name)) list() else list(name = name),
    ppsynth_policy_body(policy),
    if (is.null(schema)) list() else list(fileSchema = schema)
  )
  resp <- ppsynth_request(client, "/v1/datasets", "POST", body = body)
  structure(ppsynth_json(resp), class = "ppsynth_dataset")
}

ppsynth_dataset <- function(client, id) {
  resp <- ppsynth_request(client, paste0("/v1/datasets/", ppsynth_id(id, "dataset")))
  structure(ppsynth_json(resp), class = "ppsynth_dataset")
}

print.ppsynth_dataset <- function(x, ...) {
  cat("<ppsynth_dataset> ", x$name, " ", x$id, "\n  n = ", x$n, ", ", length(x$columns),
      " columns, epsilon total ", x$epsilonTotal, "\n  public: ",
      if (length(x$policy$publicColumns) == 0L) "(none)"
      else paste(unlist(x$policy$publicColumns), collapse = ", "),
      if (is.null(x$policy$fileSchema)) "" else "\n  whole-file schema declared",
      "\n", sep = "")
  invisible(x)
}

ppsynth_budget <- function(client, dataset) {
  resp <- ppsynth_request(client,
                          paste0("/v1/datasets/", ppsynth_id(dataset, "dataset"), "/budget"))
  budget <- ppsynth_json(resp)
  releases <- budget$releases
  budget$releases <- data.frame(
    jobId = vapply(releases, function(r) r$jobId, character(1)),
    epsilon = vapply(releases, function(r) as.numeric(r$epsilon), numeric(1)),
    chargedAt = vapply(releases, function(r) r$chargedAt, character(1)),
    stringsAsFactors = FALSE
  )
  budget
}

ppsynth_synthesize <- function(client, dataset = NULL, y = "all", epsilon = NULL, m = 1L,
                               mechanism = "auto", ..., csv = NULL, idempotency_key = NULL) {
  options <- list(...)
  if (length(options) > 0L && (is.null(names(options)) || any(names(options) == ""))) {
    stop("the synthesis options in `...` must be named (the API's fields: model, x, chains, ",
         "warmup, draws, ...)", call. = FALSE)
  }
  body <- c(
    if (is.null(dataset)) list(csv = csv) else list(datasetId = ppsynth_id(dataset, "dataset")),
    list(y = if (length(y) > 1L) I(y) else y, mechanism = mechanism, m = as.integer(m)),
    if (is.null(epsilon)) list() else list(epsilon = epsilon),
    options
  )
  if (is.null(dataset) && is.null(csv)) {
    stop("give `dataset` (registered) or inline `csv` text", call. = FALSE)
  }
  body <- ppsynth_arrays(body, c("x", "utilityModels"))
  headers <- if (is.null(idempotency_key)) list() else list(`Idempotency-Key` = idempotency_key)
  resp <- ppsynth_request(client, "/v1/syntheses", "POST", body = body, headers = headers)
  structure(ppsynth_json(resp), class = "ppsynth_job")
}

print.ppsynth_job <- function(x, ...) {
  cat("<ppsynth_job> ", x$id, " ", x$status, "\n", sep = "")
  if (!is.null(x$report)) {
    r <- x$report
    cat("  ", r$mechanism, " / ", r$model, ", epsilon ", r$epsilon, " (", r$guarantee,
        ", ", r$neighbours, "), m = ", r$m, ", n = ", r$n, "\n", sep = "")
  }
  if (!is.null(x$error)) cat("  failed: ", x$error$code, ": ", x$error$message, "\n", sep = "")
  invisible(x)
}

# The location of a job: a synthesis's or a table's.
ppsynth_job_path <- function(job) {
  if (is.list(job) && is.character(job$location)) return(job$location)
  if (is.list(job) && is.list(job$table)) return(paste0("/v1/tables/", job$id))
  paste0("/v1/syntheses/", ppsynth_id(job, "job"))
}

ppsynth_wait <- function(client, job, interval = 1, timeout = 3600, progress = TRUE) {
  path <- ppsynth_job_path(job)
  started <- Sys.time()
  state <- "queued"
  bar <- NULL
  if (isTRUE(progress)) {
    bar <- cli::cli_progress_bar(
      format = "ppsynth {cli::pb_bar} {cli::pb_percent} {state} {cli::pb_elapsed}",
      total = 100, clear = FALSE
    )
  }
  repeat {
    current <- ppsynth_json(ppsynth_request(client, path))
    # Progress is shown on a registered dataset only to keys with the diagnostics scope; the
    # others see the status alone.
    p <- current$progress
    state <- if (is.list(p)) paste(current$status, p$stage) else current$status
    if (!is.null(bar)) {
      done <- if (current$status == "succeeded") 100 else if (is.list(p)) 100 * p$fraction else 0
      cli::cli_progress_update(id = bar, set = floor(done))
    }
    if (current$status %in% c("succeeded", "failed")) break
    if (as.numeric(difftime(Sys.time(), started, units = "secs")) > timeout) {
      if (!is.null(bar)) cli::cli_progress_done(id = bar, result = "failed")
      stop(ppsynth_condition(NA_integer_, "timeout",
                             paste0("the job is still ", current$status, " after ", timeout, " s")))
    }
    Sys.sleep(interval)
  }
  if (!is.null(bar)) {
    cli::cli_progress_done(id = bar, result = if (current$status == "succeeded") "done" else "failed")
  }
  if (current$status == "failed") {
    error <- current$error %||% list(code = "failed", message = "the job failed")
    cond <- ppsynth_condition(409L, error$code, paste0("the job failed: ", error$message))
    cond$job <- current
    stop(cond)
  }
  structure(current, class = "ppsynth_job")
}

ppsynth_datasets <- function(client, job, schema = NULL) {
  if (!inherits(job, "ppsynth_job") || is.null(job$datasets)) {
    job <- ppsynth_json(ppsynth_request(client, ppsynth_job_path(job)))
  }
  if (!identical(job$status, "succeeded")) {
    stop(ppsynth_condition(409L, "not_ready", paste0("the job is ", job$status)))
  }
  levels <- list()
  if (is.null(schema) && !is.null(job$datasetId)) {
    info <- ppsynth_dataset(client, job$datasetId)
    schema <- info$policy$fileSchema
    levels <- info$policy$levels
  }
  schema <- ppsynth_schema(schema)
  lapply(job$datasets, function(url) {
    text <- httr2::resp_body_string(ppsynth_request(client, url))
    data <- ppsynth_read_csv(text = text, schema = schema)
    # Outside a whole-file schema, the policy's declared levels make factors.
    for (name in intersect(names(levels), names(data))) {
      data[[name]] <- ppsynth_type_column(
        as.character(data[[name]]),
        list(name = name, kind = "categorical", levels = levels[[name]])
      )
    }
    data
  })
}

ppsynth_report <- function(client, job, utility = TRUE) {
  if (!inherits(job, "ppsynth_job") || is.null(job$report)) {
    job <- ppsynth_json(ppsynth_request(client, ppsynth_job_path(job)))
  }
  if (is.null(job$report)) {
    stop(ppsynth_condition(409L, "not_ready", paste0("the job is ", job$status)))
  }
  out <- list(manifest = job$report, utility = NULL)
  if (!utility) return(out)
  diagnostics <- tryCatch(
    ppsynth_json(ppsynth_request(client, paste0("/v1/syntheses/", job$id, "/diagnostics"))),
    ppsynth_error_forbidden = function(e) NULL
  )
  if (!is.null(diagnostics$utility)) out$utility <- ppsynth_utility_frame(diagnostics$utility)
  out
}

# The owner's utility of a whole-file release, one row per synthetic file.
ppsynth_utility_frame <- function(utility) {
  num <- function(x) if (is.null(x)) NA_real_ else as.numeric(x)
  violations <- function(u, side) {
    sum(vapply(u$rules %||% list(), function(r) num(r[[side]]), numeric(1)))
  }
  data.frame(
    file = seq_along(utility),
    kMarginal = vapply(utility, function(u) num(u$kMarginal), numeric(1)),
    threeWayMeanTvd = vapply(utility, function(u) num(u$threeWay$meanTvd), numeric(1)),
    pmse = vapply(utility, function(u) num(u$pmse$pmse), numeric(1)),
    pmseRatio = vapply(utility, function(u) num(u$pmse$ratio), numeric(1)),
    ruleViolationsConfidential = vapply(utility, violations, numeric(1), side = "confidential"),
    ruleViolationsSynthetic = vapply(utility, violations, numeric(1), side = "synthetic")
  )
}

ppsynth_table <- function(client, dataset, y, weight, strata, by, method = "laplace",
                          epsilon = NULL, ..., wait = TRUE, progress = TRUE,
                          idempotency_key = NULL) {
  if (length(by) != 2L) stop("`by` must name two columns", call. = FALSE)
  body <- c(
    list(datasetId = ppsynth_id(dataset, "dataset"), y = y, weight = weight, strata = strata,
         by = I(by), method = method),
    if (is.null(epsilon)) list() else list(epsilon = epsilon),
    list(...)
  )
  headers <- if (is.null(idempotency_key)) list() else list(`Idempotency-Key` = idempotency_key)
  resp <- ppsynth_request(client, "/v1/tables", "POST", body = body, headers = headers)
  answer <- ppsynth_json(resp)
  if (httr2::resp_status(resp) == 202L) {
    if (!wait) return(structure(answer, class = "ppsynth_job"))
    answer <- ppsynth_wait(client, answer, progress = progress)$table
  }
  ppsynth_table_frame(answer)
}

# A table's rows as a data frame (null cells as NA), its method, grouping and privacy attached.
ppsynth_table_frame <- function(table) {
  rows <- table$rows
  columns <- unique(unlist(lapply(rows, names)))
  frame <- as.data.frame(
    lapply(stats::setNames(columns, columns), function(name) {
      values <- lapply(rows, function(r) r[[name]])
      if (all(vapply(values, function(v) is.null(v) || is.numeric(v), logical(1)))) {
        vapply(values, function(v) if (is.null(v)) NA_real_ else as.numeric(v), numeric(1))
      } else {
        vapply(values, function(v) if (is.null(v)) NA_character_ else as.character(v),
               character(1))
      }
    }),
    stringsAsFactors = FALSE, check.names = FALSE
  )
  attr(frame, "method") <- table$method
  attr(frame, "by") <- unlist(table$by)
  attr(frame, "privacy") <- table$privacy
  frame
}
