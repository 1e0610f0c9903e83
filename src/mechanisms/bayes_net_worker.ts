/**
 * Worker entry of {@linkcode parallelBayesNetMaxima}: rebuilds the Bayesian network from its
 * encoded file, prior and given columns and runs `termMaxima` over the draws it is given.
 *
 * Message in: {@linkcode BayesNetJob}. Message out: the `TermMaxima` (draw indices local to the
 * job's draws) or `{error}`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import type { EncodedFile } from "../data/file_encoding.ts";
import type { StopFlag } from "../data/worker_stop.ts";
import { BayesNetModel, type BayesNetPrior } from "../models/bayes_net.ts";

/** One share of the draws. */
export interface BayesNetJob {
  readonly file: EncodedFile;
  readonly prior: BayesNetPrior;
  /** The network's given columns (they decide its modelled columns and candidates). */
  readonly given: readonly number[];
  readonly draws: Float64Array;
  /** A draw's length. */
  readonly dim: number;
  readonly alpha: Float64Array | null;
  /** The job's stop flag (`termMaxima` reads it once a draw), when it has one. */
  readonly stop?: StopFlag;
}

self.onmessage = (event: MessageEvent<BayesNetJob>) => {
  const { file, prior, given, draws, dim, alpha, stop } = event.data;
  try {
    const maxima = new BayesNetModel(file, prior, given).termMaxima(draws, dim, alpha, stop);
    self.postMessage(maxima, {
      transfer: [maxima.perRecord, maxima.argDraw, maxima.minimum, maxima.argMinDraw].map((a) =>
        a.buffer as ArrayBuffer
      ),
    });
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
};
