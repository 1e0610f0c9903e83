/**
 * The arithmetic mean, summed left to right: the one helper for the reports' and diagnostics'
 * averages. (PSIS's estimate uses R's `mean.default`, with its residual correction, instead:
 * `psis.ts`.)
 *
 * @module
 */

/**
 * The arithmetic mean (Σ_i x_i)/n, the sum taken in index order from 0.
 *
 * @param values The values (NaN for none).
 * @returns The mean.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mean } from "./mean.ts";
 * assert.equal(mean([1, 2, 6]), 3);
 * assert.equal(mean(Float64Array.of(0.5, 1.5)), 1);
 * ```
 */
export function mean(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i];
  return s / values.length;
}
