// FBP record log-likelihood for the Lipschitz kernel (survey paper §2.2 eq. 6 on the scale of
// (log y, log π), SPEC §5, src/models/fbp.ts; docs/decisions.md "FBP's ℓ_i is the density of
// (log y, log π)"), with η = x·β, ξ = x·κ_x, r_y = log y − η, r_π = log π − κ_y·log y − ξ:
//
//     ℓ = c − ½·((r_y/σ_y)² + (r_π/σ_π)²) − ξ − κ_y·η + log π,
//     c = −log 2π − log σ_y − log σ_π − ½σ_π² − ½κ_y²σ_y²,
//
// evaluated with −ξ − κ_y·η + log π = r_π + κ_y·r_y, the same value without the cancellation of
// ξ, κ_y·η and log π, which may each be far larger than their sum. The residuals are the Gaussian
// kernel's (ev_residual, ev_standardise).
//
// Layout: per draw β_0 … β_{k−1}, κ_y, κ_x,0 … κ_x,k−1, then 1/σ_y, 1/σ_π and c, computed in f64
// on the CPU. Record constants: c_0 = log y, c_1 = log π = −log w. Safe range: the Gaussian
// kernel's for both linear predictors and both standardised residuals; the CPU keeps σ_y, σ_π in
// [2⁻²⁰, 2²⁰], |κ_y| ≤ 2²⁴ and |log y|, |log π| ≤ 2⁴⁰.

fn record_loglik(r: u32, s: u32) -> EV {
  let k = params.k;
  let db = s * params.draw_stride;
  let ly = ev_input(record_const(r, 0u));
  let kappa = ev_input(draws[db + k]);
  let ry = ev_residual(ly, linear_predictor(r, s));
  let rp = ev_residual(
    ev_sub(ev_input(record_const(r, 1u)), ev_mul(kappa, ly)),
    linear_predictor_at(r, s, k + 1u),
  );
  let z1 = ev_standardise(ry, ev_input(draws[db + 2u * k + 1u]));
  let z2 = ev_standardise(rp, ev_input(draws[db + 2u * k + 2u]));
  if (z1.e < 0.0 || z2.e < 0.0) {
    return out_of_range();
  }
  let quad = ev_mul(ev_exact(0.5), ev_add(ev_mul(z1, z1), ev_mul(z2, z2)));
  let linear = ev_add(rp, ev_mul(kappa, ry));
  return ev_add(ev_sub(ev_input(draws[db + 2u * k + 3u]), quad), linear);
}
