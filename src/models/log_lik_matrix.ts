/**
 * The S×n matrix of record log-likelihoods ℓ_i(θ_s) over posterior draws (SPEC §1): the input
 * of the record and database Lipschitz bounds Δ_{α,x_i} = max_s |α_i·ℓ_i(θ_s)|.
 *
 * @module
 */
import type { Model } from "./model.ts";

/**
 * Evaluates ℓ_i(θ_s) for every draw s and record i.
 *
 * @param model the model bound to the confidential data.
 * @param draws S×dim constrained draws θ_s, row-major.
 * @param out where to write the S×n result, row-major (allocated when omitted).
 * @returns `out`, with out[s·n + i] = ℓ_i(θ_s).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { logLikMatrix } from "./log_lik_matrix.ts";
 * import { PoissonModel } from "./poisson.ts";
 * const m = new PoissonModel({
 *   n: 2, k: 1, y: new Float64Array([0, 1]), x: new Float64Array([1, 1]), coefficientNames: ["intercept"],
 * });
 * const l = logLikMatrix(m, new Float64Array([0, 1, Math.log(2), 1]));
 * assert.deepEqual([...l].map((v) => Math.round(v * 1e12) / 1e12), [-1, -1, -2, Math.round((Math.log(2) - 2) * 1e12) / 1e12]);
 * ```
 */
export function logLikMatrix(
  model: Model,
  draws: Float64Array,
  out?: Float64Array,
): Float64Array {
  const { dim } = model;
  const n = model.design.n;
  if (draws.length % dim !== 0) {
    throw new RangeError(
      `Invalid draws: length must be a multiple of dim=${dim}: length=${draws.length}`,
    );
  }
  const s = draws.length / dim;
  const result = out ?? new Float64Array(s * n);
  if (result.length !== s * n) {
    throw new RangeError(`Invalid out: must have length S·n=${s * n}: length=${result.length}`);
  }
  for (let r = 0; r < s; r++) {
    model.logLik(draws.subarray(r * dim, (r + 1) * dim), result.subarray(r * n, (r + 1) * n));
  }
  return result;
}
