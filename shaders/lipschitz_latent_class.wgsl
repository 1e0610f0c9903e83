// The latent class model's Lipschitz pass (SPEC §1, §13; src/models/latent_class.ts), in f32:
// for each (pattern, α) group g and draw s,
//
//     t_k = log π_k + Σ_j log φ_kj[x_gj],   v_k = α_g·t_k,
//     u_g(θ_s) = m + log Σ_k e^{v_k − m} − log K,   m = max_k v_k,
//
// fused with the per-group extremes of |u| over draws (shaders/term_extremes.wgsl, prepended by
// src/gpu/term_extremes.ts: the largest and smallest |u|, their first draws, their runners-up
// and the largest error bound). Not lipschitz_common.wgsl, whose record_loglik is multiplied by
// α after the fact: here α sits inside the log-sum-exp. src/gpu/lipschitz_latent_class.ts holds
// the host side and the derivation of the error bound `err` computed below.
//
// Layout (filled on the CPU):
//   cells:  G×J u32, group g's index of column j's level within one class's φ block
//   alpha:  G f32, α_g > 0 (groups with α = 0 have u = 0 and never come here)
//   draws:  S×(K + K·W) f32, log θ of each draw in θ's own order (log π, then class by class the
//           logs of φ), every entry in [−745, 0] (draws with a θ outside (0, 1] stay on the CPU)
// `evaluate` (2-D grid: groups × chunks of draws) writes one Best per (chunk, group) into
// `partial`; term_extremes.wgsl's `reduce` merges them.

// The kernel's constants (the tile's shape is term_extremes.wgsl's `extent`).
struct Params {
  columns: u32,
  classes: u32,
  width: u32,
  draw_stride: u32,
  // γ_{J+3}/(1 − γ_{J+3}): the relative bound on each v_k's error (sums of J + 1 logs, ×α).
  rel: f32,
  // u·(4K + 20 + 10·log K): the log-sum-exp's own rounding, apart from the 2u·|m| below.
  fixed: f32,
  log_k: f32,
  pad0: u32,
}

@group(0) @binding(3) var<uniform> params: Params;
@group(0) @binding(4) var<storage, read> cells: array<u32>;
@group(0) @binding(5) var<storage, read> alpha: array<f32>;
@group(0) @binding(6) var<storage, read> draws: array<f32>;

// The most classes a thread keeps (the host sends larger K to the CPU).
const MAX_CLASSES: u32 = 64u;

@compute @workgroup_size(64)
fn evaluate(@builtin(global_invocation_id) id: vec3<u32>) {
  let g = id.x;
  let c = id.y;
  if (g >= extent.n_groups) {
    return;
  }
  let K = params.classes;
  let J = params.columns;
  let a = alpha[g];
  let at = g * J;
  let s0 = c * extent.draws_per_chunk;
  let s1 = min(s0 + extent.draws_per_chunk, extent.n_draws);
  var best = best_start(extent.draw_offset + s0);
  var v: array<f32, MAX_CLASSES>;
  for (var s = s0; s < s1; s++) {
    let base = s * params.draw_stride;
    var hi = -3.0e38;
    var lo = 0.0;
    for (var k = 0u; k < K; k++) {
      let phi = base + K + k * params.width;
      var t = draws[base + k];
      for (var j = 0u; j < J; j++) {
        t = t + draws[phi + cells[at + j]];
      }
      let vk = a * t;
      v[k] = vk;
      hi = max(hi, vk);
      lo = min(lo, vk);
    }
    // e^{v_k − m} below e^{−87} (possibly subnormal) is left out: under u in all.
    var sum = 0.0;
    for (var k = 0u; k < K; k++) {
      let d = v[k] - hi;
      if (d >= -87.0) {
        sum = sum + exp(d);
      }
    }
    let value = abs(hi + log(sum) - params.log_k);
    let err = params.rel * abs(lo) + params.fixed + 2.0 * U_F32 * abs(hi);
    best_draw(&best, value, err, extent.draw_offset + s);
  }
  partial[c * extent.n_groups + g] = best;
}
