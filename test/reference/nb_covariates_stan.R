# Stan reference fit of the weighted negative binomial model with covariates (issue 13: "a
# recorded rstan reference for the weighted NB model with covariates").
#
#   Rscript test/reference/nb_covariates_stan.R
#
# writes test/reference/nb_covariates_n2000.csv (columns y, z, b, alpha) and
# test/reference/nb_covariates_expected.json (posterior summaries of beta[1..3], sigma_beta[1..3]
# and phi of the alpha-weighted fit). The model is test/reference/nb_covariates.stan, whose
# posterior is ppsynth's `negbin` model with y ~ z + b (the coefficients intercept, z, b).
#
# Data, like bench/scale.ts's generator (drawn here with R's own generator): z ~ N(0, 1),
# b ~ Bernoulli(0.4), phi = 5 with probability 0.2 else 20,
# y ~ NB(mu = exp(4.6 + 0.3 z - 0.4 b), size = phi), n = 2000; fixed weights
# alpha_i = min(1, max(0.1, 1.3 - y_i / 200)), a deterministic function of y_i (as nb_stan.R).
# Summaries: mean and sd over all post-warmup draws; mcse_mean, ess_bulk, ess_tail and rhat from
# the posterior package (the algorithms src/mcmc/diagnostics.ts implements); type-7 quantiles.
suppressPackageStartupMessages({
  library(rstan)
  library(posterior)
  library(jsonlite)
})
source("test/reference/_common.R")

data_seed <- 20240613
stan_seed <- 4712
chains <- 4
warmup <- 2000
draws <- 5000
cores <- 2

set.seed(data_seed)
n <- 2000
z <- rnorm(n)
b <- rbinom(n, 1, 0.4)
size <- ifelse(runif(n) < 0.2, 5, 20)
y <- rnbinom(n, size = size, mu = exp(4.6 + 0.3 * z - 0.4 * b))
alpha <- pmin(1, pmax(0.1, 1.3 - y / 200))
write.csv(
  data.frame(y = y, z = sprintf("%.17g", z), b = b, alpha = sprintf("%.17g", alpha)),
  "test/reference/nb_covariates_n2000.csv",
  row.names = FALSE, quote = FALSE
)

# Fit from the recorded file so that the fit sees exactly what the TypeScript test reads.
data <- read.csv("test/reference/nb_covariates_n2000.csv")
coefficients <- c("intercept", "z", "b")
X <- cbind(1, data$z, data$b)


stan_data <- list(n = nrow(data), K = 3L, y = data$y, alpha = data$alpha, X = X)
run <- compile_and_run("test/reference/nb_covariates.stan", stan_data,
  chains, warmup, draws, stan_seed, cores,
  pars = c("beta", "sigma_beta", "phi")
)
fit <- run$fit
a <- as.array(fit) # iterations x chains x parameters
names <- c(sprintf("beta[%d]", 1:3), sprintf("sigma_beta[%d]", 1:3), "phi")
summaries <- setNames(lapply(names, function(p) summarise(a[, , p])), names)
sampler <- get_sampler_params(fit, inc_warmup = FALSE)
elapsed <- get_elapsed_time(fit)

out <- c(provenance("test/reference/nb_covariates_stan.R"), list(
  model = "test/reference/nb_covariates.stan",
  data = list(
    file = "test/reference/nb_covariates_n2000.csv",
    n = nrow(data), seed = data_seed,
    generator = paste(
      "z ~ N(0, 1), b ~ Bernoulli(0.4), phi = 5 w.p. 0.2 else 20,",
      "y ~ NB(mu = exp(4.6 + 0.3 z - 0.4 b), size = phi) via rnbinom(mu =, size =)"
    ),
    alpha = "min(1, max(0.1, 1.3 - y / 200))",
    mean_y = mean(data$y),
    sum_alpha = sum(data$alpha)
  ),
  coefficients = coefficients,
  sampler = c(
    nuts_settings(chains, warmup, draws, stan_seed, cores),
    list(
      compile_seconds = run$compile_seconds,
      sampling_wall_seconds = run$sampling_seconds,
      elapsed_warmup_seconds = sum(elapsed[, "warmup"]),
      elapsed_sampling_seconds = sum(elapsed[, "sample"])
    ),
    sampler_totals(sampler)
  ),
  parameters = paste(
    "beta[1..3] = coefficients of (intercept, z, b) on the log-mean scale;",
    "sigma_beta[1..3] = their prior scales; phi = 1 / reciprocal_phi",
    "(NB2 dispersion: var = mu + mu^2 / phi)"
  ),
  summaries = "mean, sd over all draws; mcse_mean, ess_bulk, ess_tail, rhat: posterior package",
  fit = summaries
))
write_expected(out, "test/reference/nb_covariates_expected.json")
