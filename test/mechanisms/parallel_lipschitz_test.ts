import assert from "node:assert/strict";
import { closeIdleWorkers, idleWorkerCount } from "../../src/data/worker_pool.ts";
import { requestStop, stopFlag } from "../../src/data/worker_stop.ts";
import { lipschitz, recordMaxima } from "../../src/mechanisms/lipschitz.ts";
import { parallelLipschitz } from "../../src/mechanisms/parallel_lipschitz.ts";
import { createModel } from "../../src/models/mod.ts";
import { Rng } from "../../src/random/rng.ts";

const LIPSCHITZ_WORKER = new URL("../../src/mechanisms/lipschitz_worker.ts", import.meta.url);

/** A negative binomial model with a covariate, and draws in which some repeat exactly (ties). */
function problem(n: number, S: number) {
  const rng = new Rng(11);
  const z = Float64Array.from({ length: n }, () => rng.uniform() - 0.5);
  const x = new Float64Array(2 * n);
  z.forEach((v, i) => {
    x[2 * i] = 1;
    x[2 * i + 1] = v;
  });
  const y = Float64Array.from(z, (v) => Math.floor(10 * Math.exp(v) * rng.uniform()));
  const model = createModel("negbin", { n, k: 2, y, x, coefficientNames: ["intercept", "z"] });
  const draws = new Float64Array(S * model.dim);
  for (let s = 0; s < S; s++) {
    const source = s % 5 === 4 ? s - 3 : s; // every fifth draw repeats an earlier one
    const r = new Rng(source);
    const theta = [1.5 + 0.3 * r.uniform(), 0.5 * r.uniform(), 1, 1, 2 + 5 * r.uniform()];
    draws.set(theta, s * model.dim);
  }
  return { model, draws };
}

Deno.test("`parallelLipschitz()` gives the serial loop's bounds and arg-max exactly, ties included", async () => {
  const { model, draws } = problem(300, 41);
  const alpha = Float64Array.from({ length: 300 }, (_, i) => (i % 4) / 3);
  for (const options of [{}, { alpha }]) {
    const serial = lipschitz(model, draws, options);
    for (const threads of [2, 3, 7]) {
      const parallel = await parallelLipschitz(model, draws, options, {
        threads,
        minEvaluations: 0,
      });
      assert.deepEqual(parallel.perRecord, serial.perRecord, `threads=${threads}`);
      assert.equal(parallel.overall, serial.overall);
      assert.deepEqual(parallel.argmax, serial.argmax, `threads=${threads}`);
    }
  }
});

Deno.test("`parallelLipschitz()` keeps small problems and the matrix option in this thread", async () => {
  const { model, draws } = problem(20, 6);
  const matrix = await parallelLipschitz(model, draws, { matrix: true }, { minEvaluations: 0 });
  assert.equal(matrix.matrix?.length, 6 * 20);
  const small = await parallelLipschitz(model, draws);
  assert.deepEqual(small, lipschitz(model, draws));
  await assert.rejects(
    parallelLipschitz(model, draws.subarray(1), {}, { minEvaluations: 0 }),
    /not a positive multiple/,
  );
});

Deno.test("a stopped `parallelLipschitz()` rejects with its signal's reason and ends its workers", async () => {
  closeIdleWorkers();
  const { model, draws } = problem(300, 41);
  const parallel = { threads: 2, minEvaluations: 0 };
  await parallelLipschitz(model, draws, {}, parallel);
  const controller = new AbortController();
  const stopped = parallelLipschitz(model, draws, {}, { ...parallel, signal: controller.signal });
  controller.abort(new Error("the synthesis was stopped"));
  await assert.rejects(stopped, /the synthesis was stopped/);
  assert.equal(idleWorkerCount(LIPSCHITZ_WORKER), 0, "a stopped share's worker is never kept");
  await assert.rejects(
    parallelLipschitz(model, draws, {}, { ...parallel, signal: controller.signal }),
    /the synthesis was stopped/,
  );
  // The share loop reads the flag its job carries once a draw (set before the worker is ended).
  const stop = stopFlag();
  requestStop(stop);
  assert.throws(() => recordMaxima(model, draws, null, false, stop), /the work was stopped/);
  // Fresh workers after the stop give the serial bits.
  const again = await parallelLipschitz(model, draws, {}, parallel);
  assert.deepEqual(again.perRecord, lipschitz(model, draws).perRecord);
  closeIdleWorkers();
});
