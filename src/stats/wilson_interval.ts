/**
 * The Wilson 95% interval of a proportion (Wilson 1927).
 *
 * @module
 */

/**
 * The Wilson 95% interval of a proportion k/R (Wilson 1927), for shares such as P(Δ > 3.5)
 * over R databases: it stays inside [0, 1] and is not degenerate at k = 0.
 *
 * @param k Successes (0 ≤ k ≤ R).
 * @param total R (positive).
 * @returns [lower, upper].
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wilsonInterval } from "./wilson_interval.ts";
 * const [lo, hi] = wilsonInterval(0, 100);
 * assert.equal(lo, 0);
 * assert.ok(Math.abs(hi - 0.037) < 0.001);
 * ```
 */
export function wilsonInterval(k: number, total: number): [number, number] {
  if (!(total > 0) || !Number.isInteger(total)) {
    throw new RangeError(`Invalid total: must be a positive integer: total=${total}`);
  }
  if (!(k >= 0 && k <= total) || !Number.isInteger(k)) {
    throw new RangeError(`Invalid k: must be an integer in [0, total]: k=${k}`);
  }
  const z = 1.959963984540054;
  const p = k / total;
  const z2 = z * z;
  const centre = (p + z2 / (2 * total)) / (1 + z2 / total);
  const half = (z / (1 + z2 / total)) * Math.sqrt(p * (1 - p) / total + z2 / (4 * total * total));
  return [k === 0 ? 0 : Math.max(0, centre - half), k === total ? 1 : Math.min(1, centre + half)];
}
