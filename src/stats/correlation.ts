/**
 * The Pearson correlation of two samples.
 *
 * @module
 */
import { mean } from "./mean.ts";

/**
 * Pearson correlation of two equal-length samples.
 *
 * @param x The first sample.
 * @param y The second sample, as long as `x`.
 *
 * @example A linear relation has correlation ±1
 * ```ts
 * import assert from "node:assert/strict";
 * import { correlation } from "./correlation.ts";
 * const x = new Float64Array([1, 2, 3, 4]);
 * assert.ok(Math.abs(correlation(x, x.map((v) => 5 - 2 * v)) + 1) < 1e-15);
 * ```
 */
export function correlation(x: Float64Array, y: Float64Array): number {
  const n = x.length;
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}
