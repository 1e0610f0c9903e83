// Poisson record log-likelihood for the Lipschitz kernel (SPEC §5, src/models/poisson.ts):
//
//     ℓ = y·η − e^η − log Γ(y + 1)
//
// Record constants: c_0 = y, c_1 = log Γ(y + 1). No per-draw constants. Safe range: |η| ≤ 60
// (e^60 ≈ 1.1e26, so no term or error bound overflows f32) with an error bound on η below 2¹⁴u.

fn record_loglik(r: u32, s: u32) -> EV {
  let eta = linear_predictor(r, s);
  if (abs(eta.v) > 60.0 || eta.e > 16384.0) {
    return out_of_range();
  }
  let y = ev_input(record_const(r, 0u));
  let lgy1 = ev_input(record_const(r, 1u));
  return ev_sub(ev_sub(ev_mul(y, eta), ev_exp(eta)), lgy1);
}
