/**
 * The CPU Lipschitz pass on every core: the S draws are split into contiguous shares, each share's
 * record loop runs in a worker thread, and the per-record maxima are merged in draw order (a later
 * share wins only when strictly larger), so every Δ_{α,x_i}, Δ_{α,x} and its arg-max equal the
 * serial loop's exactly. Small problems (and the full-matrix option) stay in this thread, where a
 * worker's start-up would cost more than it saves.
 *
 * A pass in workers stops when its signal aborts (a synthesis stopped at its time limit): each
 * share's job carries a stop flag that its record loop reads once a draw, set before its worker
 * is ended (`runWorkerJob`), and the pass rejects with the signal's reason.
 *
 * @module
 */
import { stopFlag } from "../data/worker_stop.ts";
import type { Model } from "../models/model.ts";
import { recipeOf } from "../models/recipe.ts";
import type { LipschitzBackend } from "./lipschitz_backend.ts";
import {
  checkLipschitzInput,
  lipschitz,
  type LipschitzOptions,
  type LipschitzResult,
  overallOf,
  type RecordMaxima,
} from "./lipschitz.ts";
import type { LipschitzJob } from "./lipschitz_worker.ts";
import { mergeShareExtremes, runShares, runWorkerJob } from "./worker_job.ts";

/** Draw×record evaluations from which the pass is split over workers (≈0.4 s serial). */
export const PARALLEL_MIN_EVALUATIONS = 10_000_000;

/** Options of {@linkcode parallelLipschitz}. */
export interface ParallelLipschitzOptions {
  /** Worker threads (default: the logical cores). */
  readonly threads?: number;
  /** Evaluations from which workers are used (default {@linkcode PARALLEL_MIN_EVALUATIONS}). */
  readonly minEvaluations?: number;
  /** Aborting it stops the workers' pass, which rejects with its reason (see the module). */
  readonly signal?: AbortSignal;
}

/** The worker module of a share. */
const LIPSCHITZ_WORKER = new URL("./lipschitz_worker.ts", import.meta.url);

/**
 * {@linkcode lipschitz} with the draws split over worker threads (see the module).
 *
 * @param model The model bound to the confidential data.
 * @param draws S×dim constrained draws, row-major.
 * @param options α and the matrix option of {@linkcode lipschitz}.
 * @param parallel Threads, the size from which they are used, and the signal that stops them.
 * @returns Exactly {@linkcode lipschitz}'s result.
 */
export async function parallelLipschitz(
  model: Model,
  draws: Float64Array,
  options: LipschitzOptions = {},
  parallel: ParallelLipschitzOptions = {},
): Promise<LipschitzResult> {
  const dim = model.dim;
  const S = draws.length / dim;
  const threads = Math.min(parallel.threads ?? navigator.hardwareConcurrency, S);
  const minEvaluations = parallel.minEvaluations ?? PARALLEL_MIN_EVALUATIONS;
  if (options.matrix || threads < 2 || S * model.design.n < minEvaluations) {
    return lipschitz(model, draws, options);
  }
  const alpha = checkLipschitzInput(model, draws, options);
  const { signal } = parallel;
  const job = { recipe: recipeOf(model), alpha, stop: stopFlag() };
  const share = (one: LipschitzJob) =>
    runWorkerJob<LipschitzJob, RecordMaxima>(LIPSCHITZ_WORKER, one, "Lipschitz", signal);
  const { shares, starts } = await runShares(share, job, draws, dim, threads);
  mergeShareExtremes(shares.map((s) => s.perRecord), shares.map((s) => s.argDraw), starts, true);
  const { perRecord, argDraw } = shares[0];
  return { perRecord, ...overallOf(perRecord, argDraw), matrix: undefined };
}

/** The CPU backend on every core (the command line's and the service's CPU path). */
export const parallelCpuLipschitz: LipschitzBackend = {
  name: "cpu",
  compute: (model, draws, options) => parallelLipschitz(model, draws, options),
};
