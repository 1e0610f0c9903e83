import assert from "node:assert/strict";
import { runCommand } from "../../src/cli/run_command.ts";
import { idleWorkerCount } from "../../src/data/worker_pool.ts";
import {
  endWorker,
  WORKER_TEARDOWN_MS,
  workerTeardownsWaited,
} from "../../src/data/worker_threads.ts";
import { runWorkerJob } from "../../src/mechanisms/worker_job.ts";

const ECHO = new URL("./_echo_worker.ts", import.meta.url);

Deno.test("a command ends the pool's idle workers and returns only after their teardown time", async () => {
  let bodyEnded = 0;
  await runCommand("probe", async () => {
    await Promise.all([1, 2, 3].map((x) => runWorkerJob(ECHO, { x }, "echo")));
    assert.ok(idleWorkerCount(ECHO) >= 1, "the pool keeps the echo workers idle");
    bodyEnded = performance.now();
  });
  const waited = performance.now() - bodyEnded;
  assert.equal(idleWorkerCount(ECHO), 0, "no idle worker is left to end after the exit");
  assert.ok(waited >= WORKER_TEARDOWN_MS, `returned ${waited.toFixed(1)} ms after the body`);
});

Deno.test("the teardown wait counts from the last worker ended, and is nothing without one", async () => {
  await workerTeardownsWaited();
  assert.equal(await workerTeardownsWaited(), 0);
  const worker = new Worker(ECHO.href, { type: "module" });
  endWorker(worker);
  const started = performance.now();
  const waited = await workerTeardownsWaited();
  assert.ok(waited > 0 && waited <= WORKER_TEARDOWN_MS, `waited ${waited} ms`);
  assert.ok(performance.now() - started >= waited - 1);
  assert.equal(await workerTeardownsWaited(), 0);
});
