// Weighted negative binomial synthesizer with covariates: the Stan script of Supp 2 of the
// vector-weighted mechanisms paper (Hu, Savitsky & Williams), X an n x K design whose first
// column is the intercept (as src/data/design.ts codes it), the weights alpha data.
// Changes from the paper, so that the posterior is exactly ppsynth's negbin model
// (src/models/negbin.ts, src/models/glm_prior.ts):
//   - the LKJ correlation L_beta is fixed at the identity: beta ~ normal(0, sigma_beta)
//     componentwise, instead of multi_normal_cholesky(0, diag_pre_multiply(sigma_beta, L_beta))
//     with L_beta ~ lkj_corr_cholesky(6) (the two agree only for K = 1);
//   - reciprocal_phi is declared <lower=0>, so that 1/phi ~ Cauchy+(0, 5) (as nb_weighted.stan);
//   - no generated quantities (the log_lik the paper records is not needed here, and at
//     n = 10^4 it would dominate the benchmark's output).
// Array syntax of Stan 2.21 (rstan 2.21.7, the version this was run with).
functions {
  real wt_NB_lpmf(int[] y, vector mu, real phi, vector weights, int n) {
    real check_term;
    check_term = 0.0;
    for (i in 1:n) {
      check_term += weights[i] * neg_binomial_2_log_lpmf(y[i] | mu[i], phi);
    }
    return check_term;
  }
}

data {
  int<lower=1> n;
  int<lower=1> K;
  int<lower=0> y[n];
  vector<lower=0>[n] alpha;
  matrix[n, K] X;
}

parameters {
  vector[K] beta;
  vector<lower=0>[K] sigma_beta;
  real<lower=0> reciprocal_phi;
}

transformed parameters {
  real phi;
  phi = 1. / reciprocal_phi;
}

model {
  vector[n] mu;
  mu = X * beta;
  reciprocal_phi ~ cauchy(0., 5);
  sigma_beta ~ student_t(3, 0, 1);
  beta ~ normal(0, sigma_beta);
  target += wt_NB_lpmf(y | mu, phi, alpha, n);
}
