// Weighted negative binomial synthesizer: the Stan script of Supp 2 of the vector-weighted
// mechanisms paper (Hu, Savitsky & Williams), used with K = 1 (X a column of ones).
// One change from the paper: reciprocal_phi is declared <lower=0>, so that 1/phi ~ Cauchy+(0, 5)
// as SPEC section 5 states (the paper declares it unconstrained, which lets phi go negative).
// Array syntax of Stan 2.21 (rstan 2.21.7, the version this was run with).
functions{

real wt_NB_lpmf(int[] y, vector mu, real phi, vector weights, int n){
    real check_term;
    check_term  = 0.0;
    for( i in 1:n )
    {
      check_term    += weights[i] * neg_binomial_2_log_lpmf(y[i] | mu[i], phi);
    }
    return check_term;
  }

real wt_NBi_lpmf(int y_i, real mu_i, real phi, real weights_i){
    real check_term;
    check_term    = weights_i * neg_binomial_2_log_lpmf(y_i | mu_i, phi);
    return check_term;
  }
}

data {
    int<lower=1> n;
    int<lower=1> K;
    int<lower=0> y[n];
    vector<lower=0>[n] weights;
    matrix[n, K] X;
}

transformed data{
  vector<lower=0>[K] zeros_beta;
  zeros_beta  = rep_vector(0,K);
}

parameters{
  vector[K] beta;
  vector<lower=0>[K] sigma_beta;
  cholesky_factor_corr[K] L_beta;
  real<lower=0> reciprocal_phi;
}

transformed parameters{
  vector[n] mu;
  real phi;
  mu   = X * beta;
  phi = 1. / reciprocal_phi;
}

model{
  reciprocal_phi ~ cauchy(0., 5);
  L_beta          ~ lkj_corr_cholesky(6);
  sigma_beta      ~ student_t(3,0,1);
  beta            ~ multi_normal_cholesky( zeros_beta, diag_pre_multiply(sigma_beta,L_beta) );
  target          += wt_NB_lpmf(y | mu, phi, weights, n);
}

generated quantities{
  vector[n] log_lik;
  for (i in 1:n) {
    log_lik[i] = wt_NBi_lpmf(y[i]| mu[i], phi, weights[i]);
  }
}
