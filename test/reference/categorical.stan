// Weighted multinomial logit regression over L levels, level 1 the reference: ppsynth's
// `categorical` model (src/models/categorical.ts). beta[k, l] is the coefficient of covariate k
// for level l + 1 against level 1; every coefficient has the coefficient prior of
// src/models/glm_prior.ts: beta[k, l] ~ normal(0, sigma_beta[k, l]),
// sigma_beta[k, l] ~ Student-t+(3, 0, 1). The weights alpha are data. Array syntax of Stan 2.21.
data {
  int<lower=1> n;
  int<lower=1> K;
  int<lower=2> L;
  int<lower=1, upper=L> y[n];
  vector<lower=0>[n] alpha;
  matrix[n, K] X;
}

parameters {
  matrix[K, L - 1] beta;
  matrix<lower=0>[K, L - 1] sigma_beta;
}

model {
  matrix[n, L - 1] eta;
  eta = X * beta;
  to_vector(sigma_beta) ~ student_t(3, 0, 1);
  to_vector(beta) ~ normal(0, to_vector(sigma_beta));
  for (i in 1:n) {
    target += alpha[i] * categorical_logit_lpmf(y[i] | append_row(0, eta[i]'));
  }
}
