/**
 * Counter-based pseudo-random numbers: Philox4x32-10 (Salmon, Moraes, Dror & Shaw 2011,
 * "Parallel random numbers: as easy as 1, 2, 3", SC'11).
 *
 * A generator is a 64-bit key and a 64-bit stream id; its i-th block of four 32-bit outputs is
 * `philox4x32(counter = [i mod 2³², ⌊i / 2³²⌋, stream mod 2³², ⌊stream / 2³²⌋], key)`. Blocks
 * are a pure function of (key, counter), so streams are independent by construction and any
 * block can be computed directly. `philox4x32` uses only 32-bit unsigned integer operations (the
 * high half of a 32×32-bit product is assembled from 16-bit halves), so the same function can be
 * written in WGSL, which has no 64-bit integers, and give bit-identical outputs; `Rng` draws its
 * blocks in runs from the bit-identical WebAssembly of `philox_blocks.ts`.
 *
 * @module
 */
import { philoxBlocks } from "./philox_blocks.ts";

/** Philox4x32 multipliers and Weyl key increments (Salmon et al. 2011, §4.2; Random123). */
const M0 = 0xD2511F53;
const M1 = 0xCD9E8D57;
const W0 = 0x9E3779B9;
const W1 = 0xBB67AE85;

/** XOR masks that separate the key used to derive `split()` children from output keys. */
const SPLIT_KEY0 = 0x73706c69; // "spli"
const SPLIT_KEY1 = 0x8074696c; // high bit set: no `new Rng(seed)` key has it (seed < 2⁵³)

/** Most blocks one `Rng` computes ahead: runs of 1, 2, 4, … up to this many (256 words). */
const RUN_BLOCKS = 64;

const TWO32 = 4294967296;
const TWO_POW_MINUS_53 = 1 / 9007199254740992;

/**
 * High 32 bits of the 64-bit product of two uint32 values, from 16-bit halves
 * (Warren, "Hacker's Delight", §8-2, `mulhu`).
 *
 * With a = a₁·2¹⁶ + a₀ and b = b₁·2¹⁶ + b₀, every partial product aᵢ·bⱼ ≤ (2¹⁶ − 1)² and every
 * sum below stays under 2³², so each step is exact both as a double here and as a `u32` in WGSL.
 */
function mulhi32(a: number, b: number): number {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  const t = a1 * b0 + ((a0 * b0) >>> 16);
  const u = a0 * b1 + (t & 0xffff);
  return (a1 * b1 + (t >>> 16) + (u >>> 16)) >>> 0;
}

/**
 * The Philox4x32-10 block function (Salmon et al. 2011): four uint32 outputs from a 128-bit
 * counter and a 64-bit key, identical to Random123's `philox4x32(ctr, key)` with 10 rounds.
 *
 * @param counter Four uint32 words (c0, c1, c2, c3).
 * @param key Two uint32 words (k0, k1).
 * @returns The four output words.
 *
 * @example Random123 known-answer vector
 * ```ts
 * import assert from "node:assert/strict";
 * import { philox4x32 } from "./rng.ts";
 * const out = philox4x32(Uint32Array.of(0, 0, 0, 0), Uint32Array.of(0, 0));
 * assert.deepEqual([...out], [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]);
 * ```
 */
export function philox4x32(counter: ArrayLike<number>, key: ArrayLike<number>): Uint32Array {
  if (counter.length !== 4) {
    throw new RangeError(
      `Cannot run Philox as counter must hold 4 words: length=${counter.length}`,
    );
  }
  if (key.length !== 2) {
    throw new RangeError(`Cannot run Philox as key must hold 2 words: length=${key.length}`);
  }
  let [c0, c1, c2, c3] = Array.from(counter, (word) => word >>> 0);
  let [k0, k1] = Array.from(key, (word) => word >>> 0);
  // Round: (c0, c1, c2, c3) ← (hi(M1·c2) ⊕ c1 ⊕ k0, lo(M1·c2), hi(M0·c0) ⊕ c3 ⊕ k1, lo(M0·c0)),
  // then the key is bumped by (W0, W1).
  for (let round = 0; round < 10; round++) {
    const hi0 = mulhi32(M0, c0);
    const lo0 = Math.imul(M0, c0) >>> 0;
    const hi1 = mulhi32(M1, c2);
    const lo1 = Math.imul(M1, c2) >>> 0;
    c0 = (hi1 ^ c1 ^ k0) >>> 0;
    c1 = lo1;
    c2 = (hi0 ^ c3 ^ k1) >>> 0;
    c3 = lo0;
    k0 = (k0 + W0) >>> 0;
    k1 = (k1 + W1) >>> 0;
  }
  return Uint32Array.of(c0, c1, c2, c3);
}

function checkId(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`Invalid ${name}: must be a non-negative safe integer: ${name}=${value}`);
  }
}

/**
 * A seeded stream of Philox4x32-10 random numbers (Salmon et al. 2011).
 *
 * `new Rng(seed, stream)` uses key = (seed mod 2³², ⌊seed / 2³²⌋) and counter =
 * (block mod 2³², ⌊block / 2³²⌋, stream mod 2³², ⌊stream / 2³²⌋) for block = 0, 1, 2, …;
 * the four words of each block are returned in order by `nextUint32()`. Blocks are computed ahead
 * in runs whose length doubles from 1 to RUN_BLOCKS, so a short-lived generator computes few
 * blocks; runs change only when words are computed, never which words are returned.
 *
 * @example Same seed and stream, same numbers
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "./rng.ts";
 * const a = new Rng(42, 1);
 * const b = new Rng(42, 1);
 * assert.equal(a.uniform(), b.uniform());
 * assert.notEqual(new Rng(42, 2).uniform(), new Rng(42, 1).uniform());
 * ```
 */
export class Rng {
  #k0 = 0;
  #k1 = 0;
  #s0 = 0;
  #s1 = 0;
  #blockLo = 0;
  #blockHi = 0;
  #buffer = new Uint32Array(4);
  #next = 0;
  #end = 0;
  #runBlocks = 1;
  #spare = 0;
  #hasSpare = false;

  /**
   * @param seed A non-negative safe integer; its low and high 32-bit words are the Philox key.
   * @param stream A non-negative safe integer naming an independent stream (default 0).
   */
  constructor(seed: number, stream = 0) {
    checkId("seed", seed);
    checkId("stream", stream);
    this.#k0 = seed >>> 0;
    this.#k1 = Math.floor(seed / TWO32) >>> 0;
    this.#s0 = stream >>> 0;
    this.#s1 = Math.floor(stream / TWO32) >>> 0;
  }

  /**
   * An independent child generator, a pure function of this generator's key and stream and of
   * `stream` (not of how many numbers were drawn). The child's key and stream id are the four
   * words of philox4x32((stream mod 2³², ⌊stream / 2³²⌋, s₀, s₁), (k₀ ⊕ c₀, k₁ ⊕ c₁)), with
   * (s₀, s₁) and (k₀, k₁) this generator's stream and key and (c₀, c₁) fixed domain-separation
   * masks, so nested splits (seed → chain → replicate) land on pseudo-random 128-bit
   * (key, stream) pairs that collide only with probability about 2⁻¹²⁸ per pair.
   *
   * @param stream A non-negative safe integer naming the child.
   * @returns A new generator at the start of its sequence.
   */
  split(stream: number): Rng {
    checkId("stream", stream);
    const words = new Uint32Array(4);
    philoxBlocks(
      words,
      1,
      stream >>> 0,
      Math.floor(stream / TWO32) >>> 0,
      this.#s0,
      this.#s1,
      (this.#k0 ^ SPLIT_KEY0) >>> 0,
      (this.#k1 ^ SPLIT_KEY1) >>> 0,
    );
    const child = new Rng(0, 0);
    child.#k0 = words[0];
    child.#k1 = words[1];
    child.#s0 = words[2];
    child.#s1 = words[3];
    return child;
  }

  /**
   * The next uniformly distributed 32-bit unsigned integer (one word of a Philox block).
   *
   * @returns An integer in [0, 2³²).
   */
  nextUint32(): number {
    if (this.#next === this.#end) this.#refill();
    return this.#buffer[this.#next++];
  }

  /** Computes the next run of blocks into the buffer and advances the 64-bit block number. */
  #refill(): void {
    const blocks = this.#runBlocks;
    if (this.#buffer.length < 4 * blocks) this.#buffer = new Uint32Array(4 * blocks);
    philoxBlocks(
      this.#buffer,
      blocks,
      this.#blockLo,
      this.#blockHi,
      this.#s0,
      this.#s1,
      this.#k0,
      this.#k1,
    );
    const lo = this.#blockLo + blocks;
    this.#blockLo = lo >>> 0;
    if (lo >= TWO32) this.#blockHi = (this.#blockHi + 1) >>> 0;
    this.#next = 0;
    this.#end = 4 * blocks;
    this.#runBlocks = Math.min(2 * blocks, RUN_BLOCKS);
  }

  /**
   * A uniform number in the open interval (0, 1) with 53 random bits: k·2⁻⁵³ with
   * k = ⌊x/2⁵⌋·2²⁶ + ⌊y/2⁶⌋ from two uint32 draws x, y; k = 0 (probability 2⁻⁵³) is redrawn,
   * so results lie in [2⁻⁵³, 1 − 2⁻⁵³].
   *
   * @returns A number strictly between 0 and 1.
   */
  uniform(): number {
    for (;;) {
      const hi = this.nextUint32() >>> 5;
      const lo = this.nextUint32() >>> 6;
      const u = (hi * 67108864 + lo) * TWO_POW_MINUS_53;
      if (u > 0) return u;
    }
  }

  /**
   * A standard normal number by the Box–Muller transform (Box & Muller 1958): from uniforms
   * u₁, u₂ ∈ (0, 1), z₁ = √(−2 ln u₁)·cos(2πu₂) is returned and z₂ = √(−2 ln u₁)·sin(2πu₂) is
   * kept for the next call.
   *
   * @returns A draw from N(0, 1).
   */
  normal(): number {
    if (this.#hasSpare) {
      this.#hasSpare = false;
      return this.#spare;
    }
    const r = Math.sqrt(-2 * Math.log(this.uniform()));
    const theta = 2 * Math.PI * this.uniform();
    this.#spare = r * Math.sin(theta);
    this.#hasSpare = true;
    return r * Math.cos(theta);
  }
}
