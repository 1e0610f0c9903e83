// Shared declarations of the many-chain HMC kernels (src/gpu/hmc.ts): the uniform parameters,
// the bindings, the per-chain and control-block layouts, and small f32 helpers. The layout
// constants are mirrored in src/gpu/hmc_layout.ts; change both together.
//
// Concatenated after special.wgsl and philox.wgsl and before hmc_models.wgsl, the record sums
// (hmc_sums_single.wgsl or hmc_sums_levels.wgsl), hmc_target.wgsl and hmc_adapt.wgsl (WGSL has no
// include).

// Largest number of regression coefficients M = predictors·K (K per linear predictor); θ has at
// most 2M + 1 entries.
const MAX_K: u32 = 16u;
const MAX_D: u32 = 33u;
// Values reduced over records per chain: Σc_i, M coefficient gradients, the extra parameter's
// gradient and the count of non-finite records.
const MAX_NV: u32 = 19u;

// `params.mode`: evaluate log density and gradient only, or run leapfrog steps.
const MODE_EVAL: u32 = 0u;
const MODE_RUN: u32 = 1u;

// `params.prior_kind`: the papers' prior over θ = (β block(s), log σ block(s), extra), or the
// `student-t` prior over the free coordinates (β block(s), extra) only, β_j ~ Student-t(ν, 0, s_j)
// (its scale coordinates are drawn exactly on the host, src/gpu/hmc.ts).
const PRIOR_PAPER: u32 = 0u;
const PRIOR_STUDENT_T: u32 = 1u;

// Per-chain f32 block (stride 6D + 8): position q, momentum p, gradient g, the trajectory's start
// q0 and g0, the proposal qp, then the scalars below at offset 6D.
const CS_LOGP: u32 = 0u;
const CS_LOGP0: u32 = 1u;
const CS_H0: u32 = 2u;
const CS_ACCEPT: u32 = 3u;

// Per-chain u32 block: leapfrog steps taken in this trajectory, a sticky flag set when any
// evaluation on it was not finite, warmup divergences.
const CU_STRIDE: u32 = 4u;
const CU_STEP: u32 = 0u;
const CU_BAD: u32 = 1u;
const CU_DIV_WARMUP: u32 = 2u;

// Control block, f32 part: step size, dual-averaging state, trajectory length T and its iterate
// average, RMSProp accumulator, this iteration's jitter; then M⁻¹ (D), EMA mean (D), EMA
// variance (D).
const CF_EPS: u32 = 0u;
const CF_LOG_EPS_BAR: u32 = 1u;
const CF_HBAR: u32 = 2u;
const CF_MU: u32 = 3u;
const CF_T: u32 = 4u;
const CF_T_BAR: u32 = 5u;
const CF_RMS: u32 = 6u;
const CF_JITTER: u32 = 7u;
const CF_HEAD: u32 = 8u;

// Control block, u32 part: iteration index, its number of leapfrog steps, EMA points, capped
// post-warmup iterations, leapfrog steps summed over iterations.
const CC_ITER: u32 = 0u;
const CC_STEPS: u32 = 1u;
const CC_EMA_POINTS: u32 = 2u;
const CC_CAPPED: u32 = 3u;
const CC_STEP_SUM: u32 = 4u;

struct Params {
  n: u32,
  k: u32,
  d: u32,
  chains: u32,
  tiles: u32,
  record_stride: u32,
  mode: u32,
  max_steps: u32,
  warmup: u32,
  adapt_end: u32,
  draw_base: u32,
  batch_draws: u32,
  key0: u32,
  key1: u32,
  total_iters: u32,
  censor_on: u32,
  censor: f32,
  has_extra: u32,
  coef_nu: f32,
  coef_inv_nu_s2: f32,
  coef_log_norm: f32,
  extra_nu: f32,
  extra_inv_nu_s2: f32,
  extra_log_norm: f32,
  target_accept: f32,
  da_gamma: f32,
  da_t0: f32,
  da_kappa: f32,
  traj_rate: f32,
  ema_factor: u32,
  divergence: f32,
  predictors: u32,
  prior_kind: u32,
  t_nu: f32,
  t_intercept_spread: f32,
  t_coef_spread: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
// Per record: two model-specific values, α_i, then the K − 1 non-intercept covariates.
@group(0) @binding(1) var<storage, read> recs: array<f32>;
@group(0) @binding(2) var<storage, read_write> chain_f: array<f32>;
@group(0) @binding(3) var<storage, read_write> chain_u: array<u32>;
@group(0) @binding(4) var<storage, read_write> ctrl_f: array<f32>;
@group(0) @binding(5) var<storage, read_write> ctrl_u: array<u32>;
// Per (chain, tile): the MAX_NV-strided partial sums of the tiled evaluation.
@group(0) @binding(6) var<storage, read_write> partials: array<f32>;
// Per (iteration in batch, chain): the D coordinates, the acceptance probability, 1 if divergent.
@group(0) @binding(7) var<storage, read_write> draws: array<f32>;
// Per leapfrog slot: indirect dispatch sizes of the evaluation and of the reduction.
@group(0) @binding(8) var<storage, read_write> args: array<u32>;

// The number of regression coefficients M: K per linear predictor.
fn coefficient_count() -> u32 {
  return params.predictors * params.k;
}

// The index of the extra parameter in θ: after the coefficients and, under the paper's prior,
// their log scales.
fn extra_index() -> u32 {
  let nc = coefficient_count();
  return select(2u * nc, nc, params.prior_kind == PRIOR_STUDENT_T);
}

fn chain_stride() -> u32 {
  return 6u * params.d + 8u;
}

// Offsets inside a chain's f32 block.
fn off_q() -> u32 {
  return 0u;
}
fn off_p() -> u32 {
  return params.d;
}
fn off_g() -> u32 {
  return 2u * params.d;
}
fn off_q0() -> u32 {
  return 3u * params.d;
}
fn off_g0() -> u32 {
  return 4u * params.d;
}
fn off_qp() -> u32 {
  return 5u * params.d;
}
fn off_scalar() -> u32 {
  return 6u * params.d;
}

// Offsets of M⁻¹, the EMA mean and the EMA variance in ctrl_f.
fn off_inv_mass() -> u32 {
  return CF_HEAD;
}
fn off_ema_mean() -> u32 {
  return CF_HEAD + params.d;
}
fn off_ema_var() -> u32 {
  return CF_HEAD + 2u * params.d;
}

// True unless x is ±∞ or NaN, by its bit pattern (WGSL has no isinf/isnan).
fn is_finite_f32(x: f32) -> bool {
  return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

// True if x is NaN.
fn is_nan_f32(x: f32) -> bool {
  let b = bitcast<u32>(x);
  return (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0u;
}

// The logistic function 1/(1 + e⁻ˣ) without overflow on either side.
fn sigmoid_f32(x: f32) -> f32 {
  let e = exp(-abs(x));
  return select(e / (1.0 + e), 1.0 / (1.0 + e), x >= 0.0);
}

// A half-Student-t(ν, 0, s) prior on x = eᵘ evaluated on u, with its log-Jacobian u
// (glm_prior.ts `HalfStudentT`): log_norm − (ν+1)/2·log1p(x²/(νs²)) + u.
fn half_t_log(u: f32, nu: f32, inv_nu_s2: f32, log_norm: f32) -> f32 {
  return log_norm - 0.5 * (nu + 1.0) * log1p_f32(exp(2.0 * u) * inv_nu_s2) + u;
}

// Its derivative 1 − (ν+1)·z/(1+z), z = x²/(νs²), written so that z = 0 and z = ∞ are exact.
fn half_t_grad(u: f32, nu: f32, inv_nu_s2: f32) -> f32 {
  let z = exp(2.0 * u) * inv_nu_s2;
  let ratio = select(z / (1.0 + z), 1.0 / (1.0 + 1.0 / z), z > 1.0);
  return 1.0 - (nu + 1.0) * ratio;
}
