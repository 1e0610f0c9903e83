/**
 * Predicting Δ for candidate weights from a fit in hand (issue 13, "Fewer refits"), so that a
 * calibration or re-weighting refits only the candidate it chooses.
 *
 * The α₁-weighted pseudo posterior is the α₀-weighted one times exp(Σ_i (α₁_i − α₀_i)·ℓ_i(θ)),
 * so the α₀ fit's draws θ_s, importance-weighted by r_s = Σ_i (α₁_i − α₀_i)·ℓ_i(θ_s), stand for
 * α₁ draws. Δ under α₁ is the maximum over S draws of f(θ) = max_i α₁_i·|ℓ_i(θ)|; with the
 * PSIS-smoothed weights w_s (Vehtari et al. 2024, `src/stats/psis.ts`) F̂(t) = Σ_s w_s·1{f_s ≤ t}
 * estimates the CDF of f, and the maximum of S independent draws has median F⁻¹(0.5^{1/S}): the
 * prediction. With α₁ = α₀ every w_s is 1/S and the prediction is the fit's own Δ exactly.
 *
 * The prediction is trusted only when PSIS's Pareto k̂ is at most the sample-size threshold
 * min(1 − 1/log₁₀ S, 0.7): beyond it the importance weights' variance is infinite or their
 * estimate unreliable, and the caller refits instead. A prediction never decides ε: every
 * release's Δ is that of a real fit's draws.
 *
 * One pass over the S × n log likelihoods serves every candidate (ℓ_i(θ_s) is computed once);
 * `parallelCandidateSummaries` splits the draws over worker threads; aborting its signal (a
 * synthesis stopped at its time limit) sets the shares' stop flag, which their loops read once a
 * draw, ends their workers and rejects with the signal's reason (`runWorkerJob`).
 *
 * @module
 */
import { stopFlag } from "../data/worker_stop.ts";
import type { Model } from "../models/model.ts";
import { recipeOf } from "../models/recipe.ts";
import { psis, psisThreshold, weightedUpperQuantile } from "../stats/psis.ts";
import { type CandidateSummaries, candidateSummaries } from "./candidate_summaries.ts";
import type { PredictJob } from "./predict_worker.ts";
import { runShares, runWorkerJob } from "./worker_job.ts";

/** A predicted Δ and whether it can be trusted. */
export interface LipschitzPrediction {
  readonly lipschitz: number;
  /** PSIS's k̂ (0 when the candidate's weights equal the fit's: no importance weighting). */
  readonly paretoK: number;
  readonly trusted: boolean;
}

/** Evaluations from which {@linkcode parallelCandidateSummaries} uses worker threads. */
const PARALLEL_MIN_EVALUATIONS = 10_000_000;

/** The worker module of a share. */
const PREDICT_WORKER = new URL("./predict_worker.ts", import.meta.url);

/**
 * {@linkcode candidateSummaries} with the draws split over worker threads (the same numbers).
 *
 * @param model A model `createModel` can rebuild.
 * @param draws The fit's draws.
 * @param base α₀.
 * @param candidates α₁ per candidate.
 * @param signal Aborting it stops the workers, and the pass rejects with its reason.
 */
export async function parallelCandidateSummaries(
  model: Model,
  draws: Float64Array,
  base: Float64Array | null,
  candidates: readonly Float64Array[],
  signal?: AbortSignal,
): Promise<CandidateSummaries> {
  const dim = model.dim;
  const S = draws.length / dim;
  const threads = Math.min(navigator.hardwareConcurrency, S);
  if (threads < 2 || S * model.design.n < PARALLEL_MIN_EVALUATIONS) {
    return candidateSummaries(model, draws, base, candidates);
  }
  const job = { recipe: recipeOf(model), base, candidates: [...candidates], stop: stopFlag() };
  const share = (one: PredictJob) =>
    runWorkerJob<PredictJob, CandidateSummaries>(PREDICT_WORKER, one, "prediction", signal);
  const { shares, starts } = await runShares(share, job, draws, dim, threads);
  const join = (pick: (part: CandidateSummaries) => Float64Array[]) =>
    candidates.map((_, c) => {
      const out = new Float64Array(S);
      shares.forEach((part, t) => out.set(pick(part)[c], starts[t]));
      return out;
    });
  return { logRatios: join((p) => p.logRatios), maxima: join((p) => p.maxima) };
}

/**
 * The predicted Δ of one candidate from its per-draw summaries (see the module).
 *
 * @param logRatios r_s of the candidate.
 * @param maxima f_s of the candidate.
 * @returns The prediction, k̂ and whether k̂ is within the threshold.
 *
 * @example Equal weights: the prediction is the largest f_s, trusted
 * ```ts
 * import assert from "node:assert/strict";
 * import { predictFromSummaries } from "./predict_lipschitz.ts";
 * const p = predictFromSummaries(new Float64Array(100), Float64Array.from({ length: 100 }, (_, s) => s));
 * assert.deepEqual(p, { lipschitz: 99, paretoK: 0, trusted: true });
 * ```
 */
export function predictFromSummaries(
  logRatios: Float64Array,
  maxima: Float64Array,
): LipschitzPrediction {
  const S = logRatios.length;
  const p = Math.pow(0.5, 1 / S);
  let low = Infinity;
  let high = -Infinity;
  for (const r of logRatios) {
    low = Math.min(low, r);
    high = Math.max(high, r);
  }
  if (high - low === 0) {
    return {
      lipschitz: weightedUpperQuantile(maxima, new Float64Array(S).fill(-Math.log(S)), p),
      paretoK: 0,
      trusted: true,
    };
  }
  const smoothed = psis(logRatios);
  return {
    lipschitz: weightedUpperQuantile(maxima, smoothed.logWeights, p),
    paretoK: smoothed.paretoK,
    trusted: smoothed.paretoK <= psisThreshold(S),
  };
}

/**
 * Predicted Δ for each candidate weighting from one fit's draws.
 *
 * @param model The model bound to the data (rebuildable by `createModel` for the threads).
 * @param draws The fit's draws (S × dim, constrained).
 * @param base The fit's α (null: all 1).
 * @param candidates The candidates' α.
 * @param signal Aborting it stops the pass's workers (`parallelCandidateSummaries`).
 * @returns One prediction per candidate, in order.
 */
export async function predictLipschitz(
  model: Model,
  draws: Float64Array,
  base: Float64Array | null,
  candidates: readonly Float64Array[],
  signal?: AbortSignal,
): Promise<LipschitzPrediction[]> {
  const { logRatios, maxima } = await parallelCandidateSummaries(
    model,
    draws,
    base,
    candidates,
    signal,
  );
  return candidates.map((_, c) => predictFromSummaries(logRatios[c], maxima[c]));
}
