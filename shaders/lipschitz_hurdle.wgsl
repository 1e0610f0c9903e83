// Hurdle lognormal record log-likelihood for the Lipschitz kernel (SPEC §5,
// src/models/hurdle.ts), with p = logit⁻¹(x·γ):
//
//     ℓ = log(1 − p) = log logit⁻¹(−x·γ)                                   if y = 0,
//     ℓ = log logit⁻¹(x·γ) + c − log σ − ½·((z − x·β)/σ)²                   if y > 0,
//
// the logistic kernel's log-sigmoid (ev_log_sigmoid, the CPU's logSigmoidFrom) plus, for a
// positive amount, the Gaussian kernel's term (ev_gaussian) on z = log y with c = −½·log 2π − log y
// (the lognormal density, Jacobian included), in the order of the CPU's sum.
//
// Layout: per draw γ_0 … γ_{k−1}, β_0 … β_{k−1}, then 1/σ and log σ. Record constants: for a
// positive y, c_0 = log y and c_1 = −½·log 2π − log y (|c_1| < 750 for any finite y > 0); for a
// zero, c_0 = 0 and c_1 = 2⁶⁴, a mark no positive amount can carry. Safe range: the logistic
// kernel's for x·γ (an error bound below 2¹⁴u) and the Gaussian kernel's for x·β and the
// standardised residual.

const HURDLE_ZERO_MARK: f32 = 1e18;

fn record_loglik(r: u32, s: u32) -> EV {
  let eta_g = linear_predictor(r, s);
  if (eta_g.e > 16384.0) {
    return out_of_range();
  }
  let c = record_const(r, 1u);
  if (c > HURDLE_ZERO_MARK) {
    // y = 0: log(1 − p) = log logit⁻¹(−x·γ); the sign flip is exact.
    return ev_log_sigmoid(ev_neg(eta_g));
  }
  let l = ev_log_sigmoid(eta_g);
  let db = s * params.draw_stride + 2u * params.k;
  let g = ev_gaussian(
    linear_predictor_at(r, s, params.k),
    ev_input(record_const(r, 0u)),
    ev_input(c),
    ev_input(draws[db]),
    ev_input(draws[db + 1u]),
  );
  if (g.e < 0.0) {
    return out_of_range();
  }
  return ev_add(l, g);
}
