# Reference values for src/stats/psis.ts (Pareto smoothed importance sampling; Vehtari, Simpson,
# Gelman, Yao & Gabry 2024) from the R package loo (2.5.1, Debian's r-cran-loo 2.5.1-1).
#
#   Rscript test/reference/psis_reference.R
#
# writes test/reference/psis_expected.json: per set the input log ratios, loo::psis(r_eff = 1)'s
# pareto_k, tail_len and n_eff, and the normalised log weights (weights(fit), log = TRUE,
# normalize = TRUE) in input order, plus the sum of squared normalised weights and the 10 largest
# normalised log weights. Inputs and weights are written with sprintf("%.17g") (jsonlite stops at
# 15 significant digits), so R and TypeScript read identical doubles.
#
# Sets (seed 20240613). theta ~ N(0, 1) is the proposal; the log ratio to a target N(0, v) is
# log N(theta | 0, v) - log N(theta | 0, 1) = theta^2 (1 - 1/v) / 2 - log(v) / 2, whose ratio has a
# Pareto tail with k = 1 - 1/v for v > 1 (P(w > t) ~ t^(-1/(1 - 1/v))) and, for v < 1, a bounded
# ratio with k = -1/2 near its maximum at theta = 0.
suppressPackageStartupMessages({
  library(loo)
  library(jsonlite)
})

set.seed(20240613)

normal_log_ratios <- function(S, v) {
  theta <- rnorm(S)
  theta^2 * (1 - 1 / v) / 2 - log(v) / 2
}

sets <- list(
  # v = 1.5: k = 1/3
  wider_s1000 = list(log_ratios = normal_log_ratios(1000, 1.5), true_k = 1 / 3),
  wider_s4000 = list(log_ratios = normal_log_ratios(4000, 1.5), true_k = 1 / 3),
  # v = 5: k = 0.8 > 0.7; the smoothed tail exceeds the largest raw ratio and is truncated
  heavy_s4000 = list(log_ratios = normal_log_ratios(4000, 5), true_k = 0.8),
  # v = 0.5: bounded ratios, k = -1/2
  light_s1000 = list(log_ratios = normal_log_ratios(1000, 0.5), true_k = -0.5),
  # a loo-like offset: log ratios near -1234 (PSIS is shift invariant)
  shifted_s1000 = list(log_ratios = normal_log_ratios(1000, 2) - 1234.5, true_k = 0.5),
  # S = 100: tail length 20 = 0.2 S (the 20% cap binds for S < 225)
  small_s100 = list(log_ratios = normal_log_ratios(100, 1.5), true_k = 1 / 3),
  # S = 20: tail length 4 < 5, no smoothing, k = Inf (loo warns)
  tiny_s20 = list(log_ratios = normal_log_ratios(20, 1.5), true_k = 1 / 3),
  # ties, including across the cutoff: the ratios rounded to 1 decimal
  rounded_s1000 = list(log_ratios = round(normal_log_ratios(1000, 3), 1), true_k = 2 / 3),
  # constant: "all tail values are the same", k = Inf (loo warns), equal weights
  constant_s1000 = list(log_ratios = rep(-2.5, 1000), true_k = NA)
)

num17 <- function(x) sprintf("%.17g", x)
json_array <- function(x) structure(paste0("[", paste(num17(x), collapse = ","), "]"), class = "json")
json_number <- function(x) {
  if (is.na(x)) return(structure("null", class = "json"))
  if (is.infinite(x)) return(structure(if (x > 0) '"Inf"' else '"-Inf"', class = "json"))
  structure(num17(x), class = "json")
}

warnings_seen <- list()
out <- lapply(names(sets), function(name) {
  lr <- sets[[name]]$log_ratios
  msgs <- character(0)
  fit <- withCallingHandlers(
    psis(lr, r_eff = 1),
    warning = function(w) {
      msgs <<- c(msgs, conditionMessage(w))
      invokeRestart("muffleWarning")
    }
  )
  lw <- as.vector(weights(fit, log = TRUE, normalize = TRUE))
  k <- fit$diagnostics$pareto_k
  cat(sprintf(
    "%-15s S = %4d  tail_len = %3d  pareto_k = %.10g  n_eff = %.6f  (true k %s)%s\n",
    name, length(lr), attr(fit, "tail_len"), k, fit$diagnostics$n_eff,
    format(sets[[name]]$true_k, digits = 4),
    if (length(msgs)) paste0("  [warning: ", paste(msgs, collapse = " | "), "]") else ""
  ))
  list(
    S = length(lr),
    true_k = json_number(sets[[name]]$true_k),
    pareto_k = json_number(k),
    tail_len = attr(fit, "tail_len"),
    n_eff = json_number(fit$diagnostics$n_eff),
    sum_w2 = json_number(sum(exp(2 * lw))),
    top10_log_weights = json_array(sort(lw, decreasing = TRUE)[1:10]),
    warnings = msgs,
    log_ratios = json_array(lr),
    log_weights = json_array(lw)
  )
})
names(out) <- names(sets)

json <- toJSON(
  list(
    source = "loo::psis(log_ratios, r_eff = 1); weights(fit, log = TRUE, normalize = TRUE)",
    versions = list(
      R = R.version.string,
      loo = as.character(packageVersion("loo")),
      matrixStats = as.character(packageVersion("matrixStats")),
      jsonlite = as.character(packageVersion("jsonlite"))
    ),
    seed = 20240613,
    sets = out
  ),
  auto_unbox = TRUE, json_verbatim = TRUE, pretty = FALSE
)
writeLines(json, "test/reference/psis_expected.json")
