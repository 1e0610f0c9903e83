/**
 * The paired difference of two estimators' values on the same Monte Carlo databases, and its
 * standard error.
 *
 * @module
 */

/** A paired difference a − b over the databases where both ran, and its Monte Carlo error. */
export interface PairedDifference {
  /** Databases with both values. */
  readonly n: number;
  /** Mean of a − b. */
  readonly mean: number;
  /** Standard error of the mean: sd(a − b)/√n. */
  readonly standardError: number;
  /** mean/standardError (0 when both are 0; ±Infinity when only the error is 0). */
  readonly z: number;
}

/**
 * The paired difference of two synthesizers' values on the same databases: pairs with a null on
 * either side are dropped, so each is compared only where both ran. Both values carry the same
 * database's sampling error, which the pairing removes; the difference is within Monte Carlo
 * error when |z| < 2 (`withinMonteCarloError`'s default z in `src/studies/verdict.ts`).
 *
 * @param pairs [a, b] per database (null where that synthesizer did not run).
 * @returns The difference; throws a RangeError when fewer than two databases have both.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pairedDifference } from "./paired_difference.ts";
 * const d = pairedDifference([[1.1, 1], [1.3, 1], [1.2, 1], [null, 1]]);
 * assert.equal(d.n, 3);
 * assert.ok(Math.abs(d.mean - 0.2) < 1e-12 && Math.abs(d.z - 0.2 / (0.1 / Math.sqrt(3))) < 1e-9);
 * ```
 */
export function pairedDifference(
  pairs: readonly (readonly [number | null, number | null])[],
): PairedDifference {
  const d = pairs.flatMap(([a, b]) => a === null || b === null ? [] : [a - b]);
  const n = d.length;
  if (n < 2) throw new RangeError(`Invalid pairs: need at least two with both values: got ${n}`);
  d.forEach((v, i) => {
    if (!Number.isFinite(v)) throw new RangeError(`Invalid pairs: difference ${i} is not finite`);
  });
  const mean = d.reduce((t, v) => t + v, 0) / n;
  const sd = Math.sqrt(d.reduce((t, v) => t + (v - mean) ** 2, 0) / (n - 1));
  const standardError = sd / Math.sqrt(n);
  const z = standardError > 0 ? mean / standardError : mean === 0 ? 0 : Math.sign(mean) * Infinity;
  return { n, mean, standardError, z };
}
