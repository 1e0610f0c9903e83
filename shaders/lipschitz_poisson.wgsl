// Poisson record log-likelihood for the Lipschitz kernel (SPEC §5, src/models/poisson.ts):
//
//     ℓ = y·η − e^η − log Γ(y + 1)
//
// Record constants: c_0 = y, c_1 = log Γ(y + 1). No per-draw constants. Safe range: that of
// log_link_predictor (lipschitz_common.wgsl): |η| ≤ 60 with an error bound on η below 2¹⁴u.

fn record_loglik(r: u32, s: u32) -> EV {
  let eta = log_link_predictor(r, s);
  if (eta.e < 0.0) {
    return eta;
  }
  let y_eta = ev_mul(ev_input(record_const(r, 0u)), eta);
  return ev_sub(ev_sub(y_eta, ev_exp(eta)), ev_input(record_const(r, 1u)));
}
