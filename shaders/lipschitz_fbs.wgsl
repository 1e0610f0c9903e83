// FBS record log-likelihood for the Lipschitz kernel (survey paper §2.1, SPEC §5,
// src/models/fbs.ts): (log y, log w) bivariate normal given x,
//
//     ℓ = c − ½·Q/(1 − ρ²),   Q = z₁² − 2ρz₁z₂ + z₂²,   z₁ = (log y − x·β_y)/σ_y,
//     z₂ = (log w − x·β_w)/σ_w,   c = −log 2π − log σ_y − log σ_w − ½·log(1 − ρ²),
//
// evaluated as c − ½·((z₁ − ρz₂)²/(1 − ρ²) + z₂²), the same value (Q = (z₁ − ρz₂)² + (1 − ρ²)z₂²)
// as a sum of two non-negative terms, so that a ρ near ±1 costs no cancellation beyond z₁ − ρz₂.
// The residuals are the Gaussian kernel's (ev_residual, ev_standardise).
//
// Layout: per draw β_y,0 … β_y,k−1, β_w,0 … β_w,k−1, then 1/σ_y, 1/σ_w, ρ, 1/(1 − ρ²) and c, all
// computed in f64 on the CPU. Record constants: c_0 = log y, c_1 = log w. Safe range: the
// Gaussian kernel's for both linear predictors and both standardised residuals; the CPU keeps
// σ_y, σ_w in [2⁻²⁰, 2²⁰], 1 − ρ² ≥ 2⁻²⁰ and |log y|, |log w| ≤ 2⁴⁰.

fn record_loglik(r: u32, s: u32) -> EV {
  let db = s * params.draw_stride + 2u * params.k;
  let z1 = ev_standardise(
    ev_residual(ev_input(record_const(r, 0u)), linear_predictor(r, s)),
    ev_input(draws[db]),
  );
  let z2 = ev_standardise(
    ev_residual(ev_input(record_const(r, 1u)), linear_predictor_at(r, s, params.k)),
    ev_input(draws[db + 1u]),
  );
  if (z1.e < 0.0 || z2.e < 0.0) {
    return out_of_range();
  }
  let d = ev_sub(z1, ev_mul(ev_input(draws[db + 2u]), z2));
  let q = ev_add(ev_mul(ev_mul(d, d), ev_input(draws[db + 3u])), ev_mul(z2, z2));
  return ev_sub(ev_input(draws[db + 4u]), ev_mul(ev_exact(0.5), q));
}
