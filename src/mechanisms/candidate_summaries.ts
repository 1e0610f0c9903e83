/**
 * The per-draw summaries behind a predicted Δ (see `predict_lipschitz.ts`): for each candidate
 * weighting α₁ and each draw θ_s of a fit under α₀, the log importance ratio
 * r_s = Σ_i (α₁_i − α₀_i)·ℓ_i(θ_s) and f_s = max_i α₁_i·|ℓ_i(θ_s)|, from one pass over the
 * S × n log likelihoods. Run in-thread or, per share of the draws, by `predict_worker.ts`.
 *
 * @module
 */
import { type StopFlag, throwIfStopRequested } from "../data/worker_stop.ts";
import type { Model } from "../models/model.ts";

/** Per draw and candidate: r_s = Σ_i (α₁_i − α₀_i)·ℓ_i(θ_s) and f_s = max_i α₁_i·|ℓ_i(θ_s)|. */
export interface CandidateSummaries {
  /** logRatios[c][s]. */
  readonly logRatios: Float64Array[];
  /** maxima[c][s]. */
  readonly maxima: Float64Array[];
}

/**
 * The summaries of {@linkcode CandidateSummaries} over draws (S × dim, constrained).
 *
 * @param model The model bound to the data.
 * @param draws The fit's draws.
 * @param base α₀ of the fit (null: all 1).
 * @param candidates α₁ of each candidate (each of length n).
 * @param stop Read once a draw: when set, the loop throws (a share worker's job, `worker_stop.ts`).
 */
export function candidateSummaries(
  model: Model,
  draws: Float64Array,
  base: Float64Array | null,
  candidates: readonly Float64Array[],
  stop?: StopFlag,
): CandidateSummaries {
  const { n } = model.design;
  const dim = model.dim;
  const S = draws.length / dim;
  const G = candidates.length;
  const logRatios = Array.from({ length: G }, () => new Float64Array(S));
  const maxima = Array.from({ length: G }, () => new Float64Array(S));
  const ell = new Float64Array(n);
  const delta = candidates.map((alpha) => alpha.map((a, i) => a - (base === null ? 1 : base[i])));
  for (let s = 0; s < S; s++) {
    throwIfStopRequested(stop);
    model.logLik(draws.subarray(s * dim, (s + 1) * dim), ell);
    for (let c = 0; c < G; c++) {
      const alpha = candidates[c];
      const d = delta[c];
      let ratio = 0;
      let max = 0;
      for (let i = 0; i < n; i++) {
        const l = ell[i];
        // A record the candidate drops (α₁_i = 0) still moves the ratio by −α₀_i·ℓ_i.
        if (d[i] !== 0) ratio += d[i] * l;
        const a = alpha[i];
        if (a === 0) continue;
        const v = Math.abs(a * l);
        if (!(v <= max)) max = Number.isNaN(v) ? Infinity : v;
      }
      logRatios[c][s] = ratio;
      maxima[c][s] = max;
    }
  }
  return { logRatios, maxima };
}
