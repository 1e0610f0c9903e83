// Gaussian record log-likelihood for the Lipschitz kernel, shared by the normal and lognormal
// models (SPEC §5, src/models/normal.ts GaussianRegression):
//
//     ℓ = c − log σ − ½·((z − η)/σ)²
//
// Record constants: c_0 = z (y for normal, log y for lognormal), c_1 = c (−½·log 2π, and
// − log y for lognormal). Per-draw constants after β: 1/σ, log σ. Safe range: |η| ≤ 2⁴⁰ with an
// error bound on η below 1e20u, and |(z − η)/σ| ≤ 2³⁰ with an error bound below 2⁴⁰u; the CPU
// keeps σ in [2⁻²⁰, 2²⁰] and |z| ≤ 2⁴⁰, so nothing overflows.

fn record_loglik(r: u32, s: u32) -> EV {
  return ev_gaussian(
    linear_predictor(r, s),
    ev_input(record_const(r, 0u)),
    ev_input(record_const(r, 1u)),
    ev_input(draw_const(s, 0u)),
    ev_input(draw_const(s, 1u)),
  );
}
