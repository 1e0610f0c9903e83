// A thread's record sums for the models with one linear predictor η_il = x_iᵀβ_l per outcome
// level l = 1..P but the reference (the categorical model, P = L − 1; hmc_target.wgsl
// `tile_sums`), β_l being θ's l-th block of K coefficients: Σ c_i, Σ ∂c_i/∂β_lj =
// α_i·∂ℓ_i/∂η_il·x_ij and the bad count over the thread's records of the tile, with ℓ_i and
// ∂ℓ_i/∂η_il from `model_levels` (hmc_models.wgsl through the wrappers of
// src/gpu/hmc_target.ts). These models have no extra parameter: its gradient sum is 0.

fn thread_sums(c: u32, tile: u32, lid: u32) {
  let k = params.k;
  let levels = params.predictors;
  let nc = coefficient_count();
  let q = c * chain_stride() + off_q();
  var beta: array<f32, MAX_K>;
  for (var j = 0u; j < nc; j++) {
    beta[j] = chain_f[q + j];
  }
  var value = 0.0;
  var bad = 0.0;
  var g_beta: array<f32, MAX_K>;
  // η_i1..η_iP, then (model_levels) ∂ℓ_i/∂η_i1..∂ℓ_i/∂η_iP.
  var eta: array<f32, MAX_K>;
  let rs = params.record_stride;
  for (var r = 0u; r < RECORDS_PER_THREAD; r++) {
    let i = tile * TILE + r * WG_L + lid;
    if (i >= params.n) {
      break;
    }
    let o = i * rs;
    let a = recs[o + 2u];
    if (a == 0.0) {
      continue;
    }
    for (var l = 0u; l < levels; l++) {
      eta[l] = linear_predictor(o, beta[l * k], &beta, l * k);
    }
    let ell = model_levels(&eta, levels, vec2<f32>(recs[o], recs[o + 1u]));
    if (add_term(a * ell, &value, &bad)) {
      var finite = true;
      for (var l = 0u; l < levels; l++) {
        let g = a * eta[l];
        finite = finite && is_finite_f32(g);
        let at = l * k;
        g_beta[at] += g;
        for (var j = 1u; j < k; j++) {
          g_beta[at + j] += g * recs[o + 2u + j];
        }
      }
      if (!finite) {
        bad += 1.0;
      }
    }
  }
  red_l[lid] = value;
  for (var j = 0u; j < nc; j++) {
    red_l[(1u + j) * WG_L + lid] = g_beta[j];
  }
  red_l[(nc + 1u) * WG_L + lid] = 0.0;
  red_l[(nc + 2u) * WG_L + lid] = bad;
}
