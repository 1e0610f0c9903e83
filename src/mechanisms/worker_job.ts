/**
 * What the CPU passes over S × n (the Lipschitz bound, the Δ predictions) share to use every
 * core: the draws cut into contiguous shares, and one job per share run in a worker thread, which
 * an abort signal stops mid-share (the job's stop flag, `worker_stop.ts`).
 *
 * @module
 */
import { acquireWorker, releaseWorker } from "../data/worker_pool.ts";
import { requestStop, type StopFlag } from "../data/worker_stop.ts";
import { endWorker } from "../data/worker_threads.ts";

/**
 * Where each of `threads` contiguous shares of S draws starts, with S at the end:
 * share t is draws [starts[t], starts[t + 1]).
 */
export function shareStarts(S: number, threads: number): number[] {
  return Array.from({ length: threads + 1 }, (_, t) => Math.round((t * S) / threads));
}

/**
 * Runs one job in a module worker (a kept one if idle, `worker_pool.ts`) and resolves with its
 * one reply; a reply `{error}` or a worker failure rejects, naming `what`. A worker that replied
 * goes back to the pool; one that failed is ended.
 *
 * Aborting `signal` rejects with its reason at once: the job's `stop` flag, if it carries one, is
 * set first, so the worker's loop throws at its next read of it (`terminate()` alone does not stop
 * a synchronous loop, `worker_stop.ts`), and then the worker is ended, never kept.
 *
 * @param url The worker module.
 * @param job The message posted to it.
 * @param what The worker's name in error messages.
 * @param signal Aborting it stops the job (none: the job runs to its reply).
 */
export function runWorkerJob<Job extends object, Result extends object>(
  url: URL,
  job: Job,
  what: string,
  signal?: AbortSignal,
): Promise<Result> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  const stop: StopFlag | undefined = "stop" in job && job.stop instanceof Int32Array
    ? job.stop
    : undefined;
  const worker = acquireWorker(url);
  return new Promise<Result>((resolve, reject) => {
    const abort = () => {
      if (stop !== undefined) requestStop(stop);
      worker.onmessage = null;
      worker.onerror = null;
      endWorker(worker);
      reject(signal!.reason);
    };
    worker.onmessage = (event: MessageEvent<Result | { error: string }>) => {
      signal?.removeEventListener("abort", abort);
      releaseWorker(url, worker);
      if ("error" in event.data) reject(new Error(event.data.error));
      else resolve(event.data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      signal?.removeEventListener("abort", abort);
      endWorker(worker);
      reject(new Error(`the ${what} worker failed: ${event.message}`));
    };
    signal?.addEventListener("abort", abort, { once: true });
    worker.postMessage(job);
  });
}

/**
 * Runs `run` on each contiguous share of S×dim draws (`shareStarts`, S = draws.length/dim): share
 * t's job is `job` with its draws [starts[t], starts[t + 1]). Resolves with the replies in share
 * order and the starts.
 *
 * @param run One job in a worker (`runWorkerJob`).
 * @param job The shares' job but for their draws.
 * @param draws S×dim draws, row-major.
 * @param dim A draw's length.
 * @param threads The number of shares.
 */
export async function runShares<Job extends { draws: Float64Array }, Result>(
  run: (job: Job) => Promise<Result>,
  job: Omit<Job, "draws">,
  draws: Float64Array,
  dim: number,
  threads: number,
): Promise<{ shares: Result[]; starts: number[] }> {
  const starts = shareStarts(draws.length / dim, threads);
  const shares = await Promise.all(
    starts.slice(0, -1).map((start, t) =>
      run({ ...job, draws: draws.slice(start * dim, starts[t + 1] * dim) } as Job)
    ),
  );
  return { shares, starts };
}

/**
 * Merges per-record extremes of contiguous shares of the draws into the first share's arrays in
 * draw order: share t's value replaces the running one only when strictly larger (`larger`) or
 * strictly smaller, with its draw shifted by starts[t], so every extreme's draw is the first
 * attaining it, as in one pass over all draws.
 *
 * @param values Each share's per-record extremes; the first is merged into.
 * @param draws Each share's draw of each extreme, local to the share; the first is merged into.
 * @param starts Where each share starts (`shareStarts`).
 * @param larger Whether the extremes are maxima (else minima).
 */
export function mergeShareExtremes(
  values: readonly Float64Array[],
  draws: readonly Int32Array[],
  starts: readonly number[],
  larger: boolean,
): void {
  const value = values[0];
  const draw = draws[0];
  for (let t = 1; t < values.length; t++) {
    const v = values[t];
    const d = draws[t];
    for (let i = 0; i < value.length; i++) {
      if (larger ? v[i] > value[i] : v[i] < value[i]) {
        value[i] = v[i];
        draw[i] = d[i] + starts[t];
      }
    }
  }
}
