/**
 * A command does not exit while the threads of workers it ended are still tearing down.
 *
 * A worker's thread outlives its `terminate()` by the time its isolate takes to tear down, and a
 * worker that used WebGPU destroys its Vulkan instance there, which makes the Vulkan loader unload
 * the driver libraries (`dlclose`). A process that exits meanwhile runs those libraries' exit
 * handlers on its main thread while the worker's thread unmaps them or frees their heap: a
 * segmentation fault, or glibc's "corrupted size vs. prev_size in fastbins" abort, after the
 * command's work was done and its files written (docs/decisions.md, "An abort at exit after every
 * test passed"). Deno gives a program no way to join a worker's thread, and reading its threads in
 * `/proc` needs `--allow-all`; so every worker this code ends goes through {@linkcode endWorker},
 * which notes the time, and a command waits {@linkcode WORKER_TEARDOWN_MS} past the last one
 * before it exits ({@linkcode workerTeardownsWaited}). Measured: 12–25 ms from `terminate()` to
 * the last thread of three GPU workers gone, on two loaded cores.
 *
 * @module
 */

/** How long a command waits after ending its last worker before it exits, in ms. */
export const WORKER_TEARDOWN_MS = 200;

/** When this isolate last ended a worker (`performance.now()`), or -∞. */
let lastEnded = Number.NEGATIVE_INFINITY;

/**
 * Terminates `worker`, noting the time for {@linkcode workerTeardownsWaited}.
 *
 * @param worker The worker.
 */
export function endWorker(worker: Worker): void {
  worker.terminate();
  lastEnded = performance.now();
}

/**
 * Resolves once {@linkcode WORKER_TEARDOWN_MS} have passed since this isolate last ended a worker
 * ({@linkcode endWorker}); at once if it never did.
 *
 * @returns How long it waited, in ms.
 */
export async function workerTeardownsWaited(): Promise<number> {
  const wait = lastEnded + WORKER_TEARDOWN_MS - performance.now();
  if (!(wait > 0)) return 0;
  await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)));
  return wait;
}
