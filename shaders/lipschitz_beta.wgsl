// Beta regression record log-likelihood for the Lipschitz kernel (SPEC §5, src/models/beta.ts):
//
//     ℓ = log Γ(φ) − log Γ(p) − log Γ(q) + (p − 1)·log y + (q − 1)·log(1 − y),
//     p = μφ, q = (1 − μ)φ, μ = logit⁻¹(η).
//
// With e = e^{−|η|}, the larger share of φ is P = φ/(1 + e) and the smaller Q = e·P, and
// log(φ/P) = L = log1p(e), log(φ/Q) = |η| + L exactly; P pairs with log y when η ≥ 0 (μ ≥ ½)
// and with log(1 − y) otherwise (l_P, l_Q). Three forms, chosen by size, keep f32 cancellation
// small (Stirling's formula with remainder δ where both arguments are ≥ 8):
//   Q ≥ 8:      −½·log 2π + ½·log φ + (P − 1)(l_P + L) + (Q − 1)(l_Q + |η| + L) + L + ½|η|
//               − δ(P) − δ(Q) + δ(φ)
//   P ≥ 8 > Q:  (P − 1)(l_P + L) + ½L + Q·(log φ − 1) + δ(φ) − δ(P) − log Γ(Q) + (Q − 1)·l_Q
//   P < 8:      log Γ(φ) − log Γ(P) − log Γ(Q) + (P − 1)·l_P + (Q − 1)·l_Q
//
// Record constants: c_0 = log y, c_1 = log(1 − y). Per-draw constants after β: φ, log φ,
// log Γ(φ), δ(φ) (0 below 8). Safe range: |η| ≤ 60 with an error bound on η below 2¹⁴u; the CPU
// keeps φ in [2⁻²⁰, 2⁴⁰], so Q ≥ e⁻⁶⁰·2⁻²⁰ stays a normal f32.

fn record_loglik(r: u32, s: u32) -> EV {
  let eta = log_link_predictor(r, s);
  if (eta.e < 0.0) {
    return eta;
  }
  let phi = ev_input(draw_const(s, 0u));
  var l_big = ev_input(record_const(r, 1u));
  var l_small = ev_input(record_const(r, 0u));
  if (eta.v >= 0.0) {
    l_big = l_small;
    l_small = ev_input(record_const(r, 1u));
  }
  let one = ev_exact(1.0);
  let abs_eta = EV(abs(eta.v), eta.e);
  let e = ev_exp(ev_neg(abs_eta));
  let share = ev_div(one, ev_add(one, e));
  let big = ev_mul(share, phi);
  let small = ev_mul(ev_mul(e, share), phi);
  let l = ev_log1p(e);
  let big_term = ev_mul(ev_sub(big, one), ev_add(l_big, l));
  if (small.v >= 8.0) {
    let half = ev_exact(0.5);
    let constant = ev_add(
      ev_neg(ev_input(HALF_LOG_2PI_F32)),
      ev_mul(half, ev_input(draw_const(s, 1u))),
    );
    let small_term = ev_mul(ev_sub(small, one), ev_add(ev_add(l_small, abs_eta), l));
    let rest = ev_add(l, ev_mul(half, abs_eta));
    let rem = ev_sub(
      ev_input(draw_const(s, 3u)),
      ev_add(ev_stirling_rem(big), ev_stirling_rem(small)),
    );
    return ev_add(ev_add(ev_add(constant, big_term), ev_add(small_term, rest)), rem);
  }
  let small_term = ev_sub(ev_mul(ev_sub(small, one), l_small), ev_lgamma(small));
  if (big.v >= 8.0) {
    let head = ev_add(big_term, ev_mul(ev_exact(0.5), l));
    let body = ev_mul(small, ev_sub(ev_input(draw_const(s, 1u)), one));
    let rem = ev_sub(ev_input(draw_const(s, 3u)), ev_stirling_rem(big));
    return ev_add(ev_add(head, body), ev_add(rem, small_term));
  }
  let big_part = ev_sub(ev_mul(ev_sub(big, one), l_big), ev_lgamma(big));
  return ev_add(ev_add(ev_input(draw_const(s, 2u)), big_part), small_term);
}
