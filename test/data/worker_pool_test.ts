import assert from "node:assert/strict";
import {
  acquireWorker,
  closeIdleWorkers,
  idleWorkerCount,
  releaseWorker,
} from "../../src/data/worker_pool.ts";
import { runWorkerJob } from "../../src/mechanisms/worker_job.ts";
import { fitModel } from "../../src/mcmc/fit.ts";
import { fitModelParallel } from "../../src/mcmc/parallel_fit.ts";
import { createModel } from "../../src/models/mod.ts";

const ECHO = new URL("./_echo_worker.ts", import.meta.url);
const CHAIN = new URL("../../src/mcmc/chain_worker.ts", import.meta.url);

type Echo = { y: number; jobs: number };

Deno.test("a released worker serves the next job of its module; closing ends the idle ones", async () => {
  closeIdleWorkers();
  const first = await runWorkerJob<{ x: number }, Echo>(ECHO, { x: 2 }, "echo");
  assert.deepEqual(first, { y: 4, jobs: 1 });
  assert.equal(idleWorkerCount(ECHO), 1);
  const second = await runWorkerJob<{ x: number }, Echo>(ECHO, { x: 5 }, "echo");
  assert.deepEqual(second, { y: 10, jobs: 2 }, "the same worker answered");
  const worker = acquireWorker(ECHO);
  assert.equal(idleWorkerCount(ECHO), 0);
  releaseWorker(ECHO, worker);
  closeIdleWorkers();
  assert.equal(idleWorkerCount(ECHO), 0);
  const fresh = await runWorkerJob<{ x: number }, Echo>(ECHO, { x: 1 }, "echo");
  assert.equal(fresh.jobs, 1, "a new worker after closing");
  closeIdleWorkers();
});

Deno.test("a worker that failed is not kept; at most a core's worth idle per module", async () => {
  closeIdleWorkers();
  await assert.rejects(
    runWorkerJob<{ fail: boolean }, Echo>(ECHO, { fail: true }, "echo"),
    /the echo worker failed: .*asked to fail/,
  );
  assert.equal(idleWorkerCount(ECHO), 0);
  const many = Array.from({ length: navigator.hardwareConcurrency + 2 }, () => acquireWorker(ECHO));
  many.forEach((worker) => releaseWorker(ECHO, worker));
  assert.equal(idleWorkerCount(ECHO), navigator.hardwareConcurrency);
  closeIdleWorkers();
});

Deno.test("fits on kept chain workers give the bits of fresh ones, after an aborted fit too", async () => {
  closeIdleWorkers();
  const n = 60;
  const model = createModel("poisson", {
    n,
    k: 1,
    y: Float64Array.from({ length: n }, (_, i) => i % 4),
    x: new Float64Array(n).fill(1),
    coefficientNames: ["intercept"],
  });
  const options = { seed: 3, chains: 2, warmup: 100, draws: 100, threads: 2 };
  const serial = fitModel(model, { alpha: null }, options);
  const first = await fitModelParallel(model, { alpha: null }, options);
  assert.equal(idleWorkerCount(CHAIN), 2, "both workers kept");
  const aborted = new AbortController();
  const stopped = fitModelParallel(model, { alpha: null }, {
    ...options,
    signal: aborted.signal,
    onProgress: () => aborted.abort(new Error("stop")),
  });
  await assert.rejects(stopped, /stop/);
  assert.equal(idleWorkerCount(CHAIN), 0, "an aborted fit's workers are terminated");
  const alpha = Float64Array.from({ length: n }, (_, i) => 0.5 + (i % 3) / 6);
  const weighted = await fitModelParallel(model, { alpha }, options);
  const again = await fitModelParallel(model, { alpha: null }, options);
  assert.deepEqual(first.draws, serial.draws);
  assert.deepEqual(again.draws, serial.draws);
  assert.deepEqual(weighted.draws, fitModel(model, { alpha }, options).draws);
  closeIdleWorkers();
});
