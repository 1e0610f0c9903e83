# What the rstan reference fits (test/reference/*_stan.R) and the rstan peer benchmarks
# (bench/*_stan.R) share: timing, rstan's default NUTS run, and the summaries they record.
# Sourced from the repository root (source("test/reference/_common.R")), or by a path relative
# to the sourcing script. Needs rstan loaded; summarise() needs the posterior package.

# Evaluates `expr`, timing it by the wall clock: list(value = its value, seconds =).
timed <- function(expr) {
  started <- proc.time()[["elapsed"]]
  value <- expr
  list(value = value, seconds = proc.time()[["elapsed"]] - started)
}

# rstan's NUTS with its default settings (adapt_delta 0.8, max_treedepth 10) and no progress
# output: `draws` per chain after `warmup`; `...` goes to sampling() (e.g. pars).
run_nuts <- function(model, data, chains, warmup, draws, seed, cores, ...) {
  sampling(model,
    data = data, chains = chains, warmup = warmup, iter = warmup + draws,
    seed = seed, cores = cores, refresh = 0, ...
  )
}

# Compiles the Stan program `file` (named for its file) and runs run_nuts() on it, each step
# timed by the wall clock: list(fit, compile_seconds, sampling_seconds).
compile_and_run <- function(file, data, chains, warmup, draws, seed, cores, ...) {
  compiled <- timed(stan_model(file, model_name = sub("[.]stan$", "", basename(file))))
  sampled <- timed(run_nuts(compiled$value, data, chains, warmup, draws, seed, cores, ...))
  list(fit = sampled$value, compile_seconds = compiled$seconds, sampling_seconds = sampled$seconds)
}

# The settings run_nuts() samples with, as the expected JSON files record them.
nuts_settings <- function(chains, warmup, draws, seed, cores) {
  list(
    algorithm = "NUTS (diag_e), rstan::sampling defaults",
    chains = chains, warmup = warmup, draws_per_chain = draws, thin = 1,
    adapt_delta = 0.8, max_treedepth = 10, seed = seed, cores = cores
  )
}

# Posterior summaries of one quantity; x: iterations x chains matrix of its post-warmup draws.
summarise <- function(x) {
  q <- function(p) unname(quantile(x, p)) # type 7
  list(
    mean = mean(x),
    sd = sd(x),
    mcse_mean = posterior::mcse_mean(x),
    ess_bulk = posterior::ess_bulk(x),
    ess_tail = posterior::ess_tail(x),
    rhat = posterior::rhat(x),
    q05 = q(0.05), q50 = q(0.5), q95 = q(0.95)
  )
}

# The sampler's health over post-warmup iterations; sampler: get_sampler_params() without warmup.
sampler_totals <- function(sampler) {
  list(
    divergences = sum(sapply(sampler, function(s) sum(s[, "divergent__"]))),
    treedepth_max_hits = sum(sapply(sampler, function(s) sum(s[, "treedepth__"] >= 10))),
    step_sizes = sapply(sampler, function(s) s[1, "stepsize__"]),
    mean_leapfrog_per_draw = mean(sapply(sampler, function(s) mean(s[, "n_leapfrog__"])))
  )
}

# The head of an expected JSON file: the command that wrote it, when, and the software versions.
provenance <- function(script) {
  list(
    generated_by = paste("Rscript", script),
    date = format(Sys.time(), "%Y-%m-%d %H:%M:%S %Z"),
    r_version = R.version.string,
    rstan_version = as.character(packageVersion("rstan")),
    stan_version = stan_version(),
    posterior_version = as.character(packageVersion("posterior"))
  )
}

# Writes `out` as the pretty-printed JSON of an expected file, every digit kept.
write_expected <- function(out, path) {
  writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE), path)
}
