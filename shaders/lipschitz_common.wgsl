// The Lipschitz kernels' shared part (SPEC §1): bindings, running error bounds, the linear
// predictor, and the two entry points. A model file (lipschitz_<model>.wgsl) supplies
// `fn record_loglik(r: u32, s: u32) -> EV`; src/gpu/lipschitz_gpu.ts concatenates
// special.wgsl + this file + the model file into one module per model.
//
// Layout (f32, filled on the CPU by src/gpu/lipschitz_pack.ts):
//   records, rec_stride = k + 2 per record:  x_1 … x_{k−1} (x_0 = 1 is implied), α, c_0, c_1
//   draws, draw_stride per draw:               β_0 … β_{k−1}, then the model's per-draw constants
//                                              (categorical: (L − 1)·k coefficients, none after)
// Sizes live in `params`, so one pipeline serves every shape.
//
// `evaluate` (2-D grid: records × groups of draws) computes L = |α·ℓ_r(θ_s)| for its record over
// its group's draws, keeping the largest L (first draw on ties), the runner-up (the largest L
// over the other draws, equal to the largest on a tie), the largest error bound and a flag, into
// `partial`; with write_matrix = 1 it also stores every L into `lmatrix`, with write_matrix = 2
// the signed f32 ℓ_r(θ_s) instead (0 where α = 0 or flagged), which the joint-record pass sums
// over a record's outcomes (src/gpu/lipschitz_joint.ts) with the error bound max_s e, which
// bounds ℓ's error too when α is 1. `reduce` merges
// the groups, and the running result of earlier draw tiles, into `result` in draw order.
//
// Error bounds are carried through every operation as EV values: v the f32 value, e a bound on
// |v − exact| in units of u = 2⁻²⁴, from WGSL's accuracy table (see special.wgsl's header):
// every rounding, with a sum's rounding bounded by u·(|a| + |b|), which also covers a fused
// multiply-add. Sums and products propagate input errors exactly (ev_mul keeps δa·δb); exp, log,
// ÷, log1p, log1p_exp and log Γ propagate them to first order, through a derivative bound at the
// computed point, which is within 0.1% of the bound over the whole interval because the safe
// ranges keep their inputs' relative errors below 2⁻¹⁰ (for exp, |η|'s error below 2¹⁴u). The
// CPU multiplies the reported bound by K = 2: for those 0.1%, for the f32 rounding of the bound
// itself, and for a compiler's reassociation of a sum, which WGSL permits and which for the sums
// of two or three terms written here at most doubles their rounding term. Measured on lavapipe,
// the f32 error stays below 0.3 of the doubled bound (test/gpu/lipschitz_gpu_test.ts).
//
// Non-finite values are never produced: the CPU screens inputs into ranges where no
// intermediate can overflow (|x|, |β| ≤ 2²⁴, model-specific ranges for y and the per-draw
// parameters), and `record_loglik` returns out_of_range() where the linear predictor leaves the
// model's safe range; such a record is flagged and recomputed in f64 on the CPU. The flag is
// also set if a result's bit pattern is not finite (WGSL may assume no Inf/NaN, so no isNan).

struct Params {
  n_records: u32,
  n_draws: u32,
  draws_per_group: u32,
  n_groups: u32,
  k: u32,
  rec_stride: u32,
  draw_stride: u32,
  draw_offset: u32,
  first_tile: u32,
  write_matrix: u32,
  pad0: u32,
  pad1: u32,
}

// A record's running maximum: L, its error bound (units of u), the draw (global index), a flag
// (1: recompute this record on the CPU) and the runner-up L over every other draw (−1: none).
// The CPU trusts the arg-max draw only where v − v2 exceeds twice the error bound.
struct Best {
  v: f32,
  e: f32,
  arg: u32,
  flag: u32,
  v2: f32,
}

// Merges a value (or a partial maximum with its own runner-up) into a running maximum.
fn best_merge(best: ptr<function, Best>, v: f32, v2: f32, arg: u32) {
  if (v > (*best).v) {
    (*best).v2 = max((*best).v, v2);
    (*best).v = v;
    (*best).arg = arg;
  } else {
    (*best).v2 = max((*best).v2, v);
  }
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> records: array<f32>;
@group(0) @binding(2) var<storage, read> draws: array<f32>;
@group(0) @binding(3) var<storage, read_write> partial: array<Best>;
@group(0) @binding(4) var<storage, read_write> lmatrix: array<f32>;
@group(0) @binding(5) var<storage, read_write> result: array<Best>;

// The unit roundoff u = 2⁻²⁴ of f32.
const U_F32: f32 = 5.9604644775390625e-8;

// A value with its error bound in units of u.
struct EV {
  v: f32,
  e: f32,
}

fn ev_exact(v: f32) -> EV {
  return EV(v, 0.0);
}

// A value rounded once from f64 (a per-record or per-draw constant, a WGSL constant).
fn ev_input(v: f32) -> EV {
  return EV(v, abs(v));
}

fn ev_neg(a: EV) -> EV {
  return EV(-a.v, a.e);
}

fn ev_add(a: EV, b: EV) -> EV {
  return EV(a.v + b.v, a.e + b.e + abs(a.v) + abs(b.v));
}

fn ev_sub(a: EV, b: EV) -> EV {
  return EV(a.v - b.v, a.e + b.e + abs(a.v) + abs(b.v));
}

// Exact propagation: (a + δa)(b + δb) − ab = a·δb + b·δa + δa·δb, plus the product's rounding.
fn ev_mul(a: EV, b: EV) -> EV {
  let v = a.v * b.v;
  return EV(v, abs(a.v) * b.e + abs(b.v) * a.e + (a.e * U_F32) * b.e + abs(v));
}

// ÷ is within 2.5 ULP = 5u.
fn ev_div(a: EV, b: EV) -> EV {
  let v = a.v / b.v;
  return EV(v, (a.e + abs(v) * b.e) / abs(b.v) + 5.0 * abs(v));
}

// exp(x) is within 3 + 2|x| ULP = (6 + 4|x|)u relative.
fn ev_exp(a: EV) -> EV {
  let v = exp(a.v);
  return EV(v, v * (a.e + 6.0 + 4.0 * abs(a.v)));
}

// log(x), x > 0: 8u absolute on [0.5, 2], 6u relative outside; the input's error over x.
fn ev_log(a: EV) -> EV {
  let v = log(a.v);
  return EV(v, a.e / a.v + 8.0 + 6.0 * abs(v));
}

fn ev_log1p(a: EV) -> EV {
  let v = log1p_f32(a.v);
  return EV(v, a.e / (1.0 + a.v) + log1p_f32_err(a.v, v));
}

// d/dx log(1 + eˣ) = logit⁻¹(x) ≤ min(1, log(1 + eˣ)).
fn ev_log1p_exp(a: EV) -> EV {
  let v = log1p_exp_f32(a.v);
  return EV(v, a.e * min(1.0, v) + log1p_exp_f32_err(a.v, v));
}

// d/dx log Γ(x) = ψ(x), and |ψ(x)| ≤ 1/x + |log x| for x > 0.
fn ev_lgamma(a: EV) -> EV {
  let v = lgamma_f32(a.v);
  return EV(v, a.e * (1.0 / a.v + abs(log(a.v))) + lgamma_f32_err(a.v, v));
}

// Stirling's remainder for x ≥ 8 (within u/4); |δ'(x)| ≤ 1/(12x²).
fn ev_stirling_rem(a: EV) -> EV {
  return EV(stirling_rem_f32(a.v), 0.25 + a.e / (12.0 * a.v * a.v));
}

// What record_loglik returns where the linear predictor leaves the model's safe range.
fn out_of_range() -> EV {
  return EV(0.0, -1.0);
}

// The model's per-record constant c_j (j = 0, 1).
fn record_const(r: u32, j: u32) -> f32 {
  return records[r * params.rec_stride + params.k + j];
}

// The model's per-draw constant j (after β).
fn draw_const(s: u32, j: u32) -> f32 {
  return draws[s * params.draw_stride + params.k + j];
}

// η = β_0 + Σ_{j≥1} x_j·β_j. Each product of two rounded inputs carries 3u relative, each sum
// u·(|a| + |b|).
fn linear_predictor(r: u32, s: u32) -> EV {
  return linear_predictor_at(r, s, 0u);
}

// The same with β read from the draw's floats o … o + k − 1 (the hurdle model's second block).
fn linear_predictor_at(r: u32, s: u32, o: u32) -> EV {
  let rb = r * params.rec_stride;
  let db = s * params.draw_stride + o;
  var v = draws[db];
  var e = abs(v);
  for (var j = 1u; j < params.k; j++) {
    let t = records[rb + j - 1u] * draws[db + j];
    e = e + 4.0 * abs(t) + abs(v);
    v = v + t;
  }
  return EV(v, e);
}

// log logit⁻¹(t) = min(t, 0) − log1p(e^{−|t|}), the CPU's logSigmoidFrom (logistic.ts): one exp
// of a non-positive argument and the log1p series, so nothing overflows and nothing cancels.
// Where |t| > 87, e^{−|t|} < 2⁻¹²⁵ may be a subnormal f32 (which WGSL may flush to zero): it is
// replaced by 0 with a bound on its exact value, e^{−87 + 2⁻¹⁰} < 1.7e-38 < 2.9e-31u, so no
// subnormal reaches log1p. Needs t's error bound below 2¹⁴u (the callers check).
fn ev_log_sigmoid(t: EV) -> EV {
  let a = EV(abs(t.v), t.e);
  var e = EV(0.0, 2.9e-31);
  if (a.v <= 87.0) {
    e = ev_exp(ev_neg(a));
  }
  let l = ev_log1p(e);
  if (t.v < 0.0) {
    return ev_sub(t, l);
  }
  return ev_neg(l);
}

// A log-link model's linear predictor η (Poisson, negative binomial, beta); out_of_range() where
// |η| > 60 (e⁶⁰ ≈ 1.1e26: no term or error bound overflows f32) or η's bound exceeds 2¹⁴u.
fn log_link_predictor(r: u32, s: u32) -> EV {
  let eta = linear_predictor(r, s);
  if (abs(eta.v) > 60.0 || eta.e > 16384.0) {
    return out_of_range();
  }
  return eta;
}

// The residual z − η; out_of_range() where |η| > 2⁴⁰ or η's bound exceeds 1e20u.
fn ev_residual(z: EV, eta: EV) -> EV {
  if (abs(eta.v) > 1099511627776.0 || eta.e > 1e20) {
    return out_of_range();
  }
  return ev_sub(z, eta);
}

// A residual standardised, r·(1/σ); out_of_range() where r is, or where |r/σ| > 2³⁰ or its
// bound exceeds 2⁴⁰u. Then its square, and the products the survey kernels take with |ρ| ≤ 1 or
// 1/(1 − ρ²) ≤ 2²⁰, stay far inside f32's range, bounds included.
fn ev_standardise(r: EV, inv_sigma: EV) -> EV {
  if (r.e < 0.0) {
    return out_of_range();
  }
  let t = ev_mul(r, inv_sigma);
  if (abs(t.v) > 1073741824.0 || t.e > 1099511627776.0) {
    return out_of_range();
  }
  return t;
}

// The Gaussian record term c − log σ − ½·((z − η)/σ)² (normal.ts, lognormal.ts), with z and c
// the record's constants and 1/σ, log σ the draw's; out_of_range() where ev_residual or
// ev_standardise says so (see lipschitz_gaussian.wgsl).
fn ev_gaussian(eta: EV, z: EV, c: EV, inv_sigma: EV, log_sigma: EV) -> EV {
  let t = ev_standardise(ev_residual(z, eta), inv_sigma);
  if (t.e < 0.0) {
    return out_of_range();
  }
  return ev_sub(ev_sub(c, log_sigma), ev_mul(ev_exact(0.5), ev_mul(t, t)));
}

// True unless the bit pattern is an infinity or a NaN (exponent bits all set).
fn finite_bits(v: f32) -> bool {
  return (bitcast<u32>(v) & 0x7f800000u) != 0x7f800000u;
}

@compute @workgroup_size(64)
fn evaluate(@builtin(global_invocation_id) id: vec3<u32>) {
  let r = id.x;
  let g = id.y;
  if (r >= params.n_records) {
    return;
  }
  let s0 = g * params.draws_per_group;
  let s1 = min(s0 + params.draws_per_group, params.n_draws);
  let alpha = records[r * params.rec_stride + params.k - 1u];
  var best = Best(-1.0, 0.0, params.draw_offset + s0, 0u, -1.0);
  for (var s = s0; s < s1; s++) {
    var value = 0.0;
    var err = 0.0;
    var signed = 0.0;
    if (alpha != 0.0) {
      let l = record_loglik(r, s);
      if (l.e < 0.0) {
        best.flag = 1u;
      } else {
        value = abs(alpha * l.v);
        // α carries 1u, the product 1u; 1u absolute covers underflow to zero.
        err = alpha * l.e + 2.0 * value + 1.0;
        signed = l.v;
        if (!finite_bits(value) || !finite_bits(err)) {
          best.flag = 1u;
          value = 0.0;
          err = 0.0;
          signed = 0.0;
        }
      }
    }
    if (params.write_matrix != 0u) {
      lmatrix[s * params.n_records + r] = select(value, signed, params.write_matrix == 2u);
    }
    best_merge(&best, value, -1.0, params.draw_offset + s);
    best.e = max(best.e, err);
  }
  partial[g * params.n_records + r] = best;
}

@compute @workgroup_size(64)
fn reduce(@builtin(global_invocation_id) id: vec3<u32>) {
  let r = id.x;
  if (r >= params.n_records) {
    return;
  }
  var best = Best(-1.0, 0.0, 0u, 0u, -1.0);
  if (params.first_tile == 0u) {
    best = result[r];
  }
  for (var g = 0u; g < params.n_groups; g++) {
    let p = partial[g * params.n_records + r];
    best_merge(&best, p.v, p.v2, p.arg);
    best.e = max(best.e, p.e);
    best.flag = best.flag | p.flag;
  }
  result[r] = best;
}
