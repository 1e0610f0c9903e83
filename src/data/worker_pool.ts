/**
 * Module workers kept between jobs. A fresh worker compiles its module graph in a new isolate
 * (about 65 ms of CPU for a chain worker), and the CPU's fits and S×n passes use a worker per
 * thread for every fit and every pass: a calibration runs tens of fits, a study thousands. A
 * worker whose job ended with its reply (a value, or an error it caught and posted) comes back
 * here ({@linkcode releaseWorker}) and serves the next job of the same module
 * ({@linkcode acquireWorker}); one that threw an uncaught error, or whose job was aborted or
 * failed elsewhere, is terminated, never kept. Idle workers end {@linkcode WORKER_IDLE_MS} after
 * the last release, so a process whose work is done exits at most that much later.
 *
 * Only modules that keep no state between jobs belong here (each job rebuilds its model from its
 * message), so a kept worker computes the bits a fresh one would.
 *
 * @module
 */
import { endWorker } from "./worker_threads.ts";

/** How long idle workers are kept after the last release, in ms. */
export const WORKER_IDLE_MS = 250;

/** Idle workers by module URL. */
const idle = new Map<string, Worker[]>();
let closeTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * A worker running `url`: an idle one if any, else a new one.
 *
 * @param url The worker module.
 * @returns The worker, with no handlers set.
 */
export function acquireWorker(url: URL): Worker {
  return idle.get(url.href)?.pop() ?? new Worker(url.href, { type: "module" });
}

/**
 * Gives back a worker whose job ended cleanly (it posts nothing more): its handlers are cleared
 * and it waits for the next job of `url`, up to as many idle workers per module as there are
 * cores (one more is terminated).
 *
 * @param url The module it runs.
 * @param worker The worker.
 */
export function releaseWorker(url: URL, worker: Worker): void {
  worker.onmessage = null;
  worker.onmessageerror = null;
  worker.onerror = null;
  const kept = idle.get(url.href) ?? [];
  if (kept.length >= navigator.hardwareConcurrency) {
    endWorker(worker);
    return;
  }
  kept.push(worker);
  idle.set(url.href, kept);
  clearTimeout(closeTimer);
  closeTimer = setTimeout(closeIdleWorkers, WORKER_IDLE_MS);
  // The timer alone does not hold the process open: the idle workers do, until it fires.
  Deno.unrefTimer(closeTimer as unknown as number);
}

/**
 * How many idle workers of `url` wait for a job.
 *
 * @param url The worker module.
 * @returns The count.
 */
export function idleWorkerCount(url: URL): number {
  return idle.get(url.href)?.length ?? 0;
}

/** Terminates every idle worker now. */
export function closeIdleWorkers(): void {
  clearTimeout(closeTimer);
  closeTimer = undefined;
  for (const workers of idle.values()) workers.forEach(endWorker);
  idle.clear();
}
