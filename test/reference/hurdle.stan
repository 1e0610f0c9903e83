// Weighted hurdle lognormal regression: ppsynth's `hurdle` model (src/models/hurdle.ts).
// P(y > 0) = inv_logit(X gamma); log y | y > 0 ~ normal(X beta, sigma). Every coefficient has
// the coefficient prior of src/models/glm_prior.ts (normal(0, its scale), the scale
// Student-t+(3, 0, 1)); sigma ~ Student-t+(3, 0, 10) as in the lognormal model. The weights
// alpha are data. Array syntax of Stan 2.21.
data {
  int<lower=1> n;
  int<lower=1> K;
  vector<lower=0>[n] y;
  vector<lower=0>[n] alpha;
  matrix[n, K] X;
}

parameters {
  vector[K] gamma;
  vector[K] beta;
  vector<lower=0>[K] sigma_gamma;
  vector<lower=0>[K] sigma_beta;
  real<lower=0> sigma;
}

model {
  vector[n] eta_gamma;
  vector[n] eta_beta;
  eta_gamma = X * gamma;
  eta_beta = X * beta;
  sigma_gamma ~ student_t(3, 0, 1);
  sigma_beta ~ student_t(3, 0, 1);
  gamma ~ normal(0, sigma_gamma);
  beta ~ normal(0, sigma_beta);
  sigma ~ student_t(3, 0, 10);
  for (i in 1:n) {
    if (y[i] == 0) {
      target += alpha[i] * bernoulli_logit_lpmf(0 | eta_gamma[i]);
    } else {
      target += alpha[i] * (bernoulli_logit_lpmf(1 | eta_gamma[i])
                            + lognormal_lpdf(y[i] | eta_beta[i], sigma));
    }
  }
}
