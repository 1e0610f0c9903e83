// Per-record log-likelihood terms of the SPEC §5 regression models in f32, twins of the f64
// loops in src/models/*.ts. For a model X with one linear predictor per record:
//
//   X_chain(ue) -> vec4<f32>            per-chain constants from the model's own unconstrained
//                                       parameter ue = u[2K] (unused by the Poisson model)
//   X_record(eta, r, kc) -> vec3<f32>   (ℓ_i, ∂ℓ_i/∂η_i, ∂ℓ_i/∂ue) at η_i = x_iᵀβ, with r the
//                                       record's two precomputed values (src/gpu/hmc_target.ts)
//
// and for a model X with one per outcome level but the reference (no extra parameter):
//
//   X_levels(eta, P, r) -> f32          ℓ_i at the P linear predictors in eta, which it replaces
//                                       with ∂ℓ_i/∂η_il
//
// src/gpu/hmc_target.ts appends `model_chain`/`model_record` (or `model_levels`) wrappers that
// pick one model.
// Uses lgamma_f32, digamma_f32, log1p_f32 and stirling_rem_f32 from special.wgsl.

// Poisson, r = (y, log Γ(y+1)): ℓ = y·η − e^η − log Γ(y+1), ∂ℓ/∂η = y − e^η.
fn poisson_chain(ue: f32) -> vec4<f32> {
  return vec4<f32>(0.0);
}

fn poisson_record(eta: f32, r: vec2<f32>, kc: vec4<f32>) -> vec3<f32> {
  let mu = exp(eta);
  return vec3<f32>(r.x * eta - mu - r.y, r.x - mu, 0.0);
}

// S(x) = Σ_k B_2k/(2k·x^(2k)) through x⁻⁸, so that ψ(x) ≈ log x − 1/(2x) − S(x) for x ≥ 8
// (the series of special.wgsl's digamma_f32).
fn digamma_series_f32(x: f32) -> f32 {
  let r = 1.0 / x;
  let r2 = r * r;
  return r2 * (1.0 / 12.0 - r2 * (1.0 / 120.0 - r2 * (1.0 / 252.0 - r2 * (1.0 / 240.0))));
}

// log(1 + z) − z without cancellation for small z: on [−½, 1], with w = z/(2 + z),
// log1p(z) = 2·atanh(w) and 2w − z = −z²/(2 + z), so the result is
// −z²/(2 + z) + 2(w³/3 + w⁵/5 + … + w¹⁷/17) (|w| ≤ ⅓; first omitted term below 1e-10 of the
// leading one); outside, the plain difference.
fn log1pmx_f32(z: f32) -> f32 {
  if (z < -0.5 || z > 1.0) {
    return log1p_f32(z) - z;
  }
  let w = z / (2.0 + z);
  let w2 = w * w;
  let series = 1.0 / 3.0 + w2 * (1.0 / 5.0 + w2 * (1.0 / 7.0 + w2 * (1.0 / 9.0 + w2 *
    (1.0 / 11.0 + w2 * (1.0 / 13.0 + w2 * (1.0 / 15.0 + w2 * (1.0 / 17.0)))))));
  return -z * z / (2.0 + z) + 2.0 * w * w2 * series;
}

// Logistic regression (logistic.ts), r = (s, 0) with s = 2y − 1 = ±1 and t = s·η:
// ℓ = log logit⁻¹(t) = −log(1 + e^{−t}), ∂ℓ/∂η = s·logit⁻¹(−t). No extra parameter.
fn logistic_chain(ue: f32) -> vec4<f32> {
  return vec4<f32>(0.0);
}

fn logistic_record(eta: f32, r: vec2<f32>, kc: vec4<f32>) -> vec3<f32> {
  let t = r.x * eta;
  return vec3<f32>(-log1p_exp_f32(-t), r.x * sigmoid_f32(-t), 0.0);
}

// Negative binomial NB2 (negbin.ts), ue = log(1/φ), kc = (φ, log φ, log Γ(φ), ψ(φ)) with the last
// two only needed (and only computed) for φ < 8.
fn negbin_chain(ue: f32) -> vec4<f32> {
  let phi = exp(-ue);
  var lg = 0.0;
  var psi = 0.0;
  if (phi < 8.0) {
    lg = lgamma_f32(phi);
    psi = digamma_f32(phi);
  }
  return vec4<f32>(phi, -ue, lg, psi);
}

// r = (y, log Γ(y+1)); with d = η − log φ, t = e^d, L = log(1 + t), s = t/(1 + t):
// ℓ = log Γ(y+φ) − log Γ(φ) − log Γ(y+1) − (φ + y)·L + y·d, ∂ℓ/∂η = y − (y + φ)·s,
// ∂ℓ/∂ue = φ·(L − s) + y·(1 − s) − φ·[ψ(y+φ) − ψ(φ)].
// For φ ≥ 8, log Γ(y+φ) − log Γ(φ) is Stirling's formula on both terms (special.ts
// `logPochhammer`), (φ − ½)·log1p(y/φ) + y·(log(φ+y) − 1) + δ(φ+y) − δ(φ), free of the
// cancellation of the plain difference. Towards the Poisson limit (φ ≫ y, μ) the three terms
// of ∂ℓ/∂ue are each about y while their sum is about ((y − μ)² − y)/(2φ); so for φ ≥ 8 it is
// evaluated, with x = y/φ, b = φ + y, l(z) = log1p(z) − z and the asymptotic ψ series, as
// φ·[l(t) + t²/(1+t)] − φ·l(x) − y·s − y/(2b) + φ·[S(b) − S(φ)]
// (the first bracket only for t ≤ 1; for t > 1 φ·(L − s) has no cancellation).
fn negbin_record(eta: f32, r: vec2<f32>, kc: vec4<f32>) -> vec3<f32> {
  let y = r.x;
  let phi = kc.x;
  let d = eta - kc.y;
  let e = exp(-abs(d));
  let inv = 1.0 / (1.0 + e);
  let log_one_plus = max(d, 0.0) + log1p_f32(e);
  let s = select(e * inv, inv, d >= 0.0);
  let g_eta = y - (y + phi) * s;
  if (phi >= 8.0) {
    let b = phi + y;
    let l = (phi - 0.5) * log1p_f32(y / phi) + y * (log(b) - 1.0) +
      (stirling_rem_f32(b) - stirling_rem_f32(phi)) - r.y - (phi + y) * log_one_plus + y * d;
    var g_t = phi * (log_one_plus - s);
    if (d <= 0.0) {
      g_t = phi * (log1pmx_f32(e) + e * e * inv);
    }
    let g_ue = g_t - phi * log1pmx_f32(y / phi) - y * s - 0.5 * y / b +
      phi * (digamma_series_f32(b) - digamma_series_f32(phi));
    return vec3<f32>(l, g_eta, g_ue);
  }
  let one_minus_s = select(inv, e * inv, d >= 0.0);
  let l = lgamma_f32(phi + y) - kc.z - r.y - (phi + y) * log_one_plus + y * d;
  let g_ue = phi * (log_one_plus - s) + y * one_minus_s - phi * (digamma_f32(phi + y) - kc.w);
  return vec3<f32>(l, g_eta, g_ue);
}

// Beta regression (beta.ts), ue = log(1/φ), kc = (φ, log Γ(φ), ψ(φ), 0).
fn beta_chain(ue: f32) -> vec4<f32> {
  let phi = exp(-ue);
  return vec4<f32>(phi, lgamma_f32(phi), digamma_f32(phi), 0.0);
}

// r = (log y, log(1 − y)); μ = logit⁻¹(η), p = μφ, q = (1 − μ)φ:
// ℓ = log Γ(φ) − log Γ(p) − log Γ(q) + (p − 1)·log y + (q − 1)·log(1 − y),
// ∂ℓ/∂η = φμ(1−μ)·[ψ(q) − ψ(p) + log y − log(1 − y)],
// ∂ℓ/∂ue = −φ·[ψ(φ) − μψ(p) − (1−μ)ψ(q) + μ·log y + (1−μ)·log(1 − y)].
// When p, q ≥ 8 the log Γ and ψ terms, each of order φ·log φ, cancel to O(1); there Stirling's
// formula and the asymptotic ψ series are combined by hand first (with a = log(y/μ),
// b = log((1−y)/(1−μ))):
// ℓ = ½·log(φμ(1−μ)) − ½·log 2π − log y − log(1−y) + φ(μa + (1−μ)b) + δ(φ) − δ(p) − δ(q),
// ψ(q) − ψ(p) + log y − log(1−y) = a − b + 1/(2p) − 1/(2q) + S(p) − S(q),
// ψ(φ) − μψ(p) − (1−μ)ψ(q) + μ log y + (1−μ) log(1−y)
//   = μa + (1−μ)b + 1/(2φ) − S(φ) + μS(p) + (1−μ)S(q).
fn beta_record(eta: f32, r: vec2<f32>, kc: vec4<f32>) -> vec3<f32> {
  let phi = kc.x;
  let mu = sigmoid_f32(eta);
  let nu = sigmoid_f32(-eta);
  let p = mu * phi;
  let q = nu * phi;
  if (p >= 8.0 && q >= 8.0) {
    let log_mu = -log1p_exp_f32(-eta);
    let log_nu = -log1p_exp_f32(eta);
    let a = r.x - log_mu;
    let b = r.y - log_nu;
    let l = 0.5 * (log(phi) + log_mu + log_nu) - HALF_LOG_2PI_F32 - r.x - r.y +
      phi * (mu * a + nu * b) + stirling_rem_f32(phi) - stirling_rem_f32(p) - stirling_rem_f32(q);
    let s_p = digamma_series_f32(p);
    let s_q = digamma_series_f32(q);
    let g_eta = phi * mu * nu * (a - b + 0.5 / p - 0.5 / q + s_p - s_q);
    let g_ue = -phi * (mu * a + nu * b + 0.5 / phi - digamma_series_f32(phi) + mu * s_p + nu * s_q);
    return vec3<f32>(l, g_eta, g_ue);
  }
  let l = kc.y - lgamma_f32(p) - lgamma_f32(q) + (p - 1.0) * r.x + (q - 1.0) * r.y;
  let psi_p = digamma_f32(p);
  let psi_q = digamma_f32(q);
  let g_eta = phi * mu * nu * (psi_q - psi_p + r.x - r.y);
  let g_ue = -phi * (kc.z - mu * psi_p - nu * psi_q + mu * r.x + nu * r.y);
  return vec3<f32>(l, g_eta, g_ue);
}

// Normal and lognormal regression (normal.ts `GaussianRegression`), ue = log σ,
// kc = (σ⁻², log σ, 0, 0).
fn gaussian_chain(ue: f32) -> vec4<f32> {
  return vec4<f32>(exp(-2.0 * ue), ue, 0.0, 0.0);
}

// r = (z, c) with z the response on the normal scale and c the record's constant:
// ℓ = c − log σ − (z − η)²/(2σ²), ∂ℓ/∂η = (z − η)/σ², ∂ℓ/∂ue = (z − η)²/σ² − 1.
fn gaussian_record(eta: f32, r: vec2<f32>, kc: vec4<f32>) -> vec3<f32> {
  let res = r.x - eta;
  let q = res * res * kc.x;
  return vec3<f32>(r.y - kc.y - 0.5 * q, res * kc.x, q - 1.0);
}

// Categorical (multinomial logit, categorical.ts), a model with P = L − 1 linear predictors per
// record (hmc_sums_levels.wgsl): eta holds η_1..η_P at 0..P−1 (η_0 = 0 for the reference level)
// and r = (y, 0) with y the record's level code. With m = max(0, max_l η_l), the largest at level
// `top`, and s = Σ_{l ≠ top} e^{η_l − m} ∈ [0, P] (no exponential overflows, nothing cancels):
// ℓ = (η_y − m) − log1p(s), ∂ℓ/∂η_l = 1[y = l] − p_l with p_l = e^{η_l − m}/(1 + s).
// Returns ℓ and replaces eta[l − 1] with ∂ℓ/∂η_l.
fn categorical_levels(eta: ptr<function, array<f32, MAX_K>>, predictors: u32, r: vec2<f32>) -> f32 {
  let y = u32(r.x);
  var m = 0.0;
  var top = 0u;
  var eta_y = 0.0;
  for (var l = 1u; l <= predictors; l++) {
    let e = (*eta)[l - 1u];
    if (e > m) {
      m = e;
      top = l;
    }
    if (l == y) {
      eta_y = e;
    }
  }
  var s = select(exp(-m), 0.0, top == 0u);
  for (var l = 1u; l <= predictors; l++) {
    let e = exp((*eta)[l - 1u] - m);
    (*eta)[l - 1u] = e;
    if (l != top) {
      s += e;
    }
  }
  let inv = 1.0 / (1.0 + s);
  for (var l = 1u; l <= predictors; l++) {
    (*eta)[l - 1u] = select(0.0, 1.0, l == y) - (*eta)[l - 1u] * inv;
  }
  return (eta_y - m) - log1p_f32(s);
}
