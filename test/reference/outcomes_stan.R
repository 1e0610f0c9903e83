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

summarise <- function(x) {
  # x: iterations x chains matrix of one quantity's post-warmup draws
  list(
    mean = mean(x),
    sd = sd(x),
    mcse_mean = posterior::mcse_mean(x),
    ess_bulk = posterior::ess_bulk(x),
    ess_tail = posterior::ess_tail(x),
    rhat = posterior::rhat(x),
    q05 = unname(quantile(x, 0.05)),
    q50 = unname(quantile(x, 0.5)),
    q95 = unname(quantile(x, 0.95))
  )
}

run <- function(file, stan_data, pars) {
  compile_started <- proc.time()[["elapsed"]]
  model <- stan_model(file)
  compile_seconds <- proc.time()[["elapsed"]] - compile_started
  started <- proc.time()[["elapsed"]]
  fit <- sampling(model,
    data = stan_data, chains = chains, warmup = warmup,
    iter = warmup + draws, seed = stan_seed, cores = cores, refresh = 0
  )
  seconds <- proc.time()[["elapsed"]] - started
  a <- as.array(fit) # iterations x chains x parameters
  names <- setdiff(dimnames(a)[[3]], "lp__")
  sampler <- get_sampler_params(fit, inc_warmup = FALSE)
  list(
    model = file,
    sampler = list(
      compile_seconds = compile_seconds,
      sampling_wall_seconds = seconds,
      divergences = sum(sapply(sampler, function(s) sum(s[, "divergent__"]))),
      treedepth_max_hits = sum(sapply(sampler, function(s) sum(s[, "treedepth__"] >= 10))),
      step_sizes = sapply(sampler, function(s) s[1, "stepsize__"]),
      mean_leapfrog_per_draw = mean(sapply(sampler, function(s) mean(s[, "n_leapfrog__"])))
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

out <- list(
  generated_by = "Rscript test/reference/outcomes_stan.R",
  date = format(Sys.time(), "%Y-%m-%d %H:%M:%S %Z"),
  r_version = R.version.string,
  rstan_version = as.character(packageVersion("rstan")),
  stan_version = stan_version(),
  posterior_version = as.character(packageVersion("posterior")),
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
  sampler = list(
    algorithm = "NUTS (diag_e), rstan::sampling defaults",
    chains = chains, warmup = warmup, draws_per_chain = draws, thin = 1,
    adapt_delta = 0.8, max_treedepth = 10, seed = stan_seed, cores = cores
  ),
  parameters = paste(
    "logistic: beta[k] (coefficients of X), sigma_beta[k];",
    "categorical: beta[k,l] coefficient k of level l+1 against level 1, sigma_beta[k,l];",
    "hurdle: gamma[k] (logit P(y > 0)), beta[k] (mean of log y given y > 0),",
    "sigma_gamma[k], sigma_beta[k], sigma"
  ),
  summaries = "mean, sd over all draws; mcse_mean, ess_bulk, ess_tail, rhat: posterior package",
  fits = list(logistic = logistic, categorical = categorical, hurdle = hurdle)
)
writeLines(
  toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE),
  "test/reference/outcomes_expected.json"
)
