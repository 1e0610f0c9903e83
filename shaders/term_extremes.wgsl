// The whole-file term kernels' shared part (SPEC §13): per group g, over the draws s, the largest
// |u_g(θ_s)| with its first arg-max draw and the runner-up (the largest |u| over the other draws,
// equal to the largest on a tie), the same three for the smallest |u| (the smallest, its first
// arg-min draw, the smallest over the other draws), the largest error bound, which bounds both
// extremes' errors, and a flag (a non-finite value or bound: the group is recomputed in f64).
// src/gpu/term_extremes.ts prepends this file to a model's kernel (lipschitz_latent_class.wgsl,
// lipschitz_bayes_net.wgsl), which declares its constants at binding 3, its inputs from binding 4
// on, and an entry point `evaluate` (2-D grid: groups × chunks of draws) that starts each thread
// at `best_start` and merges each draw with `best_draw` into `partial[chunk·n_groups + g]`;
// `reduce` here merges the chunks, and the running result of earlier draw tiles, in draw order
// into `result`.

// The tile's shape, rewritten per tile (the kernel's own constants never change within a call).
struct Extent {
  n_groups: u32,
  n_draws: u32,
  draws_per_chunk: u32,
  n_chunks: u32,
  // The tile's first kernel draw (draw indices in `Best` are global kernel rows).
  draw_offset: u32,
  // 1 on the first draw tile of a group tile: `reduce` starts afresh rather than from `result`.
  first_tile: u32,
  pad0: u32,
  pad1: u32,
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

@group(0) @binding(0) var<uniform> extent: Extent;
@group(0) @binding(1) var<storage, read_write> partial: array<Best>;
@group(0) @binding(2) var<storage, read_write> result: array<Best>;

// The unit roundoff u = 2⁻²⁴ of f32.
const U_F32: f32 = 5.9604644775390625e-8;

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

// A thread's extremes before its first draw (global kernel row `first`).
fn best_start(first: u32) -> Best {
  return Best(-1.0, 0.0, first, 0u, -1.0, -1.0, first, -1.0);
}

// Merges draw s's |u| and its error bound, or flags the group when either is not finite.
fn best_draw(best: ptr<function, Best>, value: f32, err: f32, s: u32) {
  if (finite_bits(value) && finite_bits(err)) {
    best_merge(best, value, -1.0, s);
    low_merge(best, value, -1.0, s);
    (*best).e = max((*best).e, err);
  } else {
    (*best).flag = 1u;
  }
}

@compute @workgroup_size(64)
fn reduce(@builtin(global_invocation_id) id: vec3<u32>) {
  let g = id.x;
  if (g >= extent.n_groups) {
    return;
  }
  var best = Best(-1.0, 0.0, 0u, 0u, -1.0, -1.0, 0u, -1.0);
  if (extent.first_tile == 0u) {
    best = result[g];
  }
  for (var c = 0u; c < extent.n_chunks; c++) {
    let p = partial[c * extent.n_groups + g];
    best_merge(&best, p.v, p.v2, p.arg);
    low_merge(&best, p.lo, p.lo2, p.lo_arg);
    best.e = max(best.e, p.e);
    best.flag = best.flag | p.flag;
  }
  result[g] = best;
}
