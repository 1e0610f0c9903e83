// Categorical (multinomial logit) record log-likelihood for the Lipschitz kernel (SPEC §5,
// src/models/categorical.ts): L levels, level 0 the reference with η_0 = 0, η_l = x·β_l for
// l = 1..L−1, and the stable log-softmax
//
//     ℓ = η_y − log Σ_l e^{η_l} = (η_y − m) − log1p(Σ_{l ≠ top} e^{η_l − m}),
//
// with m = η_top the largest of the computed η (top = 0, m = 0 where every η_l ≤ 0). The identity
// holds whichever level is taken as the shift, so a near tie for the largest η cannot hurt the
// bound: every e^{η_l − m} ≤ 1 (up to rounding), the sum is in [0, L − 1], and nothing overflows
// or cancels. The η are computed twice (a pass for m, a pass for the sum) so that no array of L
// values is needed; each pass's values carry their own bounds.
//
// Layout: per draw the (L − 1)·K coefficients level by level (β_1 then β_2, …; θ's own order),
// so L − 1 = draw_stride / k (no per-draw constants). Record constants: c_0 = y's level code
// (an integer below L), c_1 unused (0). Safe range: an error bound below 2¹⁴u on every η_l and
// every η_l − m (so exp's argument carries under 2⁻¹⁰ absolute error). Where η_l − m < −87,
// e^{η_l − m} < 2⁻¹²⁵ may be a subnormal f32 (which WGSL may flush to zero): it is replaced by 0
// with a bound on its exact value, e^{−87 + 2⁻¹⁰} < 1.7e-38 < 2.9e-31u.

// η_l = β_l0 + Σ_{j≥1} x_j·β_lj for level l ≥ 1: level l's block of k floats in the draw.
fn level_predictor(r: u32, s: u32, l: u32) -> EV {
  return linear_predictor_at(r, s, (l - 1u) * params.k);
}

fn record_loglik(r: u32, s: u32) -> EV {
  let levels = params.draw_stride / params.k + 1u;
  let y = u32(record_const(r, 0u));
  // Pass 1: the shift m = η_top and η_y.
  var m = ev_exact(0.0);
  var top = 0u;
  var eta_y = ev_exact(0.0);
  for (var l = 1u; l < levels; l++) {
    let eta = level_predictor(r, s, l);
    if (eta.e > 16384.0) {
      return out_of_range();
    }
    if (eta.v > m.v) {
      m = eta;
      top = l;
    }
    if (l == y) {
      eta_y = eta;
    }
  }
  // Pass 2: Σ_{l ≠ top} e^{η_l − m}.
  var rest = ev_exact(0.0);
  for (var l = 0u; l < levels; l++) {
    if (l == top) {
      continue;
    }
    var eta = ev_exact(0.0);
    if (l > 0u) {
      eta = level_predictor(r, s, l);
    }
    var d = eta;
    if (top > 0u) {
      d = ev_sub(eta, m);
    }
    if (d.e > 16384.0) {
      return out_of_range();
    }
    var term = EV(0.0, 2.9e-31);
    if (d.v >= -87.0) {
      term = ev_exp(d);
    }
    rest = ev_add(rest, term);
  }
  var head = ev_exact(0.0);
  if (y != top) {
    head = eta_y;
    if (top > 0u) {
      head = ev_sub(eta_y, m);
    }
  }
  return ev_sub(head, ev_log1p(rest));
}
