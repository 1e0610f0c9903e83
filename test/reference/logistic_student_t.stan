// Logistic regression with ppsynth's default coefficient prior (`student-t`,
// src/models/glm_prior.ts) written directly on the coefficients: beta_k ~ Student-t(3, 0, 2.5)
// for the intercept (an intercept on the logit scale, STUDENT_T_INTERCEPT_SCALE.logit) and for
// every covariate's coefficient (STUDENT_T_COEFFICIENT). ppsynth samples the same marginal as a
// scale mixture (sigma_k^2 ~ Inverse-Gamma(3/2, 3 * 2.5^2 / 2), reported as sigma_beta_*), whose
// auxiliary scales have no counterpart here: the coefficients' posterior is the same. Unweighted
// (every alpha_i = 1), the fit of issue 23's rstan comparison. X is the n x K design whose first
// column is the intercept, as src/data/design.ts codes it. Array syntax of Stan 2.21.
data {
  int<lower=1> n;
  int<lower=1> K;
  int<lower=0, upper=1> y[n];
  matrix[n, K] X;
}

parameters {
  vector[K] beta;
}

model {
  beta ~ student_t(3, 0, 2.5);
  y ~ bernoulli_logit(X * beta);
}
