/**
 * Identification disclosure risk of a partially synthetic outcome, in the style of Hu, Savitsky &
 * Williams (2021, "Risk-efficient Bayesian data synthesis for privacy protection", J. Survey
 * Statistics and Methodology, smab013) and Reiter & Mitra (2009, "Estimating risks of
 * identification disclosure in partially synthetic data", J. Privacy and Confidentiality): an
 * intruder who knows a record's confidential value looks for it among the synthetic records.
 *
 * @module
 */
import { type BallRadius, countInBalls } from "../mechanisms/weights.ts";

/** Identification risk summaries of one synthetic dataset. */
export interface IdentificationRisk {
  /** Σ_i T_i/c_i: the expected number of records the intruder identifies correctly. */
  readonly expectedMatchRisk: number;
  /** #{i : c_i = 1 and T_i = 1}/n: the share of records matched uniquely and correctly. */
  readonly trueMatchRate: number;
}

/**
 * Identification risk of synthetic values y* (record i's synthetic value is y*_i) against the
 * confidential y. For each confidential record i the intruder knows y_i and considers the
 * synthetic records inside the closed ball B(y_i, r_i) (|y*_j − y_i| ≤ r_i, with
 * r_i = radius·|y_i| when relative (default) or radius when absolute: the convention of CW's
 * isolation risk), guessing uniformly among them:
 * - c_i = #{j : |y*_j − y_i| ≤ r_i}, the synthetic records that match record i;
 * - T_i = 1 when record i's own synthetic value is among them (|y*_i − y_i| ≤ r_i), else 0;
 * - expected match risk = Σ_i T_i/c_i (a term with c_i = 0 is 0; T_i = 1 implies c_i ≥ 1);
 * - true match rate = #{i : c_i = 1 and T_i = 1}/n.
 * O(n log n): y* is sorted once and each ball found by two binary searches.
 *
 * @param y The confidential values (finite, at least one).
 * @param ystar The synthetic values, one per confidential record (finite, same length).
 * @param ball The radius convention.
 * @returns The expected match risk and the true match rate.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { identificationRisk } from "./risk.ts";
 * const risk = identificationRisk(new Float64Array([1, 5, 9]), new Float64Array([1.2, 5.5, 20]), {
 *   radius: 1,
 *   relative: false,
 * });
 * assert.deepEqual(risk, { expectedMatchRisk: 2, trueMatchRate: 2 / 3 });
 * ```
 */
export function identificationRisk(
  y: Float64Array,
  ystar: Float64Array,
  ball: BallRadius,
): IdentificationRisk {
  const n = y.length;
  if (n === 0) throw new RangeError("Invalid y: must not be empty");
  if (ystar.length !== n) {
    throw new RangeError(
      `Invalid ystar: has ${ystar.length} entries, expected ${n} (one per confidential record)`,
    );
  }
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(y[i])) throw new RangeError(`Invalid y: entry ${i} is not finite`);
    if (!Number.isFinite(ystar[i])) throw new RangeError(`Invalid ystar: entry ${i} is not finite`);
  }
  const counts = countInBalls(Float64Array.from(ystar).sort(), y, ball);
  const relative = ball.relative ?? true;
  let expected = 0;
  let unique = 0;
  for (let i = 0; i < n; i++) {
    const r = relative ? ball.radius * Math.abs(y[i]) : ball.radius;
    if (!(Math.abs(ystar[i] - y[i]) <= r)) continue;
    expected += 1 / counts[i];
    if (counts[i] === 1) unique++;
  }
  return { expectedMatchRisk: expected, trueMatchRate: unique / n };
}
