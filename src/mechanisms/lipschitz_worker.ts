/**
 * Worker entry of {@linkcode parallelLipschitz}: rebuilds the model from its name and design and
 * runs the record loop over the draws it is given, reading the job's stop flag once a draw (set
 * when the pass is stopped: the loop throws, `worker_stop.ts`).
 *
 * Message in: {@linkcode LipschitzJob}. Message out: `{perRecord, argDraw}` (draw indices local to
 * the job's draws) or `{error}`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import type { StopFlag } from "../data/worker_stop.ts";
import { modelFromRecipe, type ModelRecipe } from "../models/recipe.ts";
import { recordMaxima } from "./lipschitz.ts";

/** One share of the draws. */
export interface LipschitzJob {
  readonly recipe: ModelRecipe;
  readonly draws: Float64Array;
  readonly alpha: Float64Array | null;
  /** The pass's stop flag (`recordMaxima` reads it once a draw). */
  readonly stop: StopFlag;
}

self.onmessage = (event: MessageEvent<LipschitzJob>) => {
  const { recipe, draws, alpha, stop } = event.data;
  try {
    const { perRecord, argDraw } = recordMaxima(modelFromRecipe(recipe), draws, alpha, false, stop);
    self.postMessage({ perRecord, argDraw }, {
      transfer: [perRecord.buffer as ArrayBuffer, argDraw.buffer as ArrayBuffer],
    });
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
};
