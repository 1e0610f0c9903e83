# Stan reference fits of the three outcome models of issue 15 ("several confidential variables of
# mixed types"): logistic (binary), categorical (multinomial logit) and hurdle (lognormal amounts
# with exact zeros), each alpha-weighted, with one numeric and one categorical covariate.
#
#   Rscript test/reference/outcomes_stan.R
#
# writes test/reference/outcomes_n800.csv (columns z, g, yb, yc, yh, alpha) and
# test/reference/outcomes_expected.json (posterior summaries of every parameter of the
# three fits). The models are test/reference/{logistic,categorical,hurdle}.stan, whose posteriors
# are ppsynth's `logistic`, `categorical` and `hurdle` models with y ~ z + g.
#
# Data (seed 20240615, n = 800): z ~ N(0, 1); g in {a, b, c} with probabilities 0.4, 0.3, 0.3.
# With d_b = [g = b] and d_c = [g = c]:
#   yb ~ Bernoulli(inv_logit(-1.2 + 1.0 z + 2.0 d_b + 2.4 d_c)), written 0/1;
#   yc in {bus, car, walk}: eta_bus = 0, eta_car = -1.0 + 1.5 z + 2.0 d_b + 1.5 d_c,
#      eta_walk = -1.2 - 1.5 z + 1.5 d_b + 2.0 d_c;
#   yh = 0 with probability 1 - inv_logit(1.0 + 1.0 z - 1.5 d_b + 2.0 d_c), otherwise
#      exp(N(3 + 0.4 z + 0.5 d_b - 0.5 d_c, 0.6^2));
#   fixed weights alpha = min(1, max(0.2, 1.15 - 0.35 |z|)) shared by the three fits.
# The first row with g = a and yc = bus is moved to the top, so that ppsynth's coding (levels in
# order of appearance, src/data/design.ts) makes a and bus the reference levels: X = (1, z, d_b,
# d_c) in the order b, c appear. Every coefficient is at least 5 standard errors from 0 (weighted
# MLE): the coefficient prior beta ~ N(0, sigma_beta^2) with one scale per coefficient is a funnel
# where a coefficient's posterior reaches 0, which costs both samplers divergences (a first
# draft of this script, with effects near 0 at n = 400, had 700 to 1300 in rstan).
# Summaries: mean and sd over all post-warmup draws; mcse_mean, ess_bulk, ess_tail and rhat from
# the posterior package; type-7 quantiles.
suppressPackageStartupMessages({
  library(rstan)
  library(posterior)
  library(jsonlite)
})
source("test/reference/_common.R")

data_seed <- 20240615
stan_seed <- 4713
chains <- 4
warmup <- 1000
draws <- 5000
cores <- 2

set.seed(data_seed)
n <- 800
z <- rnorm(n)
g <- sample(c("a", "b", "c"), n, replace = TRUE, prob = c(0.4, 0.3, 0.3))
d_b <- as.numeric(g == "b")
d_c <- as.numeric(g == "c")
yb <- rbinom(n, 1, plogis(-1.2 + 1.0 * z + 2.0 * d_b + 2.4 * d_c))
eta_car <- -1.0 + 1.5 * z + 2.0 * d_b + 1.5 * d_c
eta_walk <- -1.2 - 1.5 * z + 1.5 * d_b + 2.0 * d_c
p <- cbind(1, exp(eta_car), exp(eta_walk))
p <- p / rowSums(p)
yc <- c("bus", "car", "walk")[apply(p, 1, function(pi) sample.int(3, 1, prob = pi))]
positive <- rbinom(n, 1, plogis(1.0 + 1.0 * z - 1.5 * d_b + 2.0 * d_c))
yh <- ifelse(positive == 1, exp(rnorm(n, 3 + 0.4 * z + 0.5 * d_b - 0.5 * d_c, 0.6)), 0)
alpha <- pmin(1, pmax(0.2, 1.15 - 0.35 * abs(z)))
first <- which(g == "a" & yc == "bus")[1]
order <- c(first, setdiff(seq_len(n), first))
write.csv(
  data.frame(
    z = sprintf("%.17g", z), g = g, yb = yb, yc = yc, yh = sprintf("%.17g", yh),
    alpha = sprintf("%.17g", alpha)
  )[order, ],
  "test/reference/outcomes_n800.csv",
  row.names = FALSE, quote = FALSE
)

# Fit from the recorded file so that the fits see exactly what the TypeScript test reads.
data <- read.csv("test/reference/outcomes_n800.csv", stringsAsFactors = FALSE)
g_levels <- unique(data$g) # order of appearance, as src/data/design.ts
X <- cbind(1, data$z, data$g == g_levels[2], data$g == g_levels[3])
coefficients <- c("intercept", "z", paste0("g=", g_levels[2:3]))
K <- ncol(X)
yc_levels <- unique(data$yc)

run <- function(file, stan_data) {
  run <- compile_and_run(file, stan_data, chains, warmup, draws, stan_seed, cores)
  fit <- run$fit
  a <- as.array(fit) # iterations x chains x parameters
  names <- setdiff(dimnames(a)[[3]], "lp__")
  sampler <- get_sampler_params(fit, inc_warmup = FALSE)
  list(
    model = file,
    sampler = c(
      list(compile_seconds = run$compile_seconds, sampling_wall_seconds = run$sampling_seconds),
      sampler_totals(sampler)
    ),
    fit = setNames(lapply(names, function(p) summarise(a[, , p])), names)
  )
}

logistic <- run(
  "test/reference/logistic.stan",
  list(n = n, K = K, y = data$yb, alpha = data$alpha, X = X)
)
categorical <- run(
  "test/reference/categorical.stan",
  list(n = n, K = K, L = 3L, y = match(data$yc, yc_levels), alpha = data$alpha, X = X)
)
hurdle <- run(
  "test/reference/hurdle.stan",
  list(n = n, K = K, y = data$yh, alpha = data$alpha, X = X)
)

out <- c(provenance("test/reference/outcomes_stan.R"), list(
  data = list(
    file = "test/reference/outcomes_n800.csv",
    n = n,
    seed = data_seed,
    alpha = "min(1, max(0.2, 1.15 - 0.35 |z|))",
    sum_alpha = sum(data$alpha),
    mean_yb = mean(data$yb),
    yc_counts = as.list(table(factor(data$yc, levels = yc_levels))),
    zeros_yh = sum(data$yh == 0)
  ),
  coefficients = coefficients,
  yc_levels = yc_levels,
  sampler = nuts_settings(chains, warmup, draws, stan_seed, cores),
  parameters = paste(
    "logistic: beta[k] (coefficients of X), sigma_beta[k];",
    "categorical: beta[k,l] coefficient k of level l+1 against level 1, sigma_beta[k,l];",
    "hurdle: gamma[k] (logit P(y > 0)), beta[k] (mean of log y given y > 0),",
    "sigma_gamma[k], sigma_beta[k], sigma"
  ),
  summaries = "mean, sd over all draws; mcse_mean, ess_bulk, ess_tail, rhat: posterior package",
  fits = list(logistic = logistic, categorical = categorical, hurdle = hurdle)
))
write_expected(out, "test/reference/outcomes_expected.json")
