import assert from "node:assert/strict";
import { requestStop, stopFlag } from "../../src/data/worker_stop.ts";
import { parallelBayesNetMaxima } from "../../src/mechanisms/parallel_bayes_net.ts";
import { assertSameMaxima, bayesNetProblem } from "../models/_bayes_net_draws.ts";

Deno.test(
  "`parallelBayesNetMaxima()` equals termMaxima bit for bit on 2 and 3 workers, structures varying",
  async () => {
    const { model, draws, dim, alpha } = bayesNetProblem({
      seed: 51,
      n: 400,
      levels: [2, 5, 3, 4, 2],
      S: 31,
      c: 0.3,
    });
    const structures = new Set(
      Array.from({ length: 31 }, (_, s) => draws.subarray(s * dim, s * dim + 5).join()),
    );
    assert.ok(structures.size > 20, `${structures.size} distinct structures`);
    // Draws 3 and 30 repeat draws 1 and 0 (every extreme there ties: the first draw wins), and
    // draw 7 has record 0's cell of the last column's table at −∞ (u = −∞ for the records in
    // that cell, NaN → +∞ where α = 0).
    draws.copyWithin(3 * dim, dim, 2 * dim);
    draws.copyWithin(30 * dim, 0, dim);
    const seventh = draws.subarray(7 * dim, 8 * dim);
    seventh[model.tableOffsets(seventh)[4] + model.cellIndex(4, seventh[4])[0]] = -Infinity;
    for (const threads of [2, 3]) {
      for (const weights of [null, alpha]) {
        const label = `${threads} threads, ${weights === null ? "α = 1" : "mixed α"}`;
        const want = model.termMaxima(draws, dim, weights);
        const got = await parallelBayesNetMaxima(model, draws, dim, weights, {
          threads,
          minLookups: 0,
        });
        assertSameMaxima(got, want, label);
        assert.ok(want.argDraw.some((s) => s > 20), `${label}: later shares win some maxima`);
        assert.ok(want.perRecord.some((v) => v === Infinity), `${label}: the −∞ entry counts`);
      }
    }
  },
);

Deno.test(
  "`parallelBayesNetMaxima()` with given columns equals termMaxima (the workers' network has them too)",
  async () => {
    // A worker that rebuilt the network without its given columns would model them too: other
    // parent sets, another layout of a draw, another Δ (the attack: a release with `--x` whose
    // bound came from the wrong model).
    const { model, draws, dim, alpha } = bayesNetProblem({
      seed: 53,
      n: 300,
      levels: [3, 4, 2, 5],
      S: 12,
      c: 0.3,
      given: [1],
    });
    assert.deepEqual(model.order, [0, 2, 3]);
    for (const weights of [null, alpha]) {
      const got = await parallelBayesNetMaxima(model, draws, dim, weights, {
        threads: 2,
        minLookups: 0,
      });
      assertSameMaxima(got, model.termMaxima(draws, dim, weights), "given column 1");
    }
  },
);

Deno.test("`parallelBayesNetMaxima()` stays on this thread below its size", async () => {
  const { model, draws, dim } = bayesNetProblem({ seed: 52, n: 50, levels: [2, 3], S: 4, c: 1 });
  const got = await parallelBayesNetMaxima(model, draws, dim, null);
  assertSameMaxima(got, model.termMaxima(draws, dim, null), "small");
});

Deno.test("`parallelBayesNetMaxima()` ends when its stop flag is set: each worker's loop reads it", async () => {
  const { model, draws, dim } = bayesNetProblem({ seed: 5, n: 100, levels: [2, 3], S: 12, c: 0.3 });
  const stop = stopFlag();
  requestStop(stop);
  await assert.rejects(
    parallelBayesNetMaxima(model, draws, dim, null, { threads: 2, minLookups: 0, stop }),
    /the work was stopped/,
  );
  assert.throws(() => model.termMaxima(draws, dim, null, stop), { name: "StopRequested" });
});
