// Philox4x32-10 counter-based random numbers (Salmon, Moraes, Dror & Shaw 2011, SC'11) in WGSL,
// the twin of `philox4x32` in src/random/rng.ts: for every counter and key the four output words
// are bit-identical (test/gpu/philox_wgsl_test.ts). WGSL has no 64-bit integers, so the high half
// of each 32×32-bit product is assembled from 16-bit halves exactly as the TypeScript does.
//
// WGSL has no include: kernels concatenate this file in front of their own source.
//
//   philox4x32(counter, key)   the Philox4x32-10 block function
//   philox_uniform(w)          a uniform f32 in (0, 1) from one 32-bit word
//   philox_normal2(w0, w1)     two independent standard normal f32 from two words (Box–Muller)

const PHILOX_M0: u32 = 0xD2511F53u;
const PHILOX_M1: u32 = 0xCD9E8D57u;
const PHILOX_W0: u32 = 0x9E3779B9u;
const PHILOX_W1: u32 = 0xBB67AE85u;
const PHILOX_TWO_PI: f32 = 6.283185307179586;

// High 32 bits of a·b (Warren, "Hacker's Delight", §8-2): with a = a₁·2¹⁶ + a₀ and
// b = b₁·2¹⁶ + b₀ every partial sum stays below 2³², so no step wraps.
fn philox_mulhi(a: u32, b: u32) -> u32 {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let t = a1 * b0 + ((a0 * b0) >> 16u);
  let u = a0 * b1 + (t & 0xffffu);
  return a1 * b1 + (t >> 16u) + (u >> 16u);
}

// Ten rounds of
// (c0, c1, c2, c3) ← (hi(M1·c2) ⊕ c1 ⊕ k0, lo(M1·c2), hi(M0·c0) ⊕ c3 ⊕ k1, lo(M0·c0)),
// the key bumped by the Weyl constants (W0, W1) after each round.
fn philox4x32(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
  var c = counter;
  var k = key;
  for (var round = 0u; round < 10u; round++) {
    let hi0 = philox_mulhi(PHILOX_M0, c.x);
    let lo0 = PHILOX_M0 * c.x;
    let hi1 = philox_mulhi(PHILOX_M1, c.z);
    let lo1 = PHILOX_M1 * c.z;
    c = vec4<u32>(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
    k = k + vec2<u32>(PHILOX_W0, PHILOX_W1);
  }
  return c;
}

// (⌊w / 2⁹⌋ + ½)·2⁻²³: the top 23 bits of w, centred in their cell (k + ½ < 2²³ needs 24
// significant bits, so the result is exact in f32), in [2⁻²⁴, 1 − 2⁻²⁴].
fn philox_uniform(w: u32) -> f32 {
  return (f32(w >> 9u) + 0.5) * (1.0 / 8388608.0);
}

// Box–Muller (Box & Muller 1958): with u₁, u₂ uniform on (0, 1), √(−2 log u₁)·(cos θ, sin θ) with
// θ = 2π(u₂ − ½) are two independent standard normals (|z| ≤ 5.8 as u₁ ≥ 2⁻²⁴). θ lies in
// [−π, π], where WGSL bounds the absolute error of cos and sin by 2⁻¹¹.
fn philox_normal2(w0: u32, w1: u32) -> vec2<f32> {
  let r = sqrt(-2.0 * log(philox_uniform(w0)));
  let theta = PHILOX_TWO_PI * (philox_uniform(w1) - 0.5);
  return r * vec2<f32>(cos(theta), sin(theta));
}
