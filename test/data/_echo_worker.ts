/**
 * A worker for `worker_pool_test.ts`: answers `{x}` with `{y: 2x, jobs}` (`jobs`: how many
 * jobs this worker has answered, this one included), and `{fail: true}` by throwing.
 *
 * @module
 */
/// <reference lib="deno.worker" />
let jobs = 0;
self.onmessage = (event: MessageEvent<{ x?: number; fail?: boolean }>) => {
  if (event.data.fail) throw new Error("asked to fail");
  self.postMessage({ y: 2 * (event.data.x ?? 0), jobs: ++jobs });
};
