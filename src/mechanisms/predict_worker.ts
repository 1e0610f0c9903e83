/**
 * Worker entry of `parallelCandidateSummaries`: rebuilds the model from its name and design and
 * summarises its share of the draws for every candidate weighting.
 *
 * Message in: {@linkcode PredictJob}. Message out: `{logRatios, maxima}` or `{error}`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { modelFromRecipe, type ModelRecipe } from "../models/recipe.ts";
import { candidateSummaries } from "./candidate_summaries.ts";

/** One share of the draws and every candidate. */
export interface PredictJob {
  readonly recipe: ModelRecipe;
  readonly draws: Float64Array;
  readonly base: Float64Array | null;
  readonly candidates: Float64Array[];
}

self.onmessage = (event: MessageEvent<PredictJob>) => {
  const { recipe, draws, base, candidates } = event.data;
  try {
    const result = candidateSummaries(modelFromRecipe(recipe), draws, base, candidates);
    self.postMessage(result, {
      transfer: [...result.logRatios, ...result.maxima].map((a) => a.buffer as ArrayBuffer),
    });
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
};
