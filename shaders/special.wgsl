// Special functions in f32 for the WGSL kernels (SPEC §5), twins of src/models/special.ts.
//
// WGSL has no include: kernels concatenate this file in front of their own source (TypeScript
// string concatenation), so every name here is global. The names are stable; other kernels rely
// on them:
//
//   lgamma_f32(x)          log Γ(x) for x > 0
//   digamma_f32(x)         ψ(x) for x > 0
//   log1p_f32(x)           log(1 + x) for x > −1, accurate near 0
//   log1p_exp_f32(x)       log(1 + eˣ) for any finite x, without overflow
//   stirling_rem_f32(x)    log Γ(x) − [(x − ½)·log x − x + ½·log 2π] for x ≥ 8
//   lgamma_stirling_f32(x) log Γ(x) by Stirling's formula, for x ≥ 8
//   HALF_LOG_2PI_F32       ½·log 2π
//   lgamma_f32_err(x, v)   bound on |lgamma_f32(x) − log Γ(x)| in units of u = 2⁻²⁴
//   log1p_f32_err(x, v)    bound on |log1p_f32(x) − log(1 + x)| in units of u
//   log1p_exp_f32_err(x, v) bound on |log1p_exp_f32(x) − log(1 + eˣ)| in units of u
//
// Error bounds. They hold for an exactly representable f32 argument and follow from WGSL's
// accuracy table (§15.7.4.1): +, −, × correctly rounded (≤ u relative), ÷ within 2.5 ULP
// (≤ 5u), exp(x) within 3 + 2|x| ULP (≤ (6 + 4|x|)u), log(x) within 2⁻²¹ = 8u absolute on
// [0.5, 2] and 3 ULP (≤ 6u relative) outside; 1 ULP ≤ 2u. Each `_err` function returns the
// first-order sum of these per-operation bounds, derived in the comment above the function it
// bounds; test/gpu/special_wgsl_test.ts checks every bound against the f64 twin at many points.
// Arguments must be normal f32 numbers (|x| ≥ 2⁻¹²⁶): WGSL may flush subnormals to zero.

const HALF_LOG_2PI_F32: f32 = 0.91893853320467274;

// Stirling's remainder δ(x) = 1/(12x) − 1/(360x³) + 1/(1260x⁵), for x ≥ 8. The first omitted
// term, 1/(1680x⁷) ≤ 2.9e-10, is below u/200; the value is at most 1/96 and its rounding error
// (one division and four products and sums on terms below 0.011) is under 0.25u.
fn stirling_rem_f32(x: f32) -> f32 {
  let r = 1.0 / x;
  let r2 = r * r;
  return r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0)));
}

// log Γ(x) for x ≥ 8 by Stirling's formula (x − ½)·log x − x + ½·log 2π + δ(x).
fn lgamma_stirling_f32(x: f32) -> f32 {
  return (x - 0.5) * log(x) - x + HALF_LOG_2PI_F32 + stirling_rem_f32(x);
}

// log Γ(x) for x > 0 (normal f32). For x ≥ 8 Stirling's formula; below, the shift
// log Γ(x) = log Γ(x + m) − log[x(x+1)…(x+m−1)] with x + m ∈ [8, 9). The loop runs at most seven
// times whatever x is (also for NaN), so it always terminates.
fn lgamma_f32(x: f32) -> f32 {
  if (x >= 8.0) {
    return lgamma_stirling_f32(x);
  }
  var p = x;
  var j = 1.0;
  for (var it = 0; it < 7; it++) {
    if (x + j >= 8.0) {
      break;
    }
    p = p * (x + j);
    j = j + 1.0;
  }
  return lgamma_stirling_f32(x + j) - log(p);
}

// Error bound of lgamma_f32 in units of u, given its computed value v.
//
// x ≥ 8: with T = (x − ½)·log x, the product T carries 1 (x − ½) + 6 (log) + 1 (×) = 8u·T;
// the three sums round within u·(T + x + 1) each; the constant and δ add under 1.3u. So the
// error is ≤ 11T + 3x + 5 ≤ 11v + 14x + 5, since T ≤ v + x for x ≥ 8.
// x < 8: the Stirling part at z = x + m ∈ [8, 9) is within 11·18.7 + 27 + 5 = 238; rounding z
// (≤ 9u) moves it by ψ(9)·9 ≤ 20; the product p of m ≤ 8 factors carries ≤ 15u relative, so
// log p is within 15 + 8 + 6|log p|; the final difference rounds within |log Γ(z)| + |log p|.
// With |log Γ(z)| ≤ 10.7 and |log p| ≤ 10.7 + |v| that is ≤ 370 + 7|v|.
fn lgamma_f32_err(x: f32, v: f32) -> f32 {
  if (x >= 8.0) {
    return 11.0 * abs(v) + 14.0 * x + 5.0;
  }
  return 370.0 + 7.0 * abs(v);
}

// The digamma function ψ(x) for x > 0 (normal f32): ψ(x) = ψ(x + m) − Σ_{j<m} 1/(x + j) with
// x + m ≥ 8, then the asymptotic series log z − 1/(2z) − 1/(12z²) + 1/(120z⁴) − 1/(252z⁶) +
// 1/(240z⁸), whose first omitted term is below 1e-11. Error ≤ u·(70 + 17/x + 9·|log x|):
// each 1/(x + j) carries 6u relative and the running sum of at most 8 of them ≤ 8u·Σ;
// log z carries 6u·log z; the series and final sums ≤ 3u·(|Σ| + 2.3).
fn digamma_f32(x: f32) -> f32 {
  var shift = 0.0;
  var j = 0.0;
  for (var it = 0; it < 8; it++) {
    if (x + j >= 8.0) {
      break;
    }
    shift = shift - 1.0 / (x + j);
    j = j + 1.0;
  }
  let z = x + j;
  let r = 1.0 / z;
  let r2 = r * r;
  let series = r2 * (1.0 / 12.0 - r2 * (1.0 / 120.0 - r2 * (1.0 / 252.0 - r2 * (1.0 / 240.0))));
  return shift + log(z) - 0.5 * r - series;
}

// log(1 + x) for x > −1, accurate near 0. On [−0.5, 1] it sums the series
// 2·atanh(z) = 2z·(1 + z²/3 + z⁴/5 + … + z¹⁶/17) with z = x/(2 + x) ∈ [−⅓, ⅓] (first omitted
// term below 2e-10 relative); outside, log(1 + x) directly. No compensated trick such as
// log(1+x)·x/((1+x)−1), which a compiler may simplify away.
fn log1p_f32(x: f32) -> f32 {
  if (x < -0.5 || x > 1.0) {
    return log(1.0 + x);
  }
  let z = x / (2.0 + x);
  let w = z * z;
  let s = 1.0 + w * (1.0 / 3.0 + w * (1.0 / 5.0 + w * (1.0 / 7.0 + w * (1.0 / 9.0 + w *
    (1.0 / 11.0 + w * (1.0 / 13.0 + w * (1.0 / 15.0 + w * (1.0 / 17.0))))))));
  return 2.0 * z * s;
}

// Error bound of log1p_f32 in units of u, given its computed value v.
// Series branch: z carries 1 (2 + x) + 5 (÷) = 6u relative, w = z² 13u; the sum s ∈ [1, 1.04]
// is within 1.9u (w's error times ds/dw·w ≤ 0.05, plus roundings); the product 1u: ≤ 9u·|v|,
// stated as 10|v|. Direct branch: rounding 1 + x moves the log by ≤ u, and log itself is within
// 8u absolute or 6u relative: ≤ 9 + 6|v|.
fn log1p_f32_err(x: f32, v: f32) -> f32 {
  if (x < -0.5 || x > 1.0) {
    return 9.0 + 6.0 * abs(v);
  }
  return 10.0 * abs(v);
}

// log(1 + eˣ) without overflow: x + log1p(e^{−x}) for x > 0, log1p(eˣ) otherwise.
fn log1p_exp_f32(x: f32) -> f32 {
  let t = log1p_f32(exp(-abs(x)));
  return select(t, x + t, x > 0.0);
}

// Error bound of log1p_exp_f32 in units of u, given its computed value v.
// t = log1p(e^{−|x|}) with e^{−|x|} ∈ (0, 1] (the series branch): exp's (6 + 4|x|)u relative
// error moves t by at most t·(6 + 4|x|) (as e/(1+e) ≤ log1p(e)), plus log1p's own 10t; for
// x > 0 the sum x + t rounds within u·(x + t).
fn log1p_exp_f32_err(x: f32, v: f32) -> f32 {
  let t = select(v, v - x, x > 0.0);
  return (16.0 + 4.0 * abs(x)) * abs(t) + select(0.0, x + abs(t), x > 0.0);
}
