/**
 * Re-weighting of a vector-weighted synthesizer (vector-weighted paper, §3.1, eq. 3.1 and
 * Algorithm 3; SPEC §2 "LW_final"/"CW_final"): raise the weight of every record whose Lipschitz
 * bound lies below the database bound, so that the bounds line up under the maximum and utility
 * improves at the same ε. The refit and the search over k live in the pipeline; this module holds
 * the pure steps.
 *
 * @module
 */
import { pairedLength } from "./weights.ts";
import { checkPositiveFinite } from "../random/arguments.ts";

/**
 * Re-weighted weights (eq. 3.1): α^w_i = clamp(k·α_i·Δ_{α,x}/Δ_{α,x_i}, 0, 1), with the bounds
 * computed from the α-weighted fit.
 *
 * Records that keep their weight unchanged:
 * - α_i = 0 (an excluded record stays excluded).
 * - Δ_{α,x_i} = 0 with α_i > 0: the record's weighted ℓ is 0 at every draw, so the draws say
 *   nothing about how its bound grows with its weight and the ratio Δ_{α,x}/Δ_{α,x_i} is
 *   undefined (its limit, ∞, would push the weight to 1 on no evidence). Keeping α_i is the
 *   conservative choice: the record did not bind the bound at α_i, and the refit's Δ decides
 *   acceptance anyway.
 *
 * The result never exceeds 1 and is 0 exactly where α is 0. With k < 1 (eq. 3.1: "a constant,
 * k < 1, is used to ensure that the final maximum Lipschitz bound remains equivalent") a record
 * at the maximum (Δ_{α,x_i} = Δ_{α,x}) gets k·α_i < α_i.
 *
 * @param alpha The weights of the fit, α_i ∈ [0, 1].
 * @param recordBounds Δ_{α,x_i} of that fit (finite, ≥ 0, none above `overall`).
 * @param overall Δ_{α,x} of that fit (finite, ≥ the largest record bound; an upward-inflated
 *   bound, such as a GPU bound plus its error allowance, is accepted).
 * @param k The constant k ∈ (0, 1) (the paper uses 0.95).
 * @returns α^w, a new array.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reweight } from "./reweighting.ts";
 * const alpha = new Float64Array([0.5, 0.2, 0, 0.9]);
 * const bounds = new Float64Array([2, 1, 0, 4]);
 * assert.deepEqual([...reweight(alpha, bounds, 4, 0.5)], [0.5, 0.4, 0, 0.45]);
 * ```
 */
export function reweight(
  alpha: Float64Array,
  recordBounds: Float64Array,
  overall: number,
  k: number,
): Float64Array {
  const n = pairedLength(alpha, recordBounds);
  if (!(overall >= 0) || !Number.isFinite(overall)) {
    throw new RangeError(`Invalid overall: must be finite and non-negative: overall=${overall}`);
  }
  if (!(k > 0 && k < 1)) throw new RangeError(`Invalid k: must lie in (0, 1): k=${k}`);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const a = alpha[i];
    const bound = recordBounds[i];
    if (!(a >= 0 && a <= 1)) throw new RangeError(`Invalid alpha: entry ${i} is not in [0, 1]`);
    if (!(bound >= 0 && bound <= overall)) {
      throw new RangeError(`Invalid recordBounds: entry ${i} is not in [0, overall]`);
    }
    if (a === 0 || bound === 0) {
      out[i] = a;
      continue;
    }
    const raised = k * a * (overall / bound);
    out[i] = raised > 1 ? 1 : raised;
  }
  return out;
}

/**
 * Re-weighting toward a target bound (Algorithm 3 with the target Δ* in place of Δ_{α,x}):
 * α^w_i = clamp(k·α_i·Δ* / Δ_{α,x_i}, 0, 1). Records above the target lose weight in proportion,
 * records below gain it (up to 1); α_i = 0 and Δ_{α,x_i} = 0 keep α_i as in
 * {@linkcode reweight}. Iterated with refits, this drives every record's bound towards Δ*: the
 * calibration used when no shift g of the LW/CW weights reaches the target.
 *
 * @param alpha The weights of the fit, α_i ∈ [0, 1].
 * @param recordBounds Δ_{α,x_i} of that fit (finite or +∞, ≥ 0).
 * @param target Δ* (positive, finite).
 * @param k The constant k ∈ (0, 1].
 * @returns α^w, a new array.
 */
export function reweightToward(
  alpha: Float64Array,
  recordBounds: Float64Array,
  target: number,
  k: number,
): Float64Array {
  if (recordBounds.length !== alpha.length) {
    throw new RangeError(
      `Invalid recordBounds: has ${recordBounds.length} entries, expected ${alpha.length}`,
    );
  }
  checkPositiveFinite("target", target);
  if (!(k > 0 && k <= 1)) throw new RangeError(`Invalid k: must lie in (0, 1]: k=${k}`);
  return alpha.map((a, i) => {
    const bound = recordBounds[i];
    if (!(a >= 0 && a <= 1)) throw new RangeError(`Invalid alpha: entry ${i} is not in [0, 1]`);
    if (!(bound >= 0)) throw new RangeError(`Invalid recordBounds: entry ${i} is negative or NaN`);
    if (a === 0 || bound === 0) return a;
    return Math.min(1, k * a * (target / bound));
  });
}

/**
 * The acceptance test of Algorithm 3, step 2: the re-weighted fit is kept when its database bound
 * does not exceed the previous one by more than a relative tolerance,
 * Δ_{α^w,x} ≤ Δ_{α,x}·(1 + tolerance). A non-finite new bound is never accepted.
 *
 * @param previousOverall Δ_{α,x} before re-weighting (finite, ≥ 0).
 * @param newOverall Δ_{α^w,x} of the refit (≥ 0; +∞ allowed and rejected).
 * @param tolerance The relative tolerance (finite, ≥ 0; 0 demands no increase).
 * @returns Whether to accept the re-weighted fit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { acceptReweight } from "./reweighting.ts";
 * assert.equal(acceptReweight(2, 2.01, 0.01), true);
 * assert.equal(acceptReweight(2, 2.03, 0.01), false);
 * ```
 */
export function acceptReweight(
  previousOverall: number,
  newOverall: number,
  tolerance: number,
): boolean {
  if (!(previousOverall >= 0) || !Number.isFinite(previousOverall)) {
    throw new RangeError(
      `Invalid previousOverall: must be finite and non-negative: previousOverall=${previousOverall}`,
    );
  }
  if (!(newOverall >= 0)) {
    throw new RangeError(`Invalid newOverall: must be non-negative: newOverall=${newOverall}`);
  }
  if (!(tolerance >= 0) || !Number.isFinite(tolerance)) {
    throw new RangeError(
      `Invalid tolerance: must be finite and non-negative: tolerance=${tolerance}`,
    );
  }
  return Number.isFinite(newOverall) && newOverall <= previousOverall * (1 + tolerance);
}
