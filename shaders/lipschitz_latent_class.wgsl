// The latent class model's Lipschitz pass (SPEC §1, §13; src/models/latent_class.ts), in f32:
// for each (pattern, α) group g and draw s,
//
//     t_k = log π_k + Σ_j log φ_kj[x_gj],   v_k = α_g·t_k,
//     u_g(θ_s) = m + log Σ_k e^{v_k − m} − log K,   m = max_k v_k,
//
// fused with the per-group maximum of |u| over draws, its first arg-max draw, the runner-up (the
// largest |u| over the other draws, equal to the largest on a tie), the same three for the
// minimum of |u| (the smallest, its first arg-min draw, the smallest over the other draws) and
// the largest error bound, which bounds both extremes' errors.
// Standalone (not lipschitz_common.wgsl, whose record_loglik is multiplied by α after the fact;
// here α sits inside the log-sum-exp). src/gpu/lipschitz_latent_class.ts holds the host side and
// the derivation of the error bound `err` computed below.
//
// Layout (filled on the CPU):
//   cells:  G×J u32, group g's index of column j's level within one class's φ block
//   alpha:  G f32, α_g > 0 (groups with α = 0 have u = 0 and never come here)
//   draws:  S×(K + K·W) f32, log θ of each draw in θ's own order (log π, then class by class the
//           logs of φ), every entry in [−745, 0] (draws with a θ outside (0, 1] stay on the CPU)
// `evaluate` (2-D grid: groups × chunks of draws) writes one Best per (chunk, group) into
// `partial`; `reduce` merges the chunks, and the running result of earlier draw tiles, in draw
// order into `result`.

struct Params {
  n_groups: u32,
  n_draws: u32,
  draws_per_chunk: u32,
  n_chunks: u32,
  columns: u32,
  classes: u32,
  width: u32,
  draw_stride: u32,
  draw_offset: u32,
  first_tile: u32,
  // γ_{J+3}/(1 − γ_{J+3}): the relative bound on each v_k's error (sums of J + 1 logs, ×α).
  rel: f32,
  // u·(4K + 20 + 10·log K): the log-sum-exp's own rounding, apart from the 2u·|m| below.
  fixed: f32,
  log_k: f32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

// A group's running extremes: the largest |u|, its error bound (absolute, over every draw), the
// draw (global index), a flag (1: recompute this group on the CPU), the runner-up |u| over every
// other draw (−1: none); then the smallest |u| (−1: none yet), its draw and the smallest |u| over
// every other draw (−1: none). |u| ≥ 0, so −1 is never a value: it stands for −∞ in the
// maximum's fields and for +∞ in the minimum's.
struct Best {
  v: f32,
  e: f32,
  arg: u32,
  flag: u32,
  v2: f32,
  lo: f32,
  lo_arg: u32,
  lo2: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> cells: array<u32>;
@group(0) @binding(2) var<storage, read> alpha: array<f32>;
@group(0) @binding(3) var<storage, read> draws: array<f32>;
@group(0) @binding(4) var<storage, read_write> partial: array<Best>;
@group(0) @binding(5) var<storage, read_write> result: array<Best>;

// The unit roundoff u = 2⁻²⁴ of f32.
const U_F32: f32 = 5.9604644775390625e-8;

// The most classes a thread keeps (the host sends larger K to the CPU).
const MAX_CLASSES: u32 = 64u;

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

// a < b for minima, −1 (none) counting as +∞: false when a is none.
fn below(a: f32, b: f32) -> bool {
  return a >= 0.0 && (b < 0.0 || a < b);
}

// The smaller of two minima, −1 (none) counting as +∞.
fn lower(a: f32, b: f32) -> f32 {
  return select(b, a, below(a, b));
}

// Merges a value (or a partial minimum with its own runner-up) into a running minimum, the
// earlier draws' minimum winning ties (the caller merges in draw order).
fn low_merge(best: ptr<function, Best>, v: f32, v2: f32, arg: u32) {
  if (below(v, (*best).lo)) {
    (*best).lo2 = lower((*best).lo, v2);
    (*best).lo = v;
    (*best).lo_arg = arg;
  } else {
    (*best).lo2 = lower((*best).lo2, v);
  }
}

// True unless the bit pattern is an infinity or a NaN (exponent bits all set).
fn finite_bits(v: f32) -> bool {
  return (bitcast<u32>(v) & 0x7f800000u) != 0x7f800000u;
}

@compute @workgroup_size(64)
fn evaluate(@builtin(global_invocation_id) id: vec3<u32>) {
  let g = id.x;
  let c = id.y;
  if (g >= params.n_groups) {
    return;
  }
  let K = params.classes;
  let J = params.columns;
  let a = alpha[g];
  let at = g * J;
  let s0 = c * params.draws_per_chunk;
  let s1 = min(s0 + params.draws_per_chunk, params.n_draws);
  let first = params.draw_offset + s0;
  var best = Best(-1.0, 0.0, first, 0u, -1.0, -1.0, first, -1.0);
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
    if (finite_bits(value) && finite_bits(err)) {
      best_merge(&best, value, -1.0, params.draw_offset + s);
      low_merge(&best, value, -1.0, params.draw_offset + s);
      best.e = max(best.e, err);
    } else {
      best.flag = 1u;
    }
  }
  partial[c * params.n_groups + g] = best;
}

@compute @workgroup_size(64)
fn reduce(@builtin(global_invocation_id) id: vec3<u32>) {
  let g = id.x;
  if (g >= params.n_groups) {
    return;
  }
  var best = Best(-1.0, 0.0, 0u, 0u, -1.0, -1.0, 0u, -1.0);
  if (params.first_tile == 0u) {
    best = result[g];
  }
  for (var c = 0u; c < params.n_chunks; c++) {
    let p = partial[c * params.n_groups + g];
    best_merge(&best, p.v, p.v2, p.arg);
    low_merge(&best, p.lo, p.lo2, p.lo_arg);
    best.e = max(best.e, p.e);
    best.flag = best.flag | p.flag;
  }
  result[g] = best;
}
