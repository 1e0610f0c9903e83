# rstan reference fit of issue 23's "peer side by side": ppsynth's default logistic model (the
# `student-t` coefficient prior) on a real public-use file, n = 28,155.
#
#   Rscript test/reference/cps1988_stan.R
#
# reads examples/cps1988.csv (the March 1988 CPS of R's AER package, exported by
# test/reference/cps1988_export.R), fits test/reference/logistic_student_t.stan to
#   parttime (no = 0, yes = 1) ~ education + experience + ethnicity + smsa
# unweighted, and writes test/reference/cps1988_expected.json: each coefficient's posterior
# mean, sd, MCSE of the mean, bulk and tail ESS, R-hat, type-7 quantiles, and the sampler's wall
# time, ESS per second, divergences and leapfrog steps per iteration.
#
# The design is src/data/design.ts's with the text covariates' levels declared as the ppsynth
# test declares them (covariateLevels: ethnicity ["cauc", "afam"], smsa ["no", "yes"]; the first
# level is the reference): X = (1, education, experience, [ethnicity = afam], [smsa = yes]),
# education and experience on their raw scales (years). The outcome's levels are ["no", "yes"].
# Prior: beta_k ~ Student-t(3, 0, 2.5) for all five coefficients (the logit intercept's scale and
# the covariates' scale of src/models/glm_prior.ts are both 2.5).
#
# Diagnostics are rstan 2.21.7's own (`posterior` is not installed here): ess_bulk, ess_tail,
# Rhat (Vehtari et al., the arXiv 2019 version; see README.md for how they differ from
# posterior's, by < 0.1% on chains like these), and monitor()'s se_mean (sd / sqrt(ESS), ESS
# without rank normalisation) as mcse_mean.
suppressPackageStartupMessages({
  library(rstan)
  library(jsonlite)
})
source("test/reference/_common.R")

stan_seed <- 4714
chains <- 4
warmup <- 1000
draws <- 1000
cores <- 2

data <- read.csv("examples/cps1988.csv", stringsAsFactors = FALSE)
n <- nrow(data)
y <- as.integer(data$parttime == "yes")
stopifnot(all(data$parttime %in% c("no", "yes")))
stopifnot(all(data$ethnicity %in% c("cauc", "afam")), all(data$smsa %in% c("no", "yes")))
X <- cbind(
  1, data$education, data$experience,
  as.numeric(data$ethnicity == "afam"), as.numeric(data$smsa == "yes")
)
coefficients <- c("intercept", "education", "experience", "ethnicity=afam", "smsa=yes")
K <- ncol(X)

summarise_rstan <- function(x, mcse, seconds) {
  # x: iterations x chains matrix of one coefficient's post-warmup draws
  ess_bulk <- rstan::ess_bulk(x)
  list(
    mean = mean(x),
    sd = sd(x),
    mcse_mean = mcse,
    ess_bulk = ess_bulk,
    ess_tail = rstan::ess_tail(x),
    rhat = rstan::Rhat(x),
    ess_bulk_per_second = ess_bulk / seconds,
    q05 = unname(quantile(x, 0.05)),
    q50 = unname(quantile(x, 0.5)),
    q95 = unname(quantile(x, 0.95))
  )
}

file <- "test/reference/logistic_student_t.stan"
run <- compile_and_run(
  file, list(n = n, K = K, y = y, X = X), chains, warmup, draws, stan_seed, cores
)
fit <- run$fit
seconds <- run$sampling_seconds
a <- as.array(fit, pars = "beta") # iterations x chains x K
mon <- monitor(a, warmup = 0, print = FALSE)
sampler <- get_sampler_params(fit, inc_warmup = TRUE)
post <- lapply(sampler, function(s) s[-seq_len(warmup), , drop = FALSE])
elapsed <- get_elapsed_time(fit)
betas <- lapply(seq_len(K), function(k) {
  summarise_rstan(a[, , k], mon[k, "se_mean"], seconds)
})
names(betas) <- sprintf("beta[%d]", seq_len(K))
ess <- sapply(betas, function(b) b$ess_bulk)

out <- list(
  generated_by = "Rscript test/reference/cps1988_stan.R",
  date = format(Sys.time(), "%Y-%m-%d %H:%M:%S %Z"),
  machine = list(
    cpu = sub("^Model name:\\s*", "", grep("^Model name",
      system("lscpu", intern = TRUE),
      value = TRUE
    )[1]),
    cores = parallel::detectCores()
  ),
  r_version = R.version.string,
  rstan_version = as.character(packageVersion("rstan")),
  stan_version = stan_version(),
  model = file,
  data = list(
    file = "examples/cps1988.csv",
    n = n,
    outcome = "parttime",
    outcome_levels = c("no", "yes"),
    covariates = c("education", "experience", "ethnicity", "smsa"),
    covariate_levels = list(ethnicity = c("cauc", "afam"), smsa = c("no", "yes")),
    mean_y = mean(y)
  ),
  coefficients = coefficients,
  prior = "beta[k] ~ student_t(3, 0, 2.5) for every k (intercept included)",
  sampler = c(nuts_settings(chains, warmup, draws, stan_seed, cores), list(
    compile_seconds = run$compile_seconds,
    sampling_wall_seconds = seconds,
    chain_seconds = list(warmup = unname(elapsed[, "warmup"]), sample = unname(elapsed[, "sample"]))
  ), sampler_totals(post), list(
    mean_leapfrog_per_warmup_iteration = mean(sapply(sampler, function(s) {
      mean(s[seq_len(warmup), "n_leapfrog__"])
    })),
    gradient_evaluations = sum(sapply(sampler, function(s) sum(s[, "n_leapfrog__"]))),
    ess_bulk_per_second_min = min(ess) / seconds,
    ess_bulk_per_second_median = median(ess) / seconds
  )),
  summaries = paste(
    "mean, sd over all draws; ess_bulk, ess_tail, rhat: rstan 2.21.7;",
    "mcse_mean: rstan::monitor's se_mean; per second: over sampling_wall_seconds",
    "(4 chains on `cores` processes, compilation excluded)"
  ),
  fit = betas
)
write_expected(out, "test/reference/cps1988_expected.json")
cat(sprintf("sampling %.1f s, divergences %d\n", seconds, out$sampler$divergences))
