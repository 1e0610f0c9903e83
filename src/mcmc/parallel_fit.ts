/**
 * {@linkcode fitModel} with the chains spread over worker threads.
 *
 * Chain c still draws from `new Rng(seed).split(c)`, so the result is identical, bit for bit,
 * to the single-threaded fit with the same seed; only the wall time changes. The workers are
 * kept between fits (`worker_pool.ts`): a calibration's refits do not start new ones.
 *
 * @module
 */
import { acquireWorker, releaseWorker } from "../data/worker_pool.ts";
import { requestStop, stopFlag } from "../data/worker_stop.ts";
import { endWorker } from "../data/worker_threads.ts";
import type { Model, Weighting } from "../models/model.ts";
import { recipeOf } from "../models/recipe.ts";
import type { ChainJob } from "./chain_worker.ts";
import { type Fit, type FitOptions, resolvePreconditioner, summarizeFit } from "./fit.ts";
import { type ChainResult, combineChains, resolveSampleOptions } from "./sample.ts";

/** Options of {@linkcode fitModelParallel}: those of `fitModel` and the number of threads. */
export interface ParallelFitOptions extends FitOptions {
  /** Worker threads (default: the number of logical cores, at most the number of chains). */
  readonly threads?: number;
  /**
   * Aborting it stops the chain workers at once (their next iteration sees the stop,
   * `worker_stop.ts`, and they are terminated); the fit rejects with its reason.
   */
  readonly signal?: AbortSignal;
}

/** The chain worker's module. */
const CHAIN_WORKER = new URL("./chain_worker.ts", import.meta.url);

type WorkerMessage =
  | { type: "progress"; iterations: number }
  | { type: "chain"; chain: number; result: ChainResult }
  | { type: "error"; message: string };

/**
 * Fits `model` under `weighting` with its chains run in parallel worker threads.
 *
 * @param model A model made by `createModel` (its name and design are sent to the workers).
 * @param weighting Record weights and optional censoring.
 * @param options Seed, chains, warmup, draws, sampler settings and threads.
 * @returns The same {@linkcode Fit} as `fitModel(model, weighting, options)`; rejects with
 * `options.signal`'s reason when it is aborted (the workers are terminated then).
 */
export async function fitModelParallel(
  model: Model,
  weighting: Weighting,
  options: ParallelFitOptions,
): Promise<Fit> {
  const { signal } = options;
  signal?.throwIfAborted();
  const recipe = recipeOf(model);
  const { preconditioner, setup } = resolvePreconditioner(model, weighting, options.precondition);
  const resolved = resolveSampleOptions(model.dim, {
    ...options,
    init: preconditioner?.mean ?? model.initialPoint(),
    metric: options.metric ?? model.metric,
    precondition: preconditioner,
  });
  const threads = Math.max(
    1,
    Math.min(options.threads ?? navigator.hardwareConcurrency, resolved.chains),
  );
  const total = resolved.chains * (resolved.warmup + resolved.draws * resolved.thin);
  let done = 0;
  const results: ChainResult[] = new Array(resolved.chains);
  const workers = Array.from({ length: threads }, () => acquireWorker(CHAIN_WORKER));
  // Set before a worker is terminated: `terminate()` alone does not end a running chain.
  const stop = stopFlag();
  const stopWorkers = () => {
    requestStop(stop);
    workers.forEach(endWorker);
  };
  const rejecters: ((reason: unknown) => void)[] = [];
  const abort = () => {
    stopWorkers();
    rejecters.forEach((reject) => reject(signal!.reason));
  };
  signal?.addEventListener("abort", abort, { once: true });
  let clean = false;
  try {
    await Promise.all(workers.map((worker, w) =>
      new Promise<void>((resolve, reject) => {
        rejecters.push(reject);
        const chains = Array.from({ length: resolved.chains }, (_, c) => c)
          .filter((c) => c % threads === w);
        let remaining = chains.length;
        worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
          const message = event.data;
          if (message.type === "progress") {
            done += message.iterations;
            options.onProgress?.(done, total);
          } else if (message.type === "chain") {
            results[message.chain] = message.result;
            if (--remaining === 0) resolve();
          } else {
            reject(new Error(message.message));
          }
        };
        worker.onerror = (event) => {
          event.preventDefault();
          reject(new Error(`chain worker failed: ${event.message}`));
        };
        const job: ChainJob = {
          recipe,
          weighting,
          options: resolved,
          chains,
          stop,
        };
        worker.postMessage(job);
      })
    ));
    clean = !(signal?.aborted ?? false);
  } finally {
    signal?.removeEventListener("abort", abort);
    // Every worker posted its last chain: kept for the next fit. After a failure or an abort
    // some may still be running: stopped.
    if (clean) workers.forEach((worker) => releaseWorker(CHAIN_WORKER, worker));
    else stopWorkers();
  }
  return summarizeFit(model, combineChains(results, model.dim), setup, resolved.warmup);
}
