/**
 * Worker entry of {@linkcode parallelTermMaxima}: rebuilds the latent class model from its
 * encoded file and runs `termMaxima` over the draws it is given.
 *
 * Message in: {@linkcode LatentClassJob}. Message out: the `TermMaxima` (draw indices local
 * to the job's draws) or `{error}`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import type { StopFlag } from "../data/worker_stop.ts";
import { type EncodedFile, LatentClassModel } from "../models/latent_class.ts";

/** One share of the draws. */
export interface LatentClassJob {
  readonly file: EncodedFile;
  readonly classes: number;
  readonly draws: Float64Array;
  readonly alpha: Float64Array | null;
  /** The job's stop flag (`termMaxima` reads it once a draw), when it has one. */
  readonly stop?: StopFlag;
}

self.onmessage = (event: MessageEvent<LatentClassJob>) => {
  const { file, classes, draws, alpha, stop } = event.data;
  try {
    const maxima = new LatentClassModel(file, classes).termMaxima(draws, alpha, stop);
    self.postMessage(maxima, {
      transfer: [maxima.perRecord, maxima.argDraw, maxima.minimum, maxima.argMinDraw].map((a) =>
        a.buffer as ArrayBuffer
      ),
    });
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
};
