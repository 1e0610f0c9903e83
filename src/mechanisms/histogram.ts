/**
 * The perturbed histogram (Wasserman & Zhou 2010, "A statistical framework for differential
 * privacy", JASA 105:375, §4; SPEC §4; JSM slides "Synthesizer #5"): K equal bins on public
 * bounds [a, b], Laplace noise on each count, negatives set to 0, normalised, and synthetic values
 * drawn by picking a bin and then a uniform point inside it.
 *
 * Privacy guarantee: ε-DP under add/remove neighbours, the one relation of every ppsynth mechanism
 * (`privacy.ts`): adding or removing one record changes one bin's count by 1, so the count vector
 * has L1 sensitivity 1 and Laplace(0, 1/ε) noise per bin gives ε-DP. Drawing n synthetic values
 * releases n, which the data owner declares public at registration (SPEC §11); the
 * clamping, normalisation and every synthetic draw are post-processing, so any number of
 * synthetic datasets drawn from one histogram costs ε in total. This holds only when [a, b] is
 * public (not read off the data) and the noise comes from a secure sampler.
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { checkPositiveFinite } from "../random/arguments.ts";

/** L1 sensitivity of the bin counts under add/remove neighbours. */
export const HISTOGRAM_SENSITIVITY = 1;

/** A released histogram: noisy counts, their normalised probabilities, and the bin edges. */
export interface NoisyHistogram {
  /** Noisy counts clamped at 0, per bin (length K). */
  readonly counts: Float64Array;
  /** counts normalised to sum 1; uniform 1/K when every noisy count is ≤ 0 (length K). */
  readonly probabilities: Float64Array;
  /** Bin edges a = e_0 < e_1 < … < e_K = b; bin j is [e_j, e_{j+1}), the last one closed. */
  readonly edges: Float64Array;
  /**
   * One bin per level of a binary or categorical outcome (bin j holds code j): a draw is the
   * bin's code, not a point inside it.
   */
  readonly levels?: boolean;
}

/** Options of {@linkcode perturbedHistogram}. */
export interface PerturbedHistogramOptions {
  /** Public lower bound a (finite). */
  readonly lower: number;
  /** Public upper bound b (finite, > a). */
  readonly upper: number;
  /** Number of bins K (positive integer); default ⌈n^{1/3}⌉. */
  readonly bins?: number;
  /** The privacy loss ε (positive, finite). */
  readonly epsilon: number;
  /**
   * Draws one Laplace(0, scale) variate. Studies pass the seeded `sampleLaplace`; a real release
   * passes a secure sampler.
   */
  readonly noise: (scale: number) => number;
}

/** ⌈n^{1/3}⌉ computed exactly: the smallest integer K with K³ ≥ n. */
function defaultBins(n: number): number {
  let k = Math.ceil(Math.cbrt(n));
  while (k > 1 && (k - 1) ** 3 >= n) k--;
  while (k ** 3 < n) k++;
  return k;
}

/**
 * Builds the ε-DP perturbed histogram of y on [lower, upper] (see the module's privacy
 * guarantee): count_j + Laplace(0, 1/ε) per bin, negatives set to 0, normalised. If every noisy
 * count is ≤ 0 the probabilities fall back to 1/K per bin, the uniform distribution on
 * [lower, upper] (post-processing, so still ε-DP).
 *
 * A value outside [lower, upper] is an error naming its row, not clipped: a DP release needs
 * bounds fixed in advance, and silent clipping would hide that they do not hold.
 *
 * @param y The confidential values (finite, within the bounds, at least one).
 * @param options Bounds, bins, ε and the noise sampler.
 * @returns The noisy histogram.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { perturbedHistogram } from "./histogram.ts";
 * const h = perturbedHistogram(new Float64Array([0.1, 0.2, 0.7, 0.9]), {
 *   lower: 0, upper: 1, bins: 2, epsilon: 1, noise: () => 0,
 * });
 * assert.deepEqual([...h.counts], [2, 2]);
 * assert.deepEqual([...h.probabilities], [0.5, 0.5]);
 * ```
 */
export function perturbedHistogram(
  y: Float64Array,
  options: PerturbedHistogramOptions,
): NoisyHistogram {
  const { lower, upper, epsilon, noise } = options;
  if (!Number.isFinite(lower)) {
    throw new RangeError(`Invalid lower: must be finite: lower=${lower}`);
  }
  if (!Number.isFinite(upper) || !(upper > lower)) {
    throw new RangeError(
      `Invalid upper: must be finite and above lower: lower=${lower}, upper=${upper}`,
    );
  }
  checkPositiveFinite("epsilon", epsilon);
  if (typeof noise !== "function") throw new TypeError("Invalid noise: must be a function");
  const n = y.length;
  if (n === 0) throw new RangeError("Invalid y: must not be empty");
  const bins = options.bins ?? defaultBins(n);
  if (!Number.isSafeInteger(bins) || bins < 1) {
    throw new RangeError(`Invalid bins: must be a positive integer: bins=${bins}`);
  }
  const edges = new Float64Array(bins + 1);
  const width = upper - lower;
  for (let j = 0; j < bins; j++) edges[j] = lower + (width * j) / bins;
  edges[bins] = upper;
  for (let j = 1; j <= bins; j++) {
    if (!(edges[j] > edges[j - 1])) {
      throw new RangeError(
        `Invalid bins: too many for the bounds' floating-point resolution: bins=${bins}`,
      );
    }
  }
  const counts = new Float64Array(bins);
  for (let i = 0; i < n; i++) {
    const v = y[i];
    if (!(v >= lower && v <= upper)) {
      throw new RangeError(
        `Invalid y: row ${i} (0-based) is outside the public bounds [${lower}, ${upper}] or not finite`,
      );
    }
    let j = Math.min(bins - 1, Math.floor(((v - lower) / width) * bins));
    while (j > 0 && v < edges[j]) j--;
    while (j < bins - 1 && v >= edges[j + 1]) j++;
    counts[j]++;
  }
  const scale = HISTOGRAM_SENSITIVITY / epsilon;
  let total = 0;
  for (let j = 0; j < bins; j++) {
    const e = noise(scale);
    if (!Number.isFinite(e)) {
      throw new RangeError(`Invalid noise: returned a non-finite value: ${e}`);
    }
    const noisy = counts[j] + e;
    counts[j] = noisy > 0 ? noisy : 0;
    total += counts[j];
  }
  const probabilities = new Float64Array(bins);
  for (let j = 0; j < bins; j++) probabilities[j] = total > 0 ? counts[j] / total : 1 / bins;
  return { counts, probabilities, edges };
}

/**
 * Draws n synthetic values from a histogram: bin j with probability p_j (by inversion of the
 * cumulative probabilities, one uniform), then a point e_j + (e_{j+1} − e_j)·U inside it.
 * O(n log K).
 *
 * @param hist The histogram (probabilities ≥ 0 with a positive sum; increasing edges).
 * @param n How many values (non-negative integer).
 * @param rng The random stream.
 * @returns The synthetic values.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "../random/rng.ts";
 * import { sampleFromHistogram } from "./histogram.ts";
 * const hist = {
 *   counts: new Float64Array([0, 3]),
 *   probabilities: new Float64Array([0, 1]),
 *   edges: new Float64Array([0, 1, 2]),
 * };
 * const draws = sampleFromHistogram(hist, 5, new Rng(1));
 * assert.ok(draws.every((v) => v >= 1 && v <= 2));
 * ```
 */
export function sampleFromHistogram(hist: NoisyHistogram, n: number, rng: Rng): Float64Array {
  const { probabilities, edges } = hist;
  const bins = probabilities.length;
  if (bins === 0 || edges.length !== bins + 1) {
    throw new RangeError(
      `Invalid hist: ${bins} probabilities need ${bins + 1} edges, got ${edges.length}`,
    );
  }
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError(`Invalid n: must be a non-negative integer: n=${n}`);
  }
  const cumulative = new Float64Array(bins);
  let total = 0;
  for (let j = 0; j < bins; j++) {
    const p = probabilities[j];
    if (!(p >= 0) || !Number.isFinite(p)) {
      throw new RangeError(`Invalid hist: probability ${j} is not finite and non-negative`);
    }
    if (
      !(edges[j + 1] > edges[j]) || !Number.isFinite(edges[j]) || !Number.isFinite(edges[j + 1])
    ) {
      throw new RangeError(`Invalid hist: edges are not finite and increasing at bin ${j}`);
    }
    total += p;
    cumulative[j] = total;
  }
  if (!(total > 0)) throw new RangeError("Invalid hist: probabilities sum to 0");
  let last = bins - 1;
  while (probabilities[last] === 0) last--;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    // The first bin whose cumulative probability exceeds t ∈ (0, total) has p_j > 0.
    const t = rng.uniform() * total;
    let lo = 0;
    let hi = bins;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid] > t) hi = mid;
      else lo = mid + 1;
    }
    const j = lo < bins ? lo : last;
    if (hist.levels) {
      out[i] = j;
      continue;
    }
    const left = edges[j];
    const right = edges[j + 1];
    const v = left + (right - left) * rng.uniform();
    out[i] = v > right ? right : v;
  }
  return out;
}
