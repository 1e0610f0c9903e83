// Logistic regression record log-likelihood for the Lipschitz kernel (SPEC §5,
// src/models/logistic.ts), with s = 2y − 1 and t = s·η:
//
//     ℓ = log logit⁻¹(t) = −log(1 + e^{−t}) = min(t, 0) − log1p(e^{−|t|})
//
// the CPU's logSigmoidFrom, in lipschitz_common.wgsl's ev_log_sigmoid: one exp of a non-positive
// argument and the log1p series, so nothing overflows and nothing cancels (ℓ ≈ −e^{−t} for
// large t, ≈ t for very negative t).
//
// Record constants: c_0 = s (±1, so t = ±η is exact), c_1 unused (0). No per-draw constants.
// Safe range: an error bound on η below 2¹⁴u (so exp's argument carries under 2⁻¹⁰ absolute
// error and the first-order propagation holds); |η| itself is not limited, as |x|, |β| ≤ 2²⁴
// keep η finite and e^{−|t|} cannot overflow. Where |t| > 87, e^{−|t|} < 2⁻¹²⁵ may be a
// subnormal f32 (which WGSL may flush to zero): it is replaced by 0 with a bound on its exact
// value, e^{−87 + 2⁻¹⁰} < 1.7e-38 < 2.9e-31u, so no subnormal reaches log1p.

fn record_loglik(r: u32, s: u32) -> EV {
  let eta = linear_predictor(r, s);
  if (eta.e > 16384.0) {
    return out_of_range();
  }
  // s = ±1: the sign flip is exact.
  return ev_log_sigmoid(EV(select(-eta.v, eta.v, record_const(r, 0u) > 0.0), eta.e));
}
