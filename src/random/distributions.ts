/**
 * Samplers for the distributions the models, mechanisms and studies draw from, all driven by a
 * seeded {@link Rng} so that every draw is reproducible from (seed, stream).
 *
 * @module
 */
import type { Rng } from "./rng.ts";
import {
  checkFinite,
  checkInteger,
  checkNonNegativeFinite,
  checkPositiveFinite,
} from "./arguments.ts";

/**
 * Uniform(a, b) by a + (b − a)·U with U = `rng.uniform()` ∈ (0, 1); the result lies in [a, b]
 * (an endpoint only when rounding of a + (b − a)·U reaches it).
 *
 * @param rng The random stream.
 * @param a The lower bound (finite).
 * @param b The upper bound (finite, greater than a).
 * @returns One draw.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "./rng.ts";
 * import { sampleUniform } from "./distributions.ts";
 * const x = sampleUniform(new Rng(1), 2, 5);
 * assert.ok(x >= 2 && x <= 5);
 * ```
 */
export function sampleUniform(rng: Rng, a: number, b: number): number {
  checkFinite("a", a);
  checkFinite("b", b);
  if (!(b > a)) throw new RangeError(`Invalid b: must exceed a: a=${a}, b=${b}`);
  return a + (b - a) * rng.uniform();
}

/**
 * Normal(mean, sd²) by mean + sd·Z with Z = `rng.normal()` (Box–Muller).
 *
 * @param rng The random stream.
 * @param mean The mean (finite).
 * @param sd The standard deviation (non-negative, finite).
 * @returns One draw.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "./rng.ts";
 * import { sampleNormal } from "./distributions.ts";
 * assert.equal(sampleNormal(new Rng(1), 3, 0), 3);
 * ```
 */
export function sampleNormal(rng: Rng, mean: number, sd: number): number {
  checkFinite("mean", mean);
  checkNonNegativeFinite("sd", sd);
  return mean + sd * rng.normal();
}

/**
 * Gamma(shape, 1) for shape ≥ 1 by Marsaglia & Tsang (2000, ACM TOMS 26:363), "A simple method
 * for generating gamma variables": d = shape − 1/3, c = 1/√(9d); draw Z ~ N(0,1), V = (1 + cZ)³,
 * U ~ U(0,1); accept d·V when V > 0 and U < 1 − 0.0331·Z⁴ (squeeze) or
 * ln U < Z²/2 + d(1 − V + ln V).
 */
function standardGammaAtLeastOne(rng: Rng, shape: number): number {
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let z: number;
    let v: number;
    do {
      z = rng.normal();
      v = 1 + c * z;
    } while (v <= 0);
    v = v * v * v;
    const u = rng.uniform();
    const z2 = z * z;
    if (u < 1 - 0.0331 * z2 * z2) return d * v;
    if (Math.log(u) < 0.5 * z2 + d * (1 - v + Math.log(v))) return d * v;
  }
}

/**
 * The logarithm of a Gamma(shape, 1) draw. For shape < 1 it uses Marsaglia & Tsang's boost
 * G_shape = G_{shape+1}·U^{1/shape} on the log scale, ln G_{shape+1} + ln(U)/shape, which stays
 * finite where the draw itself underflows to 0.
 */
function logStandardGamma(rng: Rng, shape: number): number {
  if (shape >= 1) return Math.log(standardGammaAtLeastOne(rng, shape));
  const g = standardGammaAtLeastOne(rng, shape + 1);
  return Math.log(g) + Math.log(rng.uniform()) / shape;
}

/**
 * A Dirichlet(shapes) draw on the log scale: log θ_l = ln G_l − ln Σ_k G_k with G_l ~ Gamma(shape_l, 1)
 * drawn on the log scale, so that small shapes (a sparse table's a + count) do not round θ_l to 0.
 *
 * @param rng The random stream (one log-gamma draw per shape, in order).
 * @param shapes The positive, finite shapes.
 * @param out Where log θ is written (same length as `shapes`).
 * @returns `out`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "./rng.ts";
 * import { sampleLogDirichlet } from "./distributions.ts";
 * const logTheta = sampleLogDirichlet(new Rng(1), Float64Array.of(0.3, 2, 5), new Float64Array(3));
 * const total = logTheta.reduce((sum, v) => sum + Math.exp(v), 0);
 * assert.ok(Math.abs(total - 1) < 1e-12);
 * ```
 */
export function sampleLogDirichlet(
  rng: Rng,
  shapes: ArrayLike<number>,
  out: Float64Array,
): Float64Array {
  let max = -Infinity;
  for (let l = 0; l < shapes.length; l++) {
    checkPositiveFinite("shape", shapes[l]);
    out[l] = logStandardGamma(rng, shapes[l]);
    if (out[l] > max) max = out[l];
  }
  let total = 0;
  for (let l = 0; l < shapes.length; l++) total += Math.exp(out[l] - max);
  const logTotal = max + Math.log(total);
  for (let l = 0; l < shapes.length; l++) out[l] -= logTotal;
  return out;
}

/**
 * Gamma(shape, rate), density ∝ x^{shape−1} e^{−rate·x}, mean shape/rate, variance shape/rate².
 * Marsaglia & Tsang (2000) for shape ≥ 1; for shape < 1 their boost
 * G_shape = G_{shape+1}·U^{1/shape}. Very small shapes can round the draw to 0.
 *
 * @param rng The random stream.
 * @param shape The shape (positive, finite).
 * @param rate The rate (positive, finite).
 * @returns One draw.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "./rng.ts";
 * import { sampleGamma } from "./distributions.ts";
 * assert.ok(sampleGamma(new Rng(1), 2, 3) > 0);
 * ```
 */
export function sampleGamma(rng: Rng, shape: number, rate: number): number {
  checkPositiveFinite("shape", shape);
  checkPositiveFinite("rate", rate);
  if (shape >= 1) return standardGammaAtLeastOne(rng, shape) / rate;
  return Math.exp(logStandardGamma(rng, shape)) / rate;
}

/**
 * Beta(a, b) as X/(X + Y) with X ~ Gamma(a, 1), Y ~ Gamma(b, 1) independent, computed as
 * 1/(1 + exp(ln Y − ln X)) from log-scale gamma draws so that small shapes do not give 0/0.
 * The result lies in [0, 1]; it equals 0 or 1 only when the exact draw rounds there.
 *
 * @param rng The random stream.
 * @param a The first shape (positive, finite).
 * @param b The second shape (positive, finite).
 * @returns One draw.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "./rng.ts";
 * import { sampleBeta } from "./distributions.ts";
 * const x = sampleBeta(new Rng(1), 2, 5);
 * assert.ok(x > 0 && x < 1);
 * ```
 */
export function sampleBeta(rng: Rng, a: number, b: number): number {
  checkPositiveFinite("a", a);
  checkPositiveFinite("b", b);
  const logX = logStandardGamma(rng, a);
  const logY = logStandardGamma(rng, b);
  return 1 / (1 + Math.exp(logY - logX));
}

/** ln k! for k < LOG_FACTORIAL_TABLE.length, by summing logarithms. */
const LOG_FACTORIAL_TABLE = (() => {
  const table = new Float64Array(20);
  for (let k = 2; k < table.length; k++) table[k] = table[k - 1] + Math.log(k);
  return table;
})();

const HALF_LOG_TWO_PI = 0.5 * Math.log(2 * Math.PI);

/**
 * ln k! for an integer k ≥ 0: a table below 20, else Stirling's series for ln Γ(x) at x = k + 1,
 * (x − ½)ln x − x + ½ln 2π + 1/(12x) − 1/(360x³) + 1/(1260x⁵) − 1/(1680x⁷), whose truncation
 * error at x ≥ 21 is below 1/(1188·x⁹) < 2e−15.
 */
function logFactorial(k: number): number {
  if (k < LOG_FACTORIAL_TABLE.length) return LOG_FACTORIAL_TABLE[k];
  const x = k + 1;
  const r = 1 / x;
  const r2 = r * r;
  const series = r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 / 1680)));
  return (x - 0.5) * Math.log(x) - x + HALF_LOG_TWO_PI + series;
}

/** Means below this use inversion; at or above it, PTRS (whose constants assume mean ≥ 10). */
const POISSON_INVERSION_LIMIT = 10;

/**
 * Poisson by sequential-search inversion (Devroye 1986, §X.3.3): with U ~ U(0,1), the smallest k
 * with P(X ≤ k) ≥ U, the pmf updated by p_k = p_{k−1}·mean/k from p₀ = e^{−mean}.
 */
function poissonInversion(rng: Rng, mean: number): number {
  const u = rng.uniform();
  let k = 0;
  let p = Math.exp(-mean);
  let cdf = p;
  while (u > cdf && p > 0) {
    k++;
    p *= mean / k;
    cdf += p;
  }
  return k;
}

/**
 * Poisson by PTRS, the transformed rejection with squeeze of Hörmann (1993, Insurance:
 * Mathematics and Economics 12:39), "The transformed rejection method for generating Poisson
 * random variables", valid for mean ≥ 10. With b = 0.931 + 2.53√mean, a = −0.059 + 0.02483b,
 * 1/α = 1.1239 + 1.1328/(b − 3.4), v_r = 0.9277 − 3.6224/(b − 2): draw U ~ U(−½, ½),
 * V ~ U(0,1), u_s = ½ − |U|, k = ⌊(2a/u_s + b)U + mean + 0.43⌋; accept at once if u_s ≥ 0.07 and
 * V ≤ v_r; reject if k < 0 or (u_s < 0.013 and V > u_s); otherwise accept when
 * ln V + ln(1/α) − ln(a/u_s² + b) ≤ −mean + k ln(mean) − ln k!.
 */
function poissonPtrs(rng: Rng, mean: number): number {
  const logMean = Math.log(mean);
  const b = 0.931 + 2.53 * Math.sqrt(mean);
  const a = -0.059 + 0.02483 * b;
  const logInvAlpha = Math.log(1.1239 + 1.1328 / (b - 3.4));
  const vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const u = rng.uniform() - 0.5;
    const v = rng.uniform();
    const us = 0.5 - Math.abs(u);
    const k = Math.floor((2 * a / us + b) * u + mean + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    const lhs = Math.log(v) + logInvAlpha - Math.log(a / (us * us) + b);
    if (lhs <= -mean + k * logMean - logFactorial(k)) return k;
  }
}

/**
 * Poisson(mean), exact: inversion by sequential search for mean < 10 and Hörmann's (1993) PTRS
 * transformed rejection for mean ≥ 10. Mean 0 gives 0.
 *
 * @param rng The random stream.
 * @param mean The mean (non-negative, finite).
 * @returns One draw, a non-negative integer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "./rng.ts";
 * import { samplePoisson } from "./distributions.ts";
 * assert.ok(Number.isInteger(samplePoisson(new Rng(1), 1000)));
 * ```
 */
export function samplePoisson(rng: Rng, mean: number): number {
  checkNonNegativeFinite("mean", mean);
  return mean < POISSON_INVERSION_LIMIT ? poissonInversion(rng, mean) : poissonPtrs(rng, mean);
}

/**
 * Negative binomial in the NB2 parameterisation (SPEC §5): mean mu, variance mu + mu²/phi, drawn
 * as the gamma–Poisson mixture Poisson(λ) with λ ~ Gamma(shape = phi, rate = phi/mu).
 * mu = 0 gives 0.
 *
 * @param rng The random stream.
 * @param mu The mean (non-negative, finite).
 * @param phi The dispersion (positive, finite); phi → ∞ approaches Poisson(mu).
 * @returns One draw, a non-negative integer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "./rng.ts";
 * import { sampleNegBinomial } from "./distributions.ts";
 * assert.ok(Number.isInteger(sampleNegBinomial(new Rng(1), 4, 2)));
 * ```
 */
export function sampleNegBinomial(rng: Rng, mu: number, phi: number): number {
  checkNonNegativeFinite("mu", mu);
  checkPositiveFinite("phi", phi);
  if (mu === 0) return 0;
  return samplePoisson(rng, sampleGamma(rng, phi, phi / mu));
}

/**
 * Lognormal(meanlog, sdlog²) as exp(meanlog + sdlog·Z), Z ~ N(0, 1): mean exp(meanlog + sdlog²/2),
 * variance (e^{sdlog²} − 1)·e^{2·meanlog + sdlog²}.
 *
 * @param rng The random stream.
 * @param meanlog The mean of the logarithm (finite).
 * @param sdlog The standard deviation of the logarithm (non-negative, finite).
 * @returns One draw.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "./rng.ts";
 * import { sampleLognormal } from "./distributions.ts";
 * assert.ok(sampleLognormal(new Rng(1), 0, 1) > 0);
 * ```
 */
export function sampleLognormal(rng: Rng, meanlog: number, sdlog: number): number {
  checkFinite("meanlog", meanlog);
  checkNonNegativeFinite("sdlog", sdlog);
  return Math.exp(meanlog + sdlog * rng.normal());
}

/**
 * Laplace(location, scale), density e^{−|x − location|/scale}/(2·scale), by inversion of the CDF:
 * with V = U − ½, U ~ U(0,1), x = location − scale·sign(V)·ln(1 − 2|V|).
 *
 * For simulation studies only: this seeded floating-point sampler is not a privacy mechanism.
 * Real releases draw their Laplace noise from a separate secure sampler
 * (`crypto.getRandomValues` with an exact or snapped construction; Mironov 2012 showed that
 * naive floating-point Laplace noise leaks).
 *
 * @param rng The random stream.
 * @param location The location (finite).
 * @param scale The scale (positive, finite); the variance is 2·scale².
 * @returns One draw.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "./rng.ts";
 * import { sampleLaplace } from "./distributions.ts";
 * assert.ok(Number.isFinite(sampleLaplace(new Rng(1), 0, 2)));
 * ```
 */
export function sampleLaplace(rng: Rng, location: number, scale: number): number {
  checkFinite("location", location);
  checkPositiveFinite("scale", scale);
  const v = rng.uniform() - 0.5;
  const magnitude = -scale * Math.log(1 - 2 * Math.abs(v));
  return v < 0 ? location - magnitude : location + magnitude;
}

/**
 * A uniform integer in [0, k), exactly: a 32-bit word x is accepted when x < k·⌊2³²/k⌋ (the
 * largest multiple of k that fits), and x mod k is returned; otherwise it is redrawn, so every
 * residue has the same ⌊2³²/k⌋ preimages and no modulo bias remains.
 *
 * @param rng The random stream.
 * @param k The number of outcomes (an integer in [1, 2³²]).
 * @returns An integer in [0, k).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "./rng.ts";
 * import { sampleIndex } from "./distributions.ts";
 * const i = sampleIndex(new Rng(1), 6);
 * assert.ok(Number.isInteger(i) && i >= 0 && i < 6);
 * ```
 */
export function sampleIndex(rng: Rng, k: number): number {
  checkInteger("k", k, 1, 2 ** 32);
  const limit = k * Math.floor(2 ** 32 / k);
  for (;;) {
    const x = rng.nextUint32();
    if (x < limit) return x % k;
  }
}

/**
 * A uniformly random permutation of 0..n−1 by the Fisher–Yates shuffle (Durstenfeld 1964,
 * Algorithm 235): for i = n−1 down to 1, swap entry i with entry {@linkcode sampleIndex}(i + 1),
 * so each of the n! orders has probability exactly 1/n! given exact uniform indices.
 *
 * @param rng The random stream.
 * @param n The length (a non-negative integer).
 * @returns The permutation: entry r is the index placed at position r.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "./rng.ts";
 * import { samplePermutation } from "./distributions.ts";
 * const p = samplePermutation(new Rng(1), 5);
 * assert.deepEqual([...p].sort(), [0, 1, 2, 3, 4]);
 * ```
 */
export function samplePermutation(rng: Rng, n: number): Uint32Array {
  checkInteger("n", n, 0, 2 ** 32);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = sampleIndex(rng, i + 1);
    const swap = order[i];
    order[i] = order[j];
    order[j] = swap;
  }
  return order;
}
