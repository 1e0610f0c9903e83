/**
 * Laplace noise for real releases, immune to the floating-point attack on the textbook Laplace
 * mechanism (Mironov 2012, "On significance of the least significant bits for differential
 * privacy", CCS). Textbook noise −b·sign(V)·ln(1 − 2|V|) in float64 reaches a set of floats that
 * depends on the released value, so the output can reveal its input exactly.
 *
 * Construction: a discrete Laplace on the grid γℤ, γ = 2^−k a power of two. The query value is
 * rounded to the grid, N = ⌊x/γ + ½⌋, computed exactly from the float's bits; the noise is
 * Z ~ Lap_ℤ(τ), P(Z = z) = tanh(1/(2τ))·e^{−|z|/τ}, with τ = t/s rational, sampled exactly from
 * uniform random bytes with BigInt arithmetic (Canonne, Kamath & Steinke 2020, "The discrete
 * Gaussian for differential privacy", NeurIPS, Algorithms 1 and 2); the release is the integer
 * N + Z, exact, then shown as the float (N + Z)·γ. No floating-point operation touches the
 * noise before the integer N + Z exists, and converting it to a float is post-processing.
 *
 * Privacy argument: if |x − x'| ≤ Δ then |N − N'| ≤ ⌈Δ/γ⌉ =: Δ_γ (rounding is monotone and
 * ⌊y + d⌋ − ⌊y⌋ ≤ ⌈d⌉), and N + Lap_ℤ(τ) is (Δ_γ/τ)-DP (the pmf ratio at any point is at most
 * e^{|N − N'|/τ}). Rounding Δ up to the grid enlarges the noise, never ε: τ = Δ_γ/ε exactly (a
 * ratio of integers, from the exact binary value of ε), so the release is ε-DP for exactly the
 * ε asked, and its noise scale in value units is γ·Δ_γ/ε ∈ [Δ/ε, (Δ + γ)/ε).
 *
 * Timing is not constant (rejection sampling); the releases are offline, where timing is not
 * observable.
 *
 * @module
 */
import { checkPositiveFinite } from "../random/arguments.ts";

/** A source of uniform random bytes: returns a fresh Uint8Array of exactly n bytes. */
export type RandomBytes = (n: number) => Uint8Array;

/** A positive rational numerator/denominator (BigInt, both ≥ 1). */
export interface Rational {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

/** The grid of a discrete Laplace release: step γ = 2^exponent and the scale τ in steps. */
export interface LaplaceGrid {
  /** k with γ = 2^k. */
  readonly exponent: number;
  /** γ = 2^exponent, a normal float64. */
  readonly step: number;
  /** τ = numerator/denominator: the noise is γ·Lap_ℤ(τ), scale γτ in value units. */
  readonly scale: Rational;
}

/** A {@linkcode LaplaceGrid} for a query of L1 sensitivity Δ, with Δ_γ = ⌈Δ/γ⌉. */
export interface LaplaceQueryGrid extends LaplaceGrid {
  /** Δ_γ = ⌈Δ/γ⌉: the sensitivity in grid steps, rounded up. */
  readonly sensitivitySteps: bigint;
}

/** Options of {@linkcode secureLaplace}. */
export interface SecureLaplaceOptions {
  /** L1 sensitivity Δ of the query (positive, finite). */
  readonly sensitivity: number;
  /** The privacy loss ε (positive, finite). */
  readonly epsilon: number;
  /** Uniform random bytes; default `crypto.getRandomValues`. Seeded sources are for tests. */
  readonly randomBytes?: RandomBytes;
}

/** Relative fineness of the grid: γ ≤ 2^−GRID_BITS times the noise scale. */
const GRID_BITS = 20;

const scratch = new DataView(new ArrayBuffer(8));

function cryptoBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}

/** x = mantissa·2^exponent exactly, mantissa odd (or 0); x finite. */
function dyadic(x: number): { mantissa: bigint; exponent: number } {
  scratch.setFloat64(0, x);
  const bits = scratch.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & 0xfffffffffffffn;
  let mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  let exponent = (biased === 0 ? 1 : biased) - 1075;
  if (mantissa === 0n) return { mantissa, exponent: 0 };
  while ((mantissa & 1n) === 0n) {
    mantissa >>= 1n;
    exponent++;
  }
  return { mantissa: bits >> 63n ? -mantissa : mantissa, exponent };
}

function bitLength(n: bigint): number {
  return n.toString(2).length;
}

/** ⌊log₂ bound⌋ − GRID_BITS for a positive finite bound, checked to give a normal γ. */
function gridExponent(name: string, bound: number, value: number): number {
  const { mantissa, exponent } = dyadic(bound);
  const k = exponent + bitLength(mantissa) - 1 - GRID_BITS;
  if (k < -1022) {
    throw new RangeError(
      `Invalid ${name}: too small for a float64 grid (step 2^${k} is subnormal): ${name}=${value}`,
    );
  }
  return k;
}

/** mantissa·2^shift as a BigInt, rounded up when shift < 0 (⌈·⌉). */
function scaleUpCeil(mantissa: bigint, shift: number): bigint {
  return shift >= 0 ? mantissa << BigInt(shift) : -((-mantissa) >> BigInt(-shift));
}

/** mantissa·2^exponent as an exact fraction of BigInts. */
function fraction(mantissa: bigint, exponent: number): Rational {
  return exponent >= 0
    ? { numerator: mantissa << BigInt(exponent), denominator: 1n }
    : { numerator: mantissa, denominator: 1n << BigInt(-exponent) };
}

/** n uniform bytes from the source, checked. */
function takeBytes(randomBytes: RandomBytes, n: number): Uint8Array {
  const bytes = randomBytes(n);
  if (!(bytes instanceof Uint8Array) || bytes.length !== n) {
    throw new TypeError(
      `Invalid randomBytes: must return a Uint8Array of ${n} bytes: got ${
        bytes instanceof Uint8Array ? `${bytes.length} bytes` : typeof bytes
      }`,
    );
  }
  return bytes;
}

/** Uniform on {0, …, n − 1} (n ≥ 1) by rejection: ⌈log₂ n⌉ random bits, redrawn while ≥ n. */
function uniformBelow(n: bigint, randomBytes: RandomBytes): bigint {
  if (n === 1n) return 0n;
  const bits = bitLength(n - 1n);
  const count = Math.ceil(bits / 8);
  const topMask = (1 << (bits - 8 * (count - 1))) - 1;
  for (;;) {
    const bytes = takeBytes(randomBytes, count);
    let r = BigInt(bytes[0] & topMask);
    for (let i = 1; i < count; i++) r = (r << 8n) | BigInt(bytes[i]);
    if (r < n) return r;
  }
}

/**
 * Bernoulli(e^{−n/d}) for 0 ≤ n/d ≤ 1 (Canonne, Kamath & Steinke 2020, Algorithm 1): draw
 * A_K ~ Bernoulli(n/(dK)) for K = 1, 2, … until the first A_K = 0; return 1 when that K is odd,
 * since P(K odd) = Σ_j (−n/d)^j/j! = e^{−n/d}.
 */
function bernoulliExpMinus(n: bigint, d: bigint, randomBytes: RandomBytes): boolean {
  let k = 1n;
  while (uniformBelow(d * k, randomBytes) < n) k++;
  return (k & 1n) === 1n;
}

/**
 * An exact draw from the discrete Laplace Lap_ℤ(τ), τ = t/s, P(Z = z) = tanh(1/(2τ))·e^{−|z|/τ}
 * (Canonne, Kamath & Steinke 2020, Algorithm 2), with integer arithmetic only: U uniform on
 * {0, …, t − 1} accepted with probability e^{−U/t}, V ~ Geometric(1 − e^{−1}) counted by
 * Bernoulli(e^{−1}) trials, X = U + tV ~ Geometric(1 − e^{−1/t}), Y = ⌊X/s⌋, a fair sign B,
 * and (B = 1, Y = 0) rejected so that 0 is not counted twice.
 *
 * @param scale τ = numerator/denominator in grid steps (both positive BigInts).
 * @param randomBytes Uniform random bytes (default `crypto.getRandomValues`).
 * @returns Z, exactly Lap_ℤ(τ)-distributed when the bytes are uniform.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sampleDiscreteLaplace } from "./secure_laplace.ts";
 * assert.equal(typeof sampleDiscreteLaplace({ numerator: 3n, denominator: 1n }), "bigint");
 * ```
 */
export function sampleDiscreteLaplace(
  scale: Rational,
  randomBytes: RandomBytes = cryptoBytes,
): bigint {
  const t = scale.numerator;
  const s = scale.denominator;
  if (typeof t !== "bigint" || typeof s !== "bigint" || t < 1n || s < 1n) {
    throw new RangeError(
      `Invalid scale: numerator and denominator must be positive BigInts: scale=${t}/${s}`,
    );
  }
  for (;;) {
    const u = uniformBelow(t, randomBytes);
    if (!bernoulliExpMinus(u, t, randomBytes)) continue;
    let v = 0n;
    while (bernoulliExpMinus(1n, 1n, randomBytes)) v++;
    const y = (u + t * v) / s;
    const negative = uniformBelow(2n, randomBytes) === 1n;
    if (negative && y === 0n) continue;
    return negative ? -y : y;
  }
}

/**
 * The grid of {@linkcode secureLaplaceNoise}: γ = the largest power of two ≤ min(2^20, b)·2^−20,
 * so γ ≤ 1 (every integer lies on the grid) and γ ≤ b·2^−20 (the grid is fine against the
 * noise); τ = b/γ exactly (b is a dyadic rational), so the noise γ·Lap_ℤ(τ) has scale exactly b.
 *
 * @param scale The Laplace scale b (positive, finite, at least 2^−1002).
 * @returns γ and τ.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { laplaceNoiseGrid } from "./secure_laplace.ts";
 * const grid = laplaceNoiseGrid(3);
 * assert.equal(grid.step, 2 ** -19);
 * assert.deepEqual(grid.scale, { numerator: 3n * 2n ** 19n, denominator: 1n });
 * ```
 */
export function laplaceNoiseGrid(scale: number): LaplaceGrid {
  checkPositiveFinite("scale", scale);
  const exponent = gridExponent("scale", Math.min(2 ** GRID_BITS, scale), scale);
  const b = dyadic(scale);
  return { exponent, step: 2 ** exponent, scale: fraction(b.mantissa, b.exponent - exponent) };
}

/**
 * The grid of {@linkcode secureLaplace} for L1 sensitivity Δ and privacy loss ε: γ = the largest
 * power of two ≤ min(Δ, Δ/ε)·2^−20 (fine against both the sensitivity and the noise scale),
 * Δ_γ = ⌈Δ/γ⌉ and τ = Δ_γ/ε exactly, so that Δ_γ/τ = ε: the grid query has sensitivity Δ_γ steps
 * and Lap_ℤ(τ) noise makes it ε-DP with ε not understated; the scale in value units is
 * γΔ_γ/ε < (Δ + γ)/ε ≤ (1 + 2^−20)·Δ/ε.
 *
 * @param sensitivity Δ (positive, finite).
 * @param epsilon ε (positive, finite; Δ/ε finite and at least 2^−1002).
 * @returns γ, τ and Δ_γ.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { laplaceQueryGrid } from "./secure_laplace.ts";
 * const grid = laplaceQueryGrid(1, 0.5);
 * assert.equal(grid.step, 2 ** -20);
 * assert.equal(grid.sensitivitySteps, 2n ** 20n);
 * assert.deepEqual(grid.scale, { numerator: 2n ** 21n, denominator: 1n });
 * ```
 */
export function laplaceQueryGrid(sensitivity: number, epsilon: number): LaplaceQueryGrid {
  checkPositiveFinite("sensitivity", sensitivity);
  checkPositiveFinite("epsilon", epsilon);
  const ratio = sensitivity / epsilon;
  if (!(ratio > 0) || !Number.isFinite(ratio)) {
    throw new RangeError(
      `Invalid epsilon: sensitivity/epsilon must be a positive finite float64: epsilon=${epsilon}`,
    );
  }
  const exponent = ratio < sensitivity
    ? gridExponent("epsilon", ratio, epsilon)
    : gridExponent("sensitivity", sensitivity, sensitivity);
  const delta = dyadic(sensitivity);
  const sensitivitySteps = scaleUpCeil(delta.mantissa, delta.exponent - exponent);
  const e = dyadic(epsilon);
  const scale = e.exponent >= 0
    ? { numerator: sensitivitySteps, denominator: e.mantissa << BigInt(e.exponent) }
    : { numerator: sensitivitySteps << BigInt(-e.exponent), denominator: e.mantissa };
  return { exponent, step: 2 ** exponent, scale, sensitivitySteps };
}

/**
 * Laplace(0, b) noise on the grid γℤ of {@linkcode laplaceNoiseGrid}: γ·Z, Z ~ Lap_ℤ(b/γ)
 * drawn exactly (see the module). Mean 0, variance 2γ²e^{−1/τ}/(1 − e^{−1/τ})² = 2b²(1 − O(τ^−2)).
 *
 * Privacy guarantee: for a query f whose values are multiples of γ (every integer-valued query,
 * e.g. histogram counts, since γ ≤ 1) with L1 sensitivity Δ, also a multiple of γ (e.g. 1 for a
 * histogram under add/remove neighbours), f(x) + noise in every coordinate is exactly
 * (Δ/b)-DP. The float addition f(x) + noise returns the correctly rounded exact sum, a
 * post-processing of it, provided the noise γZ is itself exact, i.e. |Z| ≤ 2^53; |Z| > 2^53 has
 * probability below e^{−2^53/τ} (τ = b/γ; < e^{−2^21} for b < 2^32). For a real-valued query
 * use {@linkcode secureLaplace}, which rounds the query itself and needs no such proviso.
 *
 * @param scale The Laplace scale b (positive, finite).
 * @param randomBytes Uniform random bytes (default `crypto.getRandomValues`).
 * @returns The noise, an exact multiple of γ.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { laplaceNoiseGrid, secureLaplaceNoise } from "./secure_laplace.ts";
 * const noise = secureLaplaceNoise(2);
 * assert.ok(Number.isInteger(noise / laplaceNoiseGrid(2).step));
 * ```
 */
export function secureLaplaceNoise(scale: number, randomBytes: RandomBytes = cryptoBytes): number {
  const grid = laplaceNoiseGrid(scale);
  return Number(sampleDiscreteLaplace(grid.scale, randomBytes)) * grid.step;
}

/**
 * ε-DP release of a real query value x of L1 sensitivity Δ: (N + Z)·γ with N = ⌊x/γ + ½⌋,
 * Z ~ Lap_ℤ(Δ_γ/ε) and γ, Δ_γ from {@linkcode laplaceQueryGrid}; the integer N + Z is exact
 * (BigInt) and only then converted to a float.
 *
 * Privacy guarantee: pure ε-DP for exactly the ε passed (see the module): the grid query N has
 * sensitivity ≤ Δ_γ steps and the noise has τ = Δ_γ/ε; rounding Δ up to the grid only enlarges
 * the noise scale, to γΔ_γ/ε < (1 + 2^−20)·Δ/ε. Replaces Laplace(0, Δ/ε) of the textbook
 * mechanism (Dwork, McSherry, Nissim & Smith 2006) without its floating-point leak
 * (Mironov 2012).
 *
 * @param value The query value x (finite; confidential, so errors do not echo it).
 * @param options Δ, ε and the random byte source.
 * @returns The release, an exact multiple of γ (±Infinity only if it overflows float64).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { laplaceQueryGrid, secureLaplace } from "./secure_laplace.ts";
 * const release = secureLaplace(10, { sensitivity: 1, epsilon: 1 });
 * assert.ok(Number.isInteger(release / laplaceQueryGrid(1, 1).step));
 * ```
 */
export function secureLaplace(value: number, options: SecureLaplaceOptions): number {
  if (!Number.isFinite(value)) throw new RangeError("Invalid value: must be finite");
  const grid = laplaceQueryGrid(options.sensitivity, options.epsilon);
  const x = dyadic(value);
  const shift = x.exponent - grid.exponent;
  const rounded = shift >= 0
    ? x.mantissa << BigInt(shift)
    : (x.mantissa + (1n << BigInt(-shift - 1))) >> BigInt(-shift);
  const noise = sampleDiscreteLaplace(grid.scale, options.randomBytes ?? cryptoBytes);
  return Number(rounded + noise) * grid.step;
}
