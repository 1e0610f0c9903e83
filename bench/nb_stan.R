# Peer side of the negative binomial benchmark (bench/nb_vs_stan.ts): rstan fits the unweighted
# NB model of the vector-weighted paper (bench/nb.stan: the paper's program with the likelihood
# vectorised and no generated quantities, intercept only) to the y column of a CSV file and
# prints one JSON line.
#
#   Rscript bench/nb_stan.R <data.csv> [seed]
#
# 4 chains x 1000 draws after 1000 warmup, cores = 2, rstan's default NUTS settings. Timings:
#   compileSeconds   wall time of stan_model() (a fresh compile: no auto_write cache)
#   samplingSeconds  wall time of sampling() (warmup + draws, all chains, cores = 2)
#   elapsedWarmupSeconds, elapsedSamplingSeconds  Stan's own per-chain times, summed over chains
#   totalSeconds     wall time from the start of this script (after R and the packages loaded)
# gradientEvaluations is the sum of n_leapfrog__ over every iteration of every chain, warmup
# included. ESS and R-hat come from the posterior package, the algorithms of
# src/mcmc/diagnostics.ts.
suppressPackageStartupMessages({
  library(rstan)
  library(posterior)
  library(jsonlite)
})
source("test/reference/_common.R")
script_started <- proc.time()[["elapsed"]]

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1 || length(args) > 2) {
  stop("usage: Rscript bench/nb_stan.R <data.csv> [seed]")
}
csv <- args[[1]]
seed <- if (length(args) == 2) as.integer(args[[2]]) else 1L
chains <- 4
warmup <- 1000
draws <- 1000
cores <- 2

data <- read.csv(csv)
if (!("y" %in% names(data))) stop(sprintf("%s has no column y", csv))
n <- nrow(data)
stan_data <- list(n = n, K = 1L, y = as.integer(data$y), X = matrix(1, n, 1))

run <- compile_and_run("bench/nb.stan", stan_data, chains, warmup, draws, seed, cores,
  pars = c("beta", "sigma_beta", "phi")
)
fit <- run$fit

a <- as.array(fit)
params <- get_sampler_params(fit, inc_warmup = TRUE)
elapsed <- get_elapsed_time(fit)
rhats <- sapply(c("beta[1]", "sigma_beta[1]", "phi"), function(p) posterior::rhat(a[, , p]))

result <- list(
  tool = "rstan",
  n = n,
  seed = seed, chains = chains, warmup = warmup, draws = draws, cores = cores,
  compileSeconds = run$compile_seconds,
  samplingSeconds = run$sampling_seconds,
  elapsedWarmupSeconds = sum(elapsed[, "warmup"]),
  elapsedSamplingSeconds = sum(elapsed[, "sample"]),
  totalSeconds = proc.time()[["elapsed"]] - script_started,
  gradientEvaluations = sum(sapply(params, function(s) sum(s[, "n_leapfrog__"]))),
  divergences = sum(sapply(params, function(s) sum(s[-seq_len(warmup), "divergent__"]))),
  essBulkBeta = posterior::ess_bulk(a[, , "beta[1]"]),
  essBulkPhi = posterior::ess_bulk(a[, , "phi"]),
  rhatMax = max(rhats),
  meanBeta = mean(a[, , "beta[1]"]),
  meanSigmaBeta = mean(a[, , "sigma_beta[1]"]),
  meanPhi = mean(a[, , "phi"]),
  rstanVersion = as.character(packageVersion("rstan")),
  stanVersion = stan_version()
)
cat(toJSON(result, auto_unbox = TRUE, digits = NA), "\n", sep = "")
