# Peer side of bench:scale (issue 13, bench/scale_peer.ts): rstan fits the unweighted negative
# binomial model with covariates, test/reference/nb_covariates.stan with alpha = 1 (the paper's
# program, its LKJ correlation fixed at the identity: ppsynth's negbin posterior), to a CSV with
# an integer column y and numeric covariates (bench/scale.ts: y, z, b), and writes one JSON file.
#
#   Rscript bench/scale_stan.R <data.csv> <out.json> [chains] [warmup] [draws] [seed] [cores]
#
# Defaults: 4 chains x 1000 draws after 1000 warmup, seed 1, cores = min(chains, detectCores()),
# rstan's default NUTS settings (adapt_delta 0.8, max_treedepth 10). X is the intercept then every
# column but y in file order, so the coefficients are named as src/data/design.ts names them.
# Timings (seconds):
#   compileSeconds          wall time of stan_model() (a fresh compile: no auto_write cache)
#   chainSecondsSum         Stan's get_elapsed_time(), warmup + sample, summed over chains. Stan
#                           2.21 times each chain with clock(), the CPU time of the process
#                           running it: other load on the machine moves it far less than the
#                           wall time (+8% against +41% in one run at n = 10^4)
#   samplingSeconds         chainSecondsSum / min(cores, chains): the wall time of the sampling
#                           on `cores` dedicated cores with the chains evenly spread and no
#                           process overhead (what essPerSecond divides by)
#   samplingWallSeconds     measured wall time of sampling(): all chains, `cores` at a time,
#                           rstan's worker start-up and the transfer of the draws included
#   totalSeconds            wall time from the start of this script (after R and the packages
#                           loaded)
# gradientEvaluations is the sum of n_leapfrog__ over every iteration of every chain, warmup
# included. ESS and R-hat come from the posterior package, the algorithms of
# src/mcmc/diagnostics.ts; essPerSecond = essBulkMin / samplingSeconds.
suppressPackageStartupMessages({
  library(rstan)
  library(posterior)
  library(jsonlite)
})
script_started <- proc.time()[["elapsed"]]

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2 || length(args) > 7) {
  stop(paste(
    "usage: Rscript bench/scale_stan.R <data.csv> <out.json>",
    "[chains] [warmup] [draws] [seed] [cores]"
  ))
}
argument <- function(i, default) if (length(args) >= i) as.integer(args[[i]]) else default
csv <- args[[1]]
out_json <- args[[2]]
chains <- argument(3, 4L)
warmup <- argument(4, 1000L)
draws <- argument(5, 1000L)
seed <- argument(6, 1L)
cores <- argument(7, min(chains, parallel::detectCores()))

# The Stan program, found from this script's own path so that any working directory works.
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[[1]])
stan_file <- file.path(dirname(script), "..", "test", "reference", "nb_covariates.stan")
source(file.path(dirname(script), "..", "test", "reference", "_common.R"))

data <- read.csv(csv)
if (!("y" %in% names(data))) stop(sprintf("%s has no column y", csv))
covariates <- setdiff(names(data), "y")
coefficients <- c("intercept", covariates)
n <- nrow(data)
X <- cbind(1, as.matrix(data[, covariates, drop = FALSE]))
K <- ncol(X)
stan_data <- list(n = n, K = K, y = as.integer(data$y), alpha = rep(1, n), X = X)

run <- compile_and_run(stan_file, stan_data, chains, warmup, draws, seed, cores,
  pars = c("beta", "sigma_beta", "phi")
)
fit <- run$fit

a <- as.array(fit)
params <- get_sampler_params(fit, inc_warmup = TRUE)
elapsed <- get_elapsed_time(fit)
chain_seconds <- sum(elapsed[, "warmup"]) + sum(elapsed[, "sample"])
sampling_seconds <- chain_seconds / min(cores, chains)

# Stan's names -> ppsynth's (src/models/_glm.ts: coefficients, sigma_beta_<coefficient>, phi).
stan_names <- c(sprintf("beta[%d]", seq_len(K)), sprintf("sigma_beta[%d]", seq_len(K)), "phi")
our_names <- c(coefficients, paste0("sigma_beta_", coefficients), "phi")
ess_bulk <- setNames(sapply(stan_names, function(p) posterior::ess_bulk(a[, , p])), our_names)
rhat <- setNames(sapply(stan_names, function(p) posterior::rhat(a[, , p])), our_names)
means <- setNames(sapply(stan_names, function(p) mean(a[, , p])), our_names)
gradients <- tryCatch(
  sum(sapply(params, function(s) sum(s[, "n_leapfrog__"]))),
  error = function(e) NULL
)

result <- list(
  tool = "rstan",
  model = "test/reference/nb_covariates.stan (alpha = 1)",
  n = n,
  coefficients = coefficients,
  seed = seed, chains = chains, warmup = warmup, draws = draws, cores = cores,
  compileSeconds = run$compile_seconds,
  chainSecondsSum = chain_seconds,
  samplingSeconds = sampling_seconds,
  samplingWallSeconds = run$sampling_seconds,
  elapsedWarmupSeconds = sum(elapsed[, "warmup"]),
  elapsedSamplingSeconds = sum(elapsed[, "sample"]),
  totalSeconds = proc.time()[["elapsed"]] - script_started,
  gradientEvaluations = gradients,
  leapfrogPerIteration = if (is.null(gradients)) NULL else gradients / (chains * (warmup + draws)),
  divergences = sum(sapply(params, function(s) sum(s[-seq_len(warmup), "divergent__"]))),
  treedepthHits = sum(sapply(params, function(s) sum(s[-seq_len(warmup), "treedepth__"] >= 10))),
  essBulk = as.list(ess_bulk),
  essBulkMin = min(ess_bulk),
  essPerSecond = min(ess_bulk) / sampling_seconds,
  rhatMax = max(rhat),
  means = as.list(means),
  rstanVersion = as.character(packageVersion("rstan")),
  stanVersion = stan_version()
)
writeLines(toJSON(result, auto_unbox = TRUE, digits = NA, pretty = TRUE, null = "null"), out_json)
