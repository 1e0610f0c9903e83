/**
 * Sample quantiles (R's type 7, `quantile.default`), for MCMC summaries, utility measures and the
 * studies.
 *
 * @module
 */

/** True when x is in non-decreasing order. */
function isSorted(x: Float64Array): boolean {
  for (let i = 1; i < x.length; i++) if (x[i] < x[i - 1]) return false;
  return true;
}

/**
 * Sample quantile of type 7 (R's default): with h = 1 + (S − 1)·p, lo = ⌊h⌋ and hi = ⌈h⌉
 * (1-based order statistics), Q(p) = (1 − (h − lo))·x₍lo₎ + (h − lo)·x₍hi₎.
 *
 * @param x Values, sorted or not (not modified).
 * @param p Probability in [0, 1].
 * @returns The interpolated order statistic.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { quantile } from "./quantile.ts";
 * assert.equal(quantile(Float64Array.of(3, 1, 2, 4), 0.5), 2.5);
 * ```
 */
export function quantile(x: Float64Array, p: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`p must be in [0, 1]: got ${p}`);
  if (x.length === 0) throw new RangeError("x must hold at least one value: got 0");
  for (let i = 0; i < x.length; i++) {
    if (Number.isNaN(x[i])) throw new RangeError(`x must not contain NaN: x[${i}] is NaN`);
  }
  return sortedQuantile(isSorted(x) ? x : x.slice().sort(), p);
}

/**
 * {@linkcode quantile} of values already sorted, without its checks (p in [0, 1], at least one
 * value, no NaN) or its scan for order: for many quantiles of one sample, sorted once.
 *
 * @param sorted Values in non-decreasing order, none NaN.
 * @param p Probability in [0, 1].
 * @returns The interpolated order statistic.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sortedQuantile } from "./quantile.ts";
 * assert.equal(sortedQuantile(Float64Array.of(1, 2, 3, 4), 0.5), 2.5);
 * ```
 */
export function sortedQuantile(sorted: Float64Array, p: number): number {
  // Computed exactly as R's quantile.default, 1-based, so h rounds the same way.
  const index = 1 + (sorted.length - 1) * p;
  const lo = Math.floor(index);
  const h = index - lo;
  const below = sorted[lo - 1];
  if (h === 0 || sorted[lo] === below) return below;
  return (1 - h) * below + h * sorted[lo];
}
