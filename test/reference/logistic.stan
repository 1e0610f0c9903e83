// Weighted logistic regression: ppsynth's `logistic` model (src/models/logistic.ts) with its
// coefficient prior (src/models/glm_prior.ts): beta_k ~ normal(0, sigma_beta_k),
// sigma_beta_k ~ Student-t+(3, 0, 1), the weights alpha data multiplying each record's
// log-likelihood (the pseudo posterior of SPEC section 1). X is the n x K design whose first
// column is the intercept, as src/data/design.ts codes it. Array syntax of Stan 2.21.
data {
  int<lower=1> n;
  int<lower=1> K;
  int<lower=0, upper=1> y[n];
  vector<lower=0>[n] alpha;
  matrix[n, K] X;
}

parameters {
  vector[K] beta;
  vector<lower=0>[K] sigma_beta;
}

model {
  vector[n] eta;
  eta = X * beta;
  sigma_beta ~ student_t(3, 0, 1);
  beta ~ normal(0, sigma_beta);
  for (i in 1:n) {
    target += alpha[i] * bernoulli_logit_lpmf(y[i] | eta[i]);
  }
}
