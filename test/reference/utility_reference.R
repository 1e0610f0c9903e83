# Reference values for src/stats/glm_fit.ts and src/synthesis/utility_report.ts, from R's lm and
# glm. Run from the repository root:
#   Rscript test/reference/utility_reference.R
# Writes test/reference/utility_reference_data.csv (a seeded confidential dataset, dataset = 0,
# and m = 2 "synthetic" versions of it, dataset = 1, 2: the public x1 and region kept, A, B and D
# redrawn from a perturbed model) and test/reference/utility_reference_expected.json:
# - lm(A ~ x1 + region + B) and glm(D ~ x1 + A + B, binomial) on the confidential data:
#   coefficients, standard errors (summary()), sigma, deviance, fitted values;
# - the propensity-score pMSE (Snoke et al. 2018) of each synthetic dataset: glm(t ~ x1 + region
#   + A + B + D, binomial) on the confidential (t = 0) and synthetic (t = 1) records stacked;
# - the CI overlap and standardised coefficient differences (Karr et al. 2006) of the utility
#   models A ~ x1 + B (lm; the confidential interval confint()'s t interval) and
#   D ~ x1 + region (glm; the Wald interval of confint.default() with the standard errors of the
#   inverse Fisher information at the estimate), the synthetic fits combined by the
#   partial-synthesis rules (Reiter 2003): q̄, b, ū, T = b/m + ū, ν = (m − 1)(1 + ū/(b/m))².
library(jsonlite)

set.seed(20240615)
n <- 80
region_levels <- c("N", "S", "E")
b_levels <- c("a", "b", "c")
d_levels <- c("no", "yes")

draw <- function(x1, region, shift) {
  r <- match(region, region_levels)
  A <- 2 + (0.5 + shift) * x1 + c(0, 0.8, -0.6)[r] + rnorm(length(x1), sd = 1 + shift)
  eta_b <- cbind(0, 0.7 * x1 + shift, -0.5 + 0.4 * A - shift)
  pb <- exp(eta_b) / rowSums(exp(eta_b))
  B <- apply(pb, 1, function(p) sample(b_levels, 1, prob = p))
  pd <- plogis(-1 + 0.9 * x1 + 0.3 * A + c(0, 0.5, -0.4)[match(B, b_levels)] + shift)
  D <- ifelse(runif(length(x1)) < pd, "yes", "no")
  data.frame(A = A, B = B, D = D, stringsAsFactors = FALSE)
}

x1 <- rnorm(n)
region <- sample(region_levels, n, replace = TRUE, prob = c(0.5, 0.3, 0.2))
confidential <- data.frame(dataset = 0, x1 = x1, region = region, draw(x1, region, 0))
synthetic <- lapply(1:2, function(l) {
  data.frame(dataset = l, x1 = x1, region = region, draw(x1, region, 0.15 * l))
})
all <- do.call(rbind, c(list(confidential), synthetic))

out <- all
out$x1 <- sprintf("%.17g", out$x1)
out$A <- sprintf("%.17g", out$A)
write.csv(out, "test/reference/utility_reference_data.csv", row.names = FALSE, quote = FALSE)
# Read back what the tests read, so R and TypeScript hold the same doubles.
all <- read.csv("test/reference/utility_reference_data.csv", stringsAsFactors = FALSE)
as_factors <- function(d) {
  d$region <- factor(d$region, levels = region_levels)
  d$B <- factor(d$B, levels = b_levels)
  d$D <- factor(d$D, levels = d_levels)
  d
}
all <- as_factors(all)
conf <- all[all$dataset == 0, ]
syn <- lapply(1:2, function(l) all[all$dataset == l, ])

control <- glm.control(epsilon = 1e-13, maxit = 100)
ols <- lm(A ~ x1 + region + B, data = conf)
logit <- glm(D ~ x1 + A + B, family = binomial, data = conf, control = control)
fit_summary <- function(fit) {
  s <- summary(fit)$coefficients
  list(
    names = rownames(s),
    coefficients = unname(s[, 1]),
    standardErrors = unname(s[, 2]),
    fitted = unname(fitted(fit)),
    deviance = deviance(fit)
  )
}
ols_out <- c(fit_summary(ols), list(sigma = summary(ols)$sigma))
# summary.glm's standard errors use the weights of the last IRLS iteration's start (the fit one
# step before the estimate, about 1e-7 away at this epsilon); the inverse Fisher information
# (XᵀWX)⁻¹ at the estimate itself is the definition glm_fit.ts computes.
X <- model.matrix(logit)
p_hat <- fitted(logit)
information_se <- sqrt(diag(solve(t(X) %*% (X * (p_hat * (1 - p_hat))))))
logit_out <- c(fit_summary(logit), list(informationStandardErrors = unname(information_se)))

pmse <- lapply(syn, function(s) {
  stacked <- rbind(cbind(conf, t = 0), cbind(s, t = 1))
  fit <- glm(t ~ x1 + region + A + B + D, family = binomial, data = stacked, control = control)
  p <- fitted(fit)
  N <- nrow(stacked)
  c <- nrow(s) / N
  k <- sum(!is.na(coef(fit)))
  value <- mean((p - c)^2)
  expected <- (k - 1) * (1 - c)^2 * c / N
  list(pMSE = value, k = k, N = N, c = c, expected = expected, ratio = value / expected)
})

combine <- function(q, u, level = 0.95) {
  m <- length(q)
  qbar <- mean(q)
  b <- if (m > 1) var(q) else 0
  ubar <- mean(u)
  T <- b / m + ubar
  df <- if (b > 0) (m - 1) * (1 + ubar / (b / m))^2 else Inf
  half <- (if (is.finite(df)) qt((1 + level) / 2, df) else qnorm((1 + level) / 2)) * sqrt(T)
  list(estimate = qbar, between = b, within = ubar, se = sqrt(T), df = df,
    lower = qbar - half, upper = qbar + half)
}
overlap <- function(lo, uo, ls, us) {
  inner <- min(uo, us) - max(lo, ls)
  0.5 * (inner / (uo - lo) + inner / (us - ls))
}
# Estimates and standard errors: lm's summary(); for glm the inverse Fisher information at the
# estimate (as for the logistic reference above; summary.glm's are one IRLS step behind).
coef_table <- function(fit) {
  if (inherits(fit, "glm")) {
    X <- model.matrix(fit)
    p <- fitted(fit)
    se <- sqrt(diag(solve(t(X) %*% (X * (p * (1 - p))))))
    cbind(coef(fit), se)
  } else {
    summary(fit)$coefficients[, 1:2]
  }
}
utility_model <- function(formula, family) {
  fit <- function(d) {
    if (family == "gaussian") lm(formula, data = d) else
      glm(formula, family = binomial, data = d, control = control)
  }
  f0 <- fit(conf)
  s0 <- coef_table(f0)
  # confint()'s t interval for lm, confint.default()'s Wald interval for glm.
  quantile0 <- if (family == "gaussian") qt(0.975, df.residual(f0)) else qnorm(0.975)
  ci0 <- cbind(s0[, 1] - quantile0 * s0[, 2], s0[, 1] + quantile0 * s0[, 2])
  if (family == "gaussian") stopifnot(all(abs(ci0 - confint(f0)) < 1e-12))
  fits <- lapply(syn, function(d) coef_table(fit(d)))
  rows <- lapply(seq_len(nrow(s0)), function(j) {
    q <- sapply(fits, function(s) s[j, 1])
    u <- sapply(fits, function(s) s[j, 2]^2)
    cmb <- combine(q, u)
    list(
      name = rownames(s0)[j],
      confidential = list(estimate = s0[j, 1], se = s0[j, 2], lower = ci0[j, 1],
        upper = ci0[j, 2]),
      synthetic = cmb,
      overlap = overlap(ci0[j, 1], ci0[j, 2], cmb$lower, cmb$upper),
      standardizedDifference = abs(cmb$estimate - s0[j, 1]) / s0[j, 2]
    )
  })
  list(formula = deparse(formula), family = family, coefficients = rows)
}
models <- list(
  utility_model(A ~ x1 + B, "gaussian"),
  utility_model(D ~ x1 + region, "binomial")
)

expected <- list(
  levels = list(region = region_levels, B = b_levels, D = d_levels),
  ols = ols_out,
  logistic = logit_out,
  pmse = pmse,
  models = models,
  versions = list(R = R.version.string, jsonlite = as.character(packageVersion("jsonlite"))),
  date = format(Sys.Date())
)
writeLines(
  toJSON(expected, auto_unbox = TRUE, digits = NA, pretty = TRUE),
  "test/reference/utility_reference_expected.json"
)
