/**
 * Worker entry of {@linkcode parallelLipschitz}: rebuilds the model from its name and design and
 * runs the record loop over the draws it is given.
 *
 * Message in: {@linkcode LipschitzJob}. Message out: `{perRecord, argDraw}` (draw indices local to
 * the job's draws) or `{error}`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { modelFromRecipe, type ModelRecipe } from "../models/recipe.ts";
import { recordMaxima } from "./lipschitz.ts";

/** One share of the draws. */
export interface LipschitzJob {
  readonly recipe: ModelRecipe;
  readonly draws: Float64Array;
  readonly alpha: Float64Array | null;
}

self.onmessage = (event: MessageEvent<LipschitzJob>) => {
  const { recipe, draws, alpha } = event.data;
  try {
    const { perRecord, argDraw } = recordMaxima(modelFromRecipe(recipe), draws, alpha);
    self.postMessage({ perRecord, argDraw }, {
      transfer: [perRecord.buffer as ArrayBuffer, argDraw.buffer as ArrayBuffer],
    });
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
};
