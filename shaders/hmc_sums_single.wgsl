// A thread's record sums for the models with one linear predictor η_i = x_iᵀβ per record
// (hmc_target.wgsl `tile_sums`): Σ c_i, Σ ∂c_i/∂β_j = α_i·∂ℓ_i/∂η_i·x_ij, Σ ∂c_i/∂ue and the bad
// count over the thread's records of the tile, with (ℓ_i, ∂ℓ_i/∂η_i, ∂ℓ_i/∂ue) from
// `model_record` (hmc_models.wgsl through the wrappers of src/gpu/hmc_target.ts).

fn thread_sums(c: u32, tile: u32, lid: u32) {
  let k = params.k;
  let base = c * chain_stride();
  // The intercept, the value, its gradient and the bad count in scalars; the other coefficients'
  // gradients in a private array (dynamically indexed, so kept out of the K = 1 hot path).
  let beta0 = chain_f[base + off_q()];
  var beta: array<f32, MAX_K>;
  for (var j = 1u; j < k; j++) {
    beta[j] = chain_f[base + off_q() + j];
  }
  var ue = 0.0;
  if (params.has_extra != 0u) {
    ue = chain_f[base + off_q() + extra_index()];
  }
  let kc = model_chain(ue);
  var value = 0.0;
  var g_intercept = 0.0;
  var g_extra = 0.0;
  var bad = 0.0;
  var g_beta: array<f32, MAX_K>;
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
    let eta = linear_predictor(o, beta0, &beta, 0u);
    let t = model_record(eta, vec2<f32>(recs[o], recs[o + 1u]), kc);
    if (add_term(a * t.x, &value, &bad)) {
      let g = a * t.y;
      let ge = a * t.z;
      if (!is_finite_f32(g) || !is_finite_f32(ge)) {
        bad += 1.0;
      }
      g_intercept += g;
      for (var j = 1u; j < k; j++) {
        g_beta[j] += g * recs[o + 2u + j];
      }
      g_extra += ge;
    }
  }
  red_l[lid] = value;
  red_l[WG_L + lid] = g_intercept;
  for (var j = 1u; j < k; j++) {
    red_l[(1u + j) * WG_L + lid] = g_beta[j];
  }
  red_l[(k + 1u) * WG_L + lid] = g_extra;
  red_l[(k + 2u) * WG_L + lid] = bad;
}
