# Reference values for src/mcmc/diagnostics.ts (rank-normalised split-Rhat, bulk/tail/mean ESS,
# MCSE of the mean; Vehtari, Gelman, Simpson, Carpenter & Buerkner 2021).
#
#   Rscript test/reference/diagnostics_reference.R
#
# writes test/reference/diagnostics_draws.csv (long format: set,chain,iteration,value) and
# test/reference/diagnostics_expected.json.
#
# The asserted reference is the `posterior` package (1.4.0): rhat(), ess_bulk(), ess_tail(),
# ess_mean(), mcse_mean(), whose rank normalisation is qnorm((r - 3/8) / (S + 1/4)) and whose
# autocovariance is the biased estimate sum_t yc_t yc_{t+k} / N. rstan 2.21.7's monitor
# functions (rstan::Rhat, rstan::ess_bulk, rstan::ess_tail) implement the earlier arXiv version
# of the same paper: rank normalisation qnorm((r - 1/2) / S) and an autocovariance scaled by
# M / N (M = next 2-3-5-smooth size >= N). Their values are recorded under "rstan" for
# comparison only; the TypeScript test asserts the posterior values.
suppressPackageStartupMessages({
  library(posterior)
  library(rstan)
  library(jsonlite)
})

set.seed(20240607)

ar1 <- function(n, rho, mean = 0, sd = 1) {
  # Stationary AR(1) with marginal N(mean, sd^2).
  x <- numeric(n)
  x[1] <- rnorm(1)
  for (t in 2:n) x[t] <- rho * x[t - 1] + sqrt(1 - rho^2) * rnorm(1)
  mean + sd * x
}

n_iter <- 500
n_chain <- 4
sets <- list(
  ar1_rho03 = sapply(1:n_chain, function(c) ar1(n_iter, 0.3)),
  ar1_rho095 = sapply(1:n_chain, function(c) ar1(n_iter, 0.95)),
  # negative autocorrelation: ESS above S, capped by tau >= 1/log10(S)
  ar1_antithetic = sapply(1:n_chain, function(c) ar1(n_iter, -0.8)),
  # chains centred at different means: bulk Rhat > 1
  shifted_means = sapply(c(0, 0, 0.4, 1), function(m) ar1(n_iter, 0.5, mean = m)),
  # one chain with a larger scale: the folded (tail) Rhat exceeds the bulk Rhat
  scale_mismatch = sapply(c(1, 1, 1, 2.5), function(s) ar1(n_iter, 0.2, sd = s)),
  heavy_t3 = matrix(rt(n_iter * n_chain, df = 3), n_iter, n_chain),
  # discrete draws with many ties: average ranks
  poisson_ties = matrix(rpois(n_iter * n_chain, 3), n_iter, n_chain),
  # odd chain length: the middle draw of each chain is dropped by the split
  odd_length = sapply(1:n_chain, function(c) ar1(335, 0.7))
)

rows <- do.call(rbind, lapply(names(sets), function(name) {
  x <- sets[[name]]
  data.frame(
    set = name,
    chain = rep(seq_len(ncol(x)), each = nrow(x)),
    iteration = rep(seq_len(nrow(x)), times = ncol(x)),
    value = sprintf("%.17g", as.vector(x))
  )
}))
write.csv(rows, "test/reference/diagnostics_draws.csv", row.names = FALSE, quote = FALSE)

# Re-read the values from the CSV text so that R and TypeScript use the same doubles.
back <- read.csv("test/reference/diagnostics_draws.csv")
expected <- lapply(names(sets), function(name) {
  sub <- back[back$set == name, ]
  x <- matrix(sub$value, ncol = max(sub$chain))
  list(
    rhat = posterior::rhat(x),
    ess_bulk = posterior::ess_bulk(x),
    ess_tail = posterior::ess_tail(x),
    ess_mean = posterior::ess_mean(x),
    mcse_mean = posterior::mcse_mean(x),
    q05 = unname(quantile(x, 0.05)),
    q95 = unname(quantile(x, 0.95)),
    median = median(x),
    rstan = list(
      rhat = rstan::Rhat(x),
      ess_bulk = rstan::ess_bulk(x),
      ess_tail = rstan::ess_tail(x)
    )
  )
})
names(expected) <- names(sets)

# Building blocks, for unit tests of the helpers: average ranks with ties and their normal
# scores, and the autocovariance of one sequence of a length that is not 2-3-5-smooth.
ties <- c(3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5)
acov_x <- back$value[back$set == "odd_length" & back$chain == 1][1:167]
helpers <- list(
  ties = ties,
  ties_z_scale = as.vector(posterior:::z_scale(ties)),
  acov_x_source = "first 167 draws of odd_length chain 1",
  acov = posterior:::autocovariance(acov_x)
)

out <- list(
  generated_by = "Rscript test/reference/diagnostics_reference.R",
  r_version = R.version.string,
  posterior_version = as.character(packageVersion("posterior")),
  rstan_version = as.character(packageVersion("rstan")),
  seed = 20240607,
  sets = expected,
  helpers = helpers
)
writeLines(
  toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE),
  "test/reference/diagnostics_expected.json"
)
