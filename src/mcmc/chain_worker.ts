/**
 * Worker entry for {@linkcode fitModelParallel}: rebuilds the model from its name and design,
 * runs the chains it is given with {@linkcode runChain}, and posts each chain's draws back (a
 * job's last message is its last chain's; the worker keeps no state between jobs).
 *
 * Messages in: {@linkcode ChainJob}. Messages out: `{type: "progress", iterations}`,
 * `{type: "chain", chain, result}` per chain, or `{type: "error", message}` (also when its fit
 * asked it to stop, which the fit no longer reads).
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { type StopFlag, throwIfStopRequested } from "../data/worker_stop.ts";
import type { Weighting } from "../models/model.ts";
import { modelFromRecipe, type ModelRecipe } from "../models/recipe.ts";
import { type ResolvedSampleOptions, runChain } from "./sample.ts";

/** What a worker is asked to run. */
export interface ChainJob {
  readonly recipe: ModelRecipe;
  readonly weighting: Weighting;
  readonly options: ResolvedSampleOptions;
  readonly chains: readonly number[];
  /** Set by the fit when it is aborted or failed: the chain stops at its next iteration. */
  readonly stop: StopFlag;
}

/** Iterations between two progress messages. */
const PROGRESS_EVERY = 50;

self.onmessage = (event: MessageEvent<ChainJob>) => {
  const { recipe, weighting, options, chains, stop } = event.data;
  try {
    const model = modelFromRecipe(recipe);
    const logDensity = (u: Float64Array, grad: Float64Array) =>
      model.logDensity(u, grad, weighting);
    let pending = 0;
    const tick = () => {
      throwIfStopRequested(stop);
      if (++pending === PROGRESS_EVERY) {
        self.postMessage({ type: "progress", iterations: pending });
        pending = 0;
      }
    };
    for (const chain of chains) {
      const result = runChain(logDensity, chain, options, tick, model.exactCoordinates ?? null);
      // The last message of a job is its last chain: the worker is then free for another job.
      if (pending > 0) self.postMessage({ type: "progress", iterations: pending });
      pending = 0;
      self.postMessage({ type: "chain", chain, result }, [result.draws.buffer as ArrayBuffer]);
    }
  } catch (error) {
    self.postMessage({ type: "error", message: (error as Error).message });
  }
};
