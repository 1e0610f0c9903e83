/**
 * Weighted-e truncation (JSM slides, "Synthesizer #2: Weighted-e pseudo posterior", after
 * Savitsky et al. 2022; SPEC §2): after the weighted fit, a record whose log-likelihood
 * contribution exceeds ε/2 gets weight 0, and the model is refit. The refit's own Δ decides the
 * guarantee, which stays aDP (truncation speeds the contraction of ε_x onto the global ε).
 *
 * @module
 */
import { pairedLength } from "./weights.ts";
import { checkPositiveFinite } from "../random/arguments.ts";

/**
 * Truncated weights: α*_i = 0 where Δ_{α,x_i} > ε/2 (strictly; a record exactly at ε/2 keeps its
 * weight) or where Δ_{α,x_i} is not finite (NaN or +∞, a record whose ℓ_i was non-finite at a
 * draw); α*_i = α_i otherwise.
 *
 * @param alpha The weights of the fit, α_i ∈ [0, 1].
 * @param recordBounds Δ_{α,x_i} of that fit (≥ 0; non-finite entries are truncated).
 * @param epsilonPerDataset The per-dataset target ε (positive, finite); the threshold is ε/2.
 * @returns α*, a new array.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { truncateWeights } from "./truncate.ts";
 * const alpha = truncateWeights(new Float64Array([1, 0.5, 0.8]), new Float64Array([2, 3, 2.5]), 5);
 * assert.deepEqual([...alpha], [1, 0, 0.8]);
 * ```
 */
export function truncateWeights(
  alpha: Float64Array,
  recordBounds: Float64Array,
  epsilonPerDataset: number,
): Float64Array {
  const n = pairedLength(alpha, recordBounds);
  checkPositiveFinite("epsilonPerDataset", epsilonPerDataset);
  const threshold = epsilonPerDataset / 2;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const a = alpha[i];
    const bound = recordBounds[i];
    if (!(a >= 0 && a <= 1)) throw new RangeError(`Invalid alpha: entry ${i} is not in [0, 1]`);
    if (bound < 0) throw new RangeError(`Invalid recordBounds: entry ${i} is negative`);
    out[i] = bound <= threshold ? a : 0;
  }
  return out;
}
