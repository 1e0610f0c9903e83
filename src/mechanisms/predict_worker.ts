/**
 * Worker entry of `parallelCandidateSummaries`: rebuilds the model from its name and design and
 * summarises its share of the draws for every candidate weighting, reading the job's stop flag once
 * a draw (set when the pass is stopped: the loop throws, `worker_stop.ts`).
 *
 * Message in: {@linkcode PredictJob}. Message out: `{logRatios, maxima}` or `{error}`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import type { StopFlag } from "../data/worker_stop.ts";
import { modelFromRecipe, type ModelRecipe } from "../models/recipe.ts";
import { candidateSummaries } from "./candidate_summaries.ts";

/** One share of the draws and every candidate. */
export interface PredictJob {
  readonly recipe: ModelRecipe;
  readonly draws: Float64Array;
  readonly base: Float64Array | null;
  readonly candidates: Float64Array[];
  /** The pass's stop flag (`candidateSummaries` reads it once a draw). */
  readonly stop: StopFlag;
}

self.onmessage = (event: MessageEvent<PredictJob>) => {
  const { recipe, draws, base, candidates, stop } = event.data;
  try {
    const result = candidateSummaries(modelFromRecipe(recipe), draws, base, candidates, stop);
    self.postMessage(result, {
      transfer: [...result.logRatios, ...result.maxima].map((a) => a.buffer as ArrayBuffer),
    });
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
};
