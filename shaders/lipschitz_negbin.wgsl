// Negative binomial (NB2) record log-likelihood for the Lipschitz kernel (SPEC §5,
// src/models/negbin.ts), with d = η − log φ:
//
//     ℓ = G + T,   G = log Γ(y + φ) − log Γ(φ) − log Γ(y + 1),   T = y·d − (φ + y)·log(1 + e^d)
//
// written without catastrophic cancellation in f32:
//   G, φ ≥ 8: (φ − ½)·log1p(y/φ) + y·(log(φ + y) − 1) + δ(φ + y) − δ(φ) − log Γ(y + 1)
//             (Stirling's formula on both log Γ terms, δ the remainder; the CPU twin's
//             logPochhammer), otherwise log Γ(y + φ) − log Γ(φ) − log Γ(y + 1);
//   T, d > 0: −φ·d − (φ + y)·log(1 + e^{−d}); d ≤ 0: y·d − (φ + y)·log(1 + e^d).
//
// Record constants: c_0 = y, c_1 = log Γ(y + 1). Per-draw constants after β: φ, log φ,
// log Γ(φ), δ(φ) (0 below 8). Safe range: |η| ≤ 60 with an error bound on η below 2¹⁴u; the CPU
// keeps φ in [2⁻³⁰, 2³³] and y in [0, 2³⁰], so |d| ≤ 83 (e⁻⁸³ is still a normal f32) and
// nothing overflows.

fn record_loglik(r: u32, s: u32) -> EV {
  let eta = log_link_predictor(r, s);
  if (eta.e < 0.0) {
    return eta;
  }
  let y = ev_input(record_const(r, 0u));
  let lgy1 = ev_input(record_const(r, 1u));
  let phi = ev_input(draw_const(s, 0u));
  let log_phi = ev_input(draw_const(s, 1u));
  var g: EV;
  if (phi.v >= 8.0) {
    let b = ev_add(phi, y);
    let head = ev_mul(ev_sub(phi, ev_exact(0.5)), ev_log1p(ev_div(y, phi)));
    let body = ev_mul(y, ev_sub(ev_log(b), ev_exact(1.0)));
    let rem = ev_sub(ev_stirling_rem(b), ev_input(draw_const(s, 3u)));
    g = ev_sub(ev_add(ev_add(head, body), rem), lgy1);
  } else {
    g = ev_sub(ev_sub(ev_lgamma(ev_add(y, phi)), ev_input(draw_const(s, 2u))), lgy1);
  }
  let d = ev_sub(eta, log_phi);
  let w = ev_add(phi, y);
  var t: EV;
  if (d.v > 0.0) {
    t = ev_sub(ev_neg(ev_mul(phi, d)), ev_mul(w, ev_log1p_exp(ev_neg(d))));
  } else {
    t = ev_sub(ev_mul(y, d), ev_mul(w, ev_log1p_exp(d)));
  }
  return ev_add(g, t);
}
