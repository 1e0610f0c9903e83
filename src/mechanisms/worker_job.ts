/**
 * What the CPU passes over S × n (the Lipschitz bound, the Δ predictions) share to use every
 * core: the draws cut into contiguous shares, and one job per share run in a worker thread.
 *
 * @module
 */

/**
 * Where each of `threads` contiguous shares of S draws starts, with S at the end:
 * share t is draws [starts[t], starts[t + 1]).
 */
export function shareStarts(S: number, threads: number): number[] {
  return Array.from({ length: threads + 1 }, (_, t) => Math.round((t * S) / threads));
}

/**
 * Runs one job in a fresh module worker and resolves with its one reply; a reply
 * `{error}` or a worker failure rejects, naming `what`. The worker is terminated either way.
 *
 * @param url The worker module.
 * @param job The message posted to it.
 * @param what The worker's name in error messages.
 */
export function runWorkerJob<Job, Result extends object>(
  url: URL,
  job: Job,
  what: string,
): Promise<Result> {
  const worker = new Worker(url.href, { type: "module" });
  return new Promise<Result>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<Result | { error: string }>) => {
      if ("error" in event.data) reject(new Error(event.data.error));
      else resolve(event.data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(`the ${what} worker failed: ${event.message}`));
    };
    worker.postMessage(job);
  }).finally(() => worker.terminate());
}
