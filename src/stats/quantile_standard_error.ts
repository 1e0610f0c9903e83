/**
 * The Monte Carlo standard error of a quantile of R replicate values, for the endpoints of an
 * interval over replicates in the studies' verdicts (`src/studies/verdict.ts`).
 *
 * @module
 */
import { normalQuantile } from "./student_t.ts";

/**
 * The Monte Carlo standard error of the p-quantile of R replicate values (for the endpoints of a
 * 95% interval over replicates, p = 0.025 and 0.975): the larger of two estimates.
 *
 * - Order statistics (distribution-free): the number of values below the true quantile is
 *   Binomial(R, p), so x₍⌊Rp − z·s⌋₎ and x₍⌈Rp + z·s⌉₎ with s = √(Rp(1 − p)) (clamped to 1..R)
 *   bracket it with about 95% probability; the error is that bracket's width over 2z.
 * - Normal theory: √(p(1 − p)/R)/φ(Φ⁻¹(p)) times the values' standard deviation.
 *
 * Tied values (statistics of integer counts) collapse the first to 0, and the second assumes the
 * values are near normal (true of means and quantiles of many records); taking the larger keeps
 * either failure from understating the error. (A bootstrap of the 2.5% quantile of 100 values
 * redraws the same few order statistics and understates it too.)
 *
 * @param values The replicate values (finite, at least two).
 * @param p The probability, in (0, 1).
 * @returns The standard error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { quantileStandardError } from "./quantile_standard_error.ts";
 * const values = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100
 * // Order statistics 1 and 6 bracket the 2.5% quantile: (6 − 1)/(2·1.96) = 1.28; the normal
 * // theory gives √(0.025·0.975/100)/φ(1.96)·29.0 = 7.7 (the uniform's tail is no normal's).
 * assert.ok(quantileStandardError(values, 0.025) > 5 / 3.92);
 * ```
 */
export function quantileStandardError(values: readonly number[], p: number): number {
  const n = values.length;
  if (n < 2) throw new RangeError(`Invalid values: need at least two: got ${n}`);
  if (!(p > 0 && p < 1)) throw new RangeError(`Invalid p: must lie in (0, 1): p=${p}`);
  values.forEach((v, i) => {
    if (!Number.isFinite(v)) throw new RangeError(`Invalid values: entry ${i} is not finite`);
  });
  const sorted = Float64Array.from(values).sort();
  const z = 1.959963984540054;
  const spread = z * Math.sqrt(n * p * (1 - p));
  const lo = Math.min(Math.max(Math.floor(n * p - spread), 1), n);
  const hi = Math.min(Math.max(Math.ceil(n * p + spread), 1), n);
  const orderStatistics = (sorted[hi - 1] - sorted[lo - 1]) / (2 * z);
  const mean = sorted.reduce((t, v) => t + v, 0) / n;
  const sd = Math.sqrt(sorted.reduce((t, v) => t + (v - mean) ** 2, 0) / (n - 1));
  const q = normalQuantile(p);
  const density = Math.exp(-q * q / 2) / Math.sqrt(2 * Math.PI);
  return Math.max(orderStatistics, Math.sqrt(p * (1 - p) / n) / density * sd);
}
