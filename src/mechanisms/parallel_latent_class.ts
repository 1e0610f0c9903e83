/**
 * The latent class model's Lipschitz pass (SPEC §13) on every core: max_s |u_i(θ_s)| and
 * min_s |u_i(θ_s)| (`termMaxima`; the release's Δ_i is their half-difference) with the S draws cut into contiguous shares, each share's `termMaxima` run in a worker thread on a
 * model rebuilt from the same encoded file (so the same patterns, column blocks and arithmetic),
 * and the per-record maxima and minima merged in draw order (a later share wins only when
 * strictly larger, or smaller). Every extreme and its first draw are then exactly the one-thread
 * `termMaxima`'s. Small
 * problems stay in this thread, where a worker's start-up would cost more than it saves.
 *
 * @module
 */
import type { StopFlag } from "../data/worker_stop.ts";
import type { EncodedFile, LatentClassModel, TermMaxima } from "../models/latent_class.ts";
import type { LatentClassJob } from "./latent_class_worker.ts";
import { mergeShareExtremes, runShares, runWorkerJob } from "./worker_job.ts";

/**
 * Draw × group × class evaluations from which the pass is split over workers (each is J
 * lookups and one exp; about 0.2 s on one thread).
 */
export const PARALLEL_MIN_CLASS_EVALUATIONS = 10_000_000;

/** Options of {@linkcode parallelTermMaxima}. */
export interface ParallelTermMaximaOptions {
  /** Worker threads (default: the logical cores). */
  readonly threads?: number;
  /** Evaluations from which workers are used (default {@linkcode PARALLEL_MIN_CLASS_EVALUATIONS}). */
  readonly minEvaluations?: number;
  /** Read once a draw, here or in the workers: when set, the pass throws (`worker_stop.ts`). */
  readonly stop?: StopFlag;
}

/**
 * The model's file as codes, record by record from its patterns (the confidential codes stay in
 * this process's workers).
 *
 * @param model The latent class model.
 * @returns An encoded file that rebuilds the same model.
 */
export function encodedFileOf(model: LatentClassModel): EncodedFile {
  const J = model.levels.length;
  return {
    n: model.n,
    columns: model.names.map((name, j) => ({
      name,
      levels: model.levels[j],
      codes: Int32Array.from(
        model.patternOf,
        (p) => model.patternCells[p * J + j] - model.offsets[j],
      ),
    })),
  };
}

/**
 * `model.termMaxima(draws, alpha)` with the draws split over worker threads (see the module).
 *
 * @param model The latent class model bound to the confidential file.
 * @param draws S×dim draws, row-major.
 * @param alpha α (null: all 1).
 * @param options Threads and the size from which they are used.
 * @returns Exactly `termMaxima`'s per-record extremes and their first draws.
 */
export async function parallelTermMaxima(
  model: LatentClassModel,
  draws: Float64Array,
  alpha: Float64Array | null,
  options: ParallelTermMaximaOptions = {},
): Promise<TermMaxima> {
  if (draws.length === 0 || draws.length % model.dim !== 0) {
    return model.termMaxima(draws, alpha, options.stop); // refuses them
  }
  const S = draws.length / model.dim;
  const threads = Math.min(options.threads ?? navigator.hardwareConcurrency, S);
  const groups = model.termGroups(alpha).alpha.length;
  const work = S * groups * model.K;
  if (threads < 2 || work < (options.minEvaluations ?? PARALLEL_MIN_CLASS_EVALUATIONS)) {
    return model.termMaxima(draws, alpha, options.stop);
  }
  const file = encodedFileOf(model);
  const job = { file, classes: model.K, alpha, stop: options.stop };
  return await termMaximaInWorkers<LatentClassJob>(
    new URL("./latent_class_worker.ts", import.meta.url),
    "latent class Lipschitz",
    job,
    draws,
    model.dim,
    threads,
  );
}

/**
 * A whole-file model's `termMaxima` with the S×dim draws cut into `threads` contiguous shares
 * (`runShares`), each share's job run by the worker module `worker` (`runWorkerJob`), and the
 * shares' extremes merged in draw order ({@linkcode mergeTermShares}).
 *
 * @param worker The worker module, answering a job with its share's `TermMaxima`.
 * @param what The worker's name in error messages.
 * @param job The shares' job but for their draws.
 * @param draws S×dim draws, row-major.
 * @param dim A draw's length.
 * @param threads The number of shares.
 * @returns The extremes over all draws, exactly the one-thread `termMaxima`'s.
 */
export async function termMaximaInWorkers<Job extends { draws: Float64Array }>(
  worker: URL,
  what: string,
  job: Omit<Job, "draws">,
  draws: Float64Array,
  dim: number,
  threads: number,
): Promise<TermMaxima> {
  const share = (one: Job) => runWorkerJob<Job, TermMaxima>(worker, one, what);
  const { shares, starts } = await runShares(share, job, draws, dim, threads);
  return mergeTermShares(shares, starts);
}

/**
 * Merges the extremes of contiguous shares of the draws in draw order (`mergeShareExtremes`):
 * every extreme's draw is the first attaining it, as in the one-thread pass over all draws.
 *
 * @param shares Each share's extremes (draw indices local to the share); the first is reused.
 * @param starts Where each share starts (`shareStarts`).
 * @returns The extremes over all draws.
 */
export function mergeTermShares(
  shares: readonly TermMaxima[],
  starts: readonly number[],
): TermMaxima {
  mergeShareExtremes(shares.map((s) => s.perRecord), shares.map((s) => s.argDraw), starts, true);
  mergeShareExtremes(shares.map((s) => s.minimum), shares.map((s) => s.argMinDraw), starts, false);
  const { perRecord, argDraw, minimum, argMinDraw } = shares[0];
  return { perRecord, argDraw, minimum, argMinDraw };
}
