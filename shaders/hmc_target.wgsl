// The log target Σ_i clamp(α_i·ℓ_i, ±C) + log prior + log-Jacobian and its gradient for every
// chain at once, and the leapfrog step that follows each evaluation (src/gpu/hmc.ts).
//
// Records are split into tiles of TILE records; one workgroup handles one (tile, chain) pair,
// each thread at most RECORDS_PER_THREAD (32) records, and the per-thread sums are combined by a
// tree reduction in workgroup memory, so no f32 sum runs serially over more than 32 terms. With a
// single tile (n ≤ TILE) `lik_fused` runs a chain's whole trajectory in one workgroup (evaluate,
// step, repeat L times); otherwise each leapfrog step is two dispatches, `lik_tiled` writing
// per-tile partial sums and `reduce_step` (one workgroup per chain) tree-reducing them and
// stepping.
//
// Leapfrog with a diagonal inverse metric m: the trajectory starts (hmc_adapt.wgsl) with a half
// kick p += ½εg and a drift q += εm⊙p; after each evaluation at the new q a full kick and a drift
// follow, except after the L-th, which ends with the closing half kick; the Metropolis test is
// in hmc_adapt.wgsl. (Keeping it out of these kernels, which hold workgroup barriers, makes them
// many times faster on Mesa's lavapipe.)
//
// Needs `thread_sums` (hmc_sums_single.wgsl or hmc_sums_levels.wgsl, each calling its model
// through the wrappers of src/gpu/hmc_target.ts).

const WG_L: u32 = 32u;
const RECORDS_PER_THREAD: u32 = 32u;
const TILE: u32 = WG_L * RECORDS_PER_THREAD;
const WG_R: u32 = 32u;

var<workgroup> red_l: array<f32, 608>; // WG_L * MAX_NV
var<workgroup> red_r: array<f32, 608>; // WG_R * MAX_NV

fn value_count() -> u32 {
  return coefficient_count() + 3u;
}

// η = b + Σ_{j≥1} x_ij·β_{at+j} for the record at word o: the linear predictor whose K
// coefficients start at beta[at], its intercept b = β_at passed in (a scalar in the
// one-predictor hot path).
fn linear_predictor(
  o: u32,
  intercept: f32,
  beta: ptr<function, array<f32, MAX_K>>,
  at: u32,
) -> f32 {
  var eta = intercept;
  for (var j = 1u; j < params.k; j++) {
    eta += recs[o + 2u + j] * (*beta)[at + j];
  }
  return eta;
}

// Adds a record's term c_i = α_i·ℓ_i to a thread's value, clamped to ±C under censoring; a NaN
// term (or, uncensored, an infinite one) is counted as bad instead. Returns whether c_i was taken
// unclamped, so that its gradient enters the sums.
fn add_term(cv: f32, value: ptr<function, f32>, bad: ptr<function, f32>) -> bool {
  let censored = params.censor_on != 0u;
  if (is_nan_f32(cv) || (!censored && !is_finite_f32(cv))) {
    *bad += 1.0;
    return false;
  }
  if (censored && cv > params.censor) {
    *value += params.censor;
    return false;
  }
  if (censored && cv < -params.censor) {
    *value -= params.censor;
    return false;
  }
  *value += cv;
  return true;
}

// Sums over one tile's records of c_i = clamp(α_i·ℓ_i, ±C) and of its gradient with respect to
// the M coefficients and ue (zero where clamped), plus a count of non-finite terms: each thread's
// own records by `thread_sums` (hmc_sums_single.wgsl or hmc_sums_levels.wgsl), which leaves value
// v of thread t at red_l[v·WG_L + t], then a tree reduction, after which red_l[v·WG_L] holds
// value v.
fn tile_sums(c: u32, tile: u32, lid: u32) {
  thread_sums(c, tile, lid);
  workgroupBarrier();
  let nv = value_count();
  for (var s = WG_L / 2u; s > 0u; s = s >> 1u) {
    if (lid < s) {
      for (var v = 0u; v < nv; v++) {
        red_l[v * WG_L + lid] += red_l[v * WG_L + lid + s];
      }
    }
    workgroupBarrier();
  }
}

// Adds the prior and log-Jacobian (glm_prior.ts) to the record sums, stores log π and ∇log π
// for chain c and, when running, takes the next leapfrog action.
fn finish_eval(c: u32, sums: ptr<function, array<f32, MAX_NV>>) {
  let nc = coefficient_count();
  let d = params.d;
  let base = c * chain_stride();
  let q = base + off_q();
  let g = base + off_g();
  var lp = (*sums)[0];
  var ok = (*sums)[nc + 2u] == 0.0;
  if (params.prior_kind == PRIOR_STUDENT_T) {
    // β_j ~ Student-t(ν, 0, s_j) up to its constant: −(ν+1)/2·log1p(β²/(νs²)), gradient
    // −(ν+1)β/(νs² + β²); s_j is the intercept's scale for each block's first coefficient.
    let nu1 = params.t_nu + 1.0;
    for (var j = 0u; j < nc; j++) {
      let beta = chain_f[q + j];
      let spread = select(params.t_coef_spread, params.t_intercept_spread, j % params.k == 0u);
      lp -= 0.5 * nu1 * log1p_f32(beta * beta / spread);
      let g_beta = (*sums)[1u + j] - nu1 * beta / (spread + beta * beta);
      chain_f[g + j] = g_beta;
      ok = ok && is_finite_f32(g_beta);
    }
  } else {
    for (var j = 0u; j < nc; j++) {
      let beta = chain_f[q + j];
      let log_sigma = chain_f[q + nc + j];
      let inv_var = exp(-2.0 * log_sigma);
      let z = beta * beta * inv_var;
      lp += -HALF_LOG_2PI_F32 - log_sigma - 0.5 * z +
        half_t_log(log_sigma, params.coef_nu, params.coef_inv_nu_s2, params.coef_log_norm);
      let g_beta = (*sums)[1u + j] - beta * inv_var;
      let g_sigma = z - 1.0 + half_t_grad(log_sigma, params.coef_nu, params.coef_inv_nu_s2);
      chain_f[g + j] = g_beta;
      chain_f[g + nc + j] = g_sigma;
      ok = ok && is_finite_f32(g_beta) && is_finite_f32(g_sigma);
    }
  }
  if (params.has_extra != 0u) {
    let xi = extra_index();
    let ue = chain_f[q + xi];
    lp += half_t_log(ue, params.extra_nu, params.extra_inv_nu_s2, params.extra_log_norm);
    let g_extra = (*sums)[nc + 1u] + half_t_grad(ue, params.extra_nu, params.extra_inv_nu_s2);
    chain_f[g + xi] = g_extra;
    ok = ok && is_finite_f32(g_extra);
  }
  ok = ok && is_finite_f32(lp);
  chain_f[base + off_scalar() + CS_LOGP] = lp;
  let cu = c * CU_STRIDE;
  if (params.mode == MODE_EVAL) {
    chain_u[cu + CU_BAD] = select(1u, 0u, ok);
    return;
  }
  if (!ok) {
    chain_u[cu + CU_BAD] = 1u;
  }
  let step = chain_u[cu + CU_STEP] + 1u;
  chain_u[cu + CU_STEP] = step;
  let steps = ctrl_u[CC_STEPS];
  let eps = ctrl_f[CF_EPS];
  let p = base + off_p();
  let m = off_inv_mass();
  if (step < steps) {
    for (var j = 0u; j < d; j++) {
      let pj = chain_f[p + j] + eps * chain_f[g + j];
      chain_f[p + j] = pj;
      chain_f[q + j] += eps * ctrl_f[m + j] * pj;
    }
  } else if (step == steps) {
    for (var j = 0u; j < d; j++) {
      chain_f[p + j] += 0.5 * eps * chain_f[g + j];
    }
  }
}

var<workgroup> shared_evals: u32;

// One workgroup per chain (y) when all records fit one tile: one evaluation in MODE_EVAL, else
// the iteration's L evaluations, each followed by its leapfrog action.
@compute @workgroup_size(WG_L)
fn lik_fused(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let c = wid.y;
  if (lid == 0u) {
    shared_evals = select(ctrl_u[CC_STEPS], 1u, params.mode == MODE_EVAL);
  }
  let evals = workgroupUniformLoad(&shared_evals);
  for (var e = 0u; e < evals; e++) {
    tile_sums(c, 0u, lid);
    if (lid == 0u) {
      var sums: array<f32, MAX_NV>;
      for (var v = 0u; v < value_count(); v++) {
        sums[v] = red_l[v * WG_L];
      }
      finish_eval(c, &sums);
    }
    storageBarrier();
    workgroupBarrier();
  }
}

// One workgroup per (tile x, chain y): the tile's partial sums.
@compute @workgroup_size(WG_L)
fn lik_tiled(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let c = wid.y;
  let tile = wid.x;
  tile_sums(c, tile, lid);
  if (lid < value_count()) {
    partials[(c * params.tiles + tile) * MAX_NV + lid] = red_l[lid * WG_L];
  }
}

// One workgroup per chain (x): tree-reduce the tiles' partial sums, then evaluate and step.
@compute @workgroup_size(WG_R)
fn reduce_step(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let c = wid.x;
  let nv = value_count();
  var acc: array<f32, MAX_NV>;
  for (var t = lid; t < params.tiles; t += WG_R) {
    let o = (c * params.tiles + t) * MAX_NV;
    for (var v = 0u; v < nv; v++) {
      acc[v] += partials[o + v];
    }
  }
  for (var v = 0u; v < nv; v++) {
    red_r[v * WG_R + lid] = acc[v];
  }
  workgroupBarrier();
  for (var s = WG_R / 2u; s > 0u; s = s >> 1u) {
    if (lid < s) {
      for (var v = 0u; v < nv; v++) {
        red_r[v * WG_R + lid] += red_r[v * WG_R + lid + s];
      }
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    var sums: array<f32, MAX_NV>;
    for (var v = 0u; v < nv; v++) {
      sums[v] = red_r[v * WG_R];
    }
    finish_eval(c, &sums);
  }
}
