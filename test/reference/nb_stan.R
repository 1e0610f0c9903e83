# Stan reference fit of the negative binomial model (issue: "fit the negative binomial model of
# the vector-weighted paper's Stan script with rstan on a recorded dataset drawn from the
# SPEC section 9.2 mixture, n = 1000, once unweighted and once with fixed alpha weights").
#
#   Rscript test/reference/nb_stan.R
#
# writes test/reference/nb_mixture_n1000.csv (columns y, alpha) and
# test/reference/nb_stan_expected.json (posterior summaries of beta, sigma_beta, phi for the
# unweighted and the alpha-weighted fit). The model is test/reference/nb_weighted.stan.
#
# Data: y_i ~ 0.2 NB(mu = 100, size = 5) + 0.8 NB(mu = 100, size = 20), n = 1000; fixed weights
# alpha_i = min(1, max(0.1, 1.3 - y_i / 200)), a deterministic function of y_i.
# Summaries: mean and sd over all post-warmup draws; mcse_mean, ess_bulk, ess_tail and rhat from
# the posterior package (the algorithms src/mcmc/diagnostics.ts implements); type-7 quantiles.
suppressPackageStartupMessages({
  library(rstan)
  library(posterior)
  library(jsonlite)
})
source("test/reference/_common.R")

data_seed <- 20240611
stan_seed <- 4711
chains <- 4
warmup <- 2000
draws <- 5000
cores <- 2

set.seed(data_seed)
n <- 1000
component <- rbinom(n, 1, 0.2)
y <- rnbinom(n, size = ifelse(component == 1, 5, 20), mu = 100)
alpha <- pmin(1, pmax(0.1, 1.3 - y / 200))
write.csv(data.frame(y = y, alpha = sprintf("%.17g", alpha)),
  "test/reference/nb_mixture_n1000.csv", row.names = FALSE, quote = FALSE)

# Fit from the recorded file so that the fit sees exactly what the TypeScript tests read.
data <- read.csv("test/reference/nb_mixture_n1000.csv")

compiled <- timed(stan_model("test/reference/nb_weighted.stan", model_name = "nb_weighted"))
model <- compiled$value

fit_one <- function(weights) {
  stan_data <- list(
    n = nrow(data), K = 1L, y = data$y, weights = weights,
    X = matrix(1, nrow(data), 1)
  )
  fit <- run_nuts(model, stan_data, chains, warmup, draws, stan_seed, cores,
    pars = c("beta", "sigma_beta", "phi")
  )
  a <- as.array(fit) # iterations x chains x parameters
  sampler <- get_sampler_params(fit, inc_warmup = FALSE)
  elapsed <- get_elapsed_time(fit)
  list(
    beta = summarise(a[, , "beta[1]"]),
    sigma_beta = summarise(a[, , "sigma_beta[1]"]),
    phi = summarise(a[, , "phi"]),
    sampler = c(sampler_totals(sampler), list(
      elapsed_warmup_seconds = sum(elapsed[, "warmup"]),
      elapsed_sampling_seconds = sum(elapsed[, "sample"])
    ))
  )
}

unweighted <- fit_one(rep(1, nrow(data)))
weighted <- fit_one(data$alpha)

out <- c(provenance("test/reference/nb_stan.R"), list(
  model = "test/reference/nb_weighted.stan",
  data = list(
    file = "test/reference/nb_mixture_n1000.csv",
    n = nrow(data), seed = data_seed,
    mixture = "0.2 NB(mu = 100, size = 5) + 0.8 NB(mu = 100, size = 20), rnbinom(mu =, size =)",
    alpha = "min(1, max(0.1, 1.3 - y / 200))",
    mean_y = mean(data$y),
    sum_alpha = sum(data$alpha)
  ),
  sampler = c(
    nuts_settings(chains, warmup, draws, stan_seed, cores),
    list(compile_seconds = compiled$seconds)
  ),
  parameters = paste(
    "beta = intercept on the log-mean scale; sigma_beta = prior scale of beta;",
    "phi = 1 / reciprocal_phi (NB2 dispersion: var = mu + mu^2 / phi)"
  ),
  summaries = "mean, sd over all draws; mcse_mean, ess_bulk, ess_tail, rhat: posterior package",
  fits = list(unweighted = unweighted, weighted = weighted)
))
write_expected(out, "test/reference/nb_stan_expected.json")
