# The partial-synthesis combining rules (Reiter 2003; the survey paper's Appendix A), as the
# service applies them (src/stats/partial_synthesis.ts, src/survey/combine.ts), and the analysis
# of m synthetic files with the survey package.

ppsynth_combine <- function(q, u, level = 0.95) {
  if (!(is.numeric(level) && length(level) == 1L && level > 0 && level < 1)) {
    stop("`level` must lie in (0, 1)", call. = FALSE)
  }
  q <- as.matrix(q)
  u <- as.matrix(u)
  if (!identical(dim(q), dim(u))) {
    stop("`q` and `u` must have the same shape (m estimates, or m rows by k estimands)",
         call. = FALSE)
  }
  m <- nrow(q)
  if (m < 1L) stop("needs at least one estimate", call. = FALSE)
  rows <- lapply(seq_len(ncol(q)), function(j) {
    qj <- q[, j]
    uj <- u[, j]
    if (!all(is.finite(qj)) || !all(is.finite(uj))) {
      return(c(estimate = NaN, between = NaN, within = NaN, variance = NaN, se = NaN,
               df = NaN, lower = NaN, upper = NaN))
    }
    if (any(uj < 0)) stop("variances `u` must be non-negative", call. = FALSE)
    estimate <- sum(qj) / m
    between <- if (m > 1L) sum((qj - estimate)^2) / (m - 1L) else 0
    within <- sum(uj) / m
    variance <- between / m + within
    df <- if (between > 0) (m - 1L) * (1 + within / (between / m))^2 else Inf
    se <- sqrt(variance)
    p <- (1 + level) / 2
    half <- (if (is.finite(df)) stats::qt(p, df) else stats::qnorm(p)) * se
    c(estimate = estimate, between = between, within = within, variance = variance, se = se,
      df = df, lower = estimate - half, upper = estimate + half)
  })
  out <- as.data.frame(do.call(rbind, rows))
  rownames(out) <- colnames(q)
  out
}

ppsynth_ci_overlap <- function(lower_o, upper_o, lower_s, upper_s) {
  inner <- pmin(upper_o, upper_s) - pmax(lower_o, lower_s)
  out <- 0.5 * (inner / (upper_o - lower_o) + inner / (upper_s - lower_s))
  out[!(upper_o - lower_o > 0) | !(upper_s - lower_s > 0)] <- NA_real_
  out
}

ppsynth_svy <- function(files, weights, analysis, level = 0.95, ...) {
  if (!is.list(files) || length(files) < 1L || !all(vapply(files, is.data.frame, logical(1)))) {
    stop("`files` must be a list of the m synthetic data.frames (ppsynth_datasets())",
         call. = FALSE)
  }
  if (!is.function(analysis)) {
    stop("`analysis` must be a function of one survey design", call. = FALSE)
  }
  results <- lapply(files, function(data) {
    design <- survey::svydesign(ids = ~1, weights = weights, data = data, ...)
    analysis(design)
  })
  q <- do.call(rbind, lapply(results, stats::coef))
  u <- do.call(rbind, lapply(results, function(r) {
    se <- survey::SE(r)
    if (is.data.frame(se)) se <- as.matrix(se)
    as.numeric(se)^2
  }))
  if (!identical(dim(q), dim(u)) ||
      !all(vapply(results, function(r) identical(names(stats::coef(r)), colnames(q)),
                  logical(1)))) {
    stop("the analysis gave different estimands on different files (an empty group?)",
         call. = FALSE)
  }
  colnames(u) <- colnames(q)
  combined <- ppsynth_combine(q, u, level)
  out <- data.frame(term = colnames(q), combined, row.names = NULL,
                    stringsAsFactors = FALSE, check.names = FALSE)
  attr(out, "m") <- length(files)
  attr(out, "level") <- level
  out
}
