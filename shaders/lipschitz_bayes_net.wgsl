// The Bayesian network's Lipschitz pass (SPEC §13; src/models/bayes_net.ts), in f32: for each
// (codes, α) group g and draw s,
//
//     u_g(θ_s) = α_g·Σ_t θ_s[o_{s,t} + c_{g,k_{s,t}}],
//
// o_{s,t} the offset of column t's table in draw s (its parent set is the draw's own) and
// c_{g,k} group g's cell in the k-th distinct (column, parent set) table of the fit, fused with
// the per-group extremes of |u| over draws (shaders/term_extremes.wgsl, prepended by
// src/gpu/term_extremes.ts). src/gpu/lipschitz_bayes_net.ts holds the host side and the
// derivation of the error bound `err` computed below.
//
// Layout (filled on the CPU):
//   cells:     G×keys u32, group g's cell index in each distinct (column, parent set) table
//   alpha:     G f32, α_g > 0 (groups with α = 0 have u = 0 and never come here)
//   draws:     S×dim f32, the draws as they are (log θ of every table), every table entry in
//              [−2¹⁰⁰, 0] (other draws stay on the CPU)
//   structure: S×2T u32, per draw the T table offsets o_{s,t}, then the T table keys k_{s,t}
// `evaluate` (2-D grid: groups × chunks of draws) writes one Best per (chunk, group) into
// `partial`; term_extremes.wgsl's `reduce` merges them.

// The kernel's constants (the tile's shape is term_extremes.wgsl's `extent`).
struct Params {
  columns: u32,
  keys: u32,
  draw_stride: u32,
  structure_stride: u32,
  // γ_{T+2}/(1 − γ_{T+2}): the relative bound on u's error (a sum of T logs, ×α).
  rel: f32,
  // (2T + 2)·2⁻¹²⁶: subnormals flushed to zero (an input, a partial sum, the product).
  fixed: f32,
  pad0: u32,
  pad1: u32,
}

@group(0) @binding(3) var<uniform> params: Params;
@group(0) @binding(4) var<storage, read> cells: array<u32>;
@group(0) @binding(5) var<storage, read> alpha: array<f32>;
@group(0) @binding(6) var<storage, read> draws: array<f32>;
@group(0) @binding(7) var<storage, read> structure: array<u32>;

@compute @workgroup_size(64)
fn evaluate(@builtin(global_invocation_id) id: vec3<u32>) {
  let g = id.x;
  let c = id.y;
  if (g >= extent.n_groups) {
    return;
  }
  let T = params.columns;
  let a = alpha[g];
  let at = g * params.keys;
  let s0 = c * extent.draws_per_chunk;
  let s1 = min(s0 + extent.draws_per_chunk, extent.n_draws);
  var best = best_start(extent.draw_offset + s0);
  for (var s = s0; s < s1; s++) {
    let base = s * params.draw_stride;
    let tables = s * params.structure_stride;
    var sum = 0.0;
    for (var t = 0u; t < T; t++) {
      sum = sum + draws[base + structure[tables + t] + cells[at + structure[tables + T + t]]];
    }
    let value = abs(a * sum);
    let err = params.rel * value + params.fixed;
    best_draw(&best, value, err, extent.draw_offset + s);
  }
  partial[c * extent.n_groups + g] = best;
}
