// The vector-weighted paper's negative binomial synthesizer (Supplement 2), unweighted, written
// the fastest way Stan allows for the benchmark: the likelihood vectorised with
// neg_binomial_2_log_lpmf, no generated quantities. Same posterior as
// test/reference/nb_weighted.stan with all weights 1.
data {
  int<lower=1> n;
  int<lower=1> K;
  int<lower=0> y[n];
  matrix[n, K] X;
}
transformed data {
  vector[K] zeros_beta = rep_vector(0, K);
}
parameters {
  vector[K] beta;
  vector<lower=0>[K] sigma_beta;
  cholesky_factor_corr[K] L_beta;
  real<lower=0> reciprocal_phi;
}
transformed parameters {
  real phi = 1. / reciprocal_phi;
}
model {
  reciprocal_phi ~ cauchy(0., 5);
  L_beta ~ lkj_corr_cholesky(6);
  sigma_beta ~ student_t(3, 0, 1);
  beta ~ multi_normal_cholesky(zeros_beta, diag_pre_multiply(sigma_beta, L_beta));
  y ~ neg_binomial_2_log(X * beta, phi);
}
