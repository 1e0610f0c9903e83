/**
 * Utility of a univariate synthesis (SPEC §7; JSM slides "Simulation: global utility comparison
 * results", "Improved utility with downscaling" and the SDR table's max-ECDF and avg-ECDF rows):
 * summary statistics of the confidential and the synthetic values, and the ECDF utility measures
 * of Woo, Reiter, Oganian & Karr (2009, "Global measures of data utility for microdata masked for
 * disclosure limitation", J. Privacy and Confidentiality).
 *
 * @module
 */
import { type SampleSummary, sampleSummary } from "../stats/sample_summary.ts";

/** Utility of synthetic values y* against confidential values y. */
export interface Utility {
  /** Summary of y. */
  readonly confidential: SampleSummary;
  /** Summary of y*. */
  readonly synthetic: SampleSummary;
  /** max over the pooled records z_j of |F(z_j) − F*(z_j)| (the slides' max-ECDF). */
  readonly ecdfMax: number;
  /** (1/(n + n*))·Σ_j (F(z_j) − F*(z_j))² over the pooled records (the slides' avg-ECDF). */
  readonly ecdfMeanSquared: number;
}

function sortedCopy(name: string, values: Float64Array): Float64Array {
  if (values.length === 0) throw new RangeError(`Invalid ${name}: must not be empty`);
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) {
      throw new RangeError(`Invalid ${name}: entry ${i} is not finite`);
    }
  }
  return Float64Array.from(values).sort();
}

/**
 * Utility of y* against y. The ECDF measures follow Woo et al. (2009) as the slides use them:
 * pool the n confidential and n* synthetic records into z_1..z_N (N = n + n*, every record once,
 * ties kept), with F and F* the empirical CDFs of y and y* (F(t) = #{y_i ≤ t}/n);
 * ecdfMax = max_j |F(z_j) − F*(z_j)| and ecdfMeanSquared = (1/N)·Σ_j (F(z_j) − F*(z_j))².
 * O((n + n*)·log(n + n*)): both samples are sorted once and merged.
 *
 * @param y The confidential values (finite, at least one).
 * @param ystar The synthetic values (finite, at least one; any length).
 * @returns The summaries and the ECDF measures.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { utilityOf } from "./utility.ts";
 * const u = utilityOf(new Float64Array([1, 2]), new Float64Array([2, 3]));
 * assert.equal(u.ecdfMax, 0.5);
 * assert.equal(u.ecdfMeanSquared, 0.1875);
 * ```
 */
export function utilityOf(y: Float64Array, ystar: Float64Array): Utility {
  const a = sortedCopy("y", y);
  const b = sortedCopy("ystar", ystar);
  const n = a.length;
  const m = b.length;
  let i = 0;
  let j = 0;
  let max = 0;
  let sumSquares = 0;
  while (i < n || j < m) {
    const t = j >= m || (i < n && a[i] <= b[j]) ? a[i] : b[j];
    const i0 = i;
    const j0 = j;
    while (i < n && a[i] === t) i++;
    while (j < m && b[j] === t) j++;
    const difference = i / n - j / m;
    const absolute = Math.abs(difference);
    if (absolute > max) max = absolute;
    sumSquares += (i - i0 + j - j0) * difference * difference;
  }
  return {
    confidential: sampleSummary(a),
    synthetic: sampleSummary(b),
    ecdfMax: max,
    ecdfMeanSquared: sumSquares / (n + m),
  };
}
