import assert from "node:assert/strict";
import { fitModel } from "../../src/mcmc/fit.ts";
import { fitModelParallel } from "../../src/mcmc/parallel_fit.ts";
import { createModel } from "../../src/models/mod.ts";
import { Rng } from "../../src/random/rng.ts";
import { simulateNbMixture } from "../../src/studies/nb_mixture.ts";
import { twoRecordPoisson } from "../models/_helpers.ts";

Deno.test("`fitModelParallel()` gives the same draws as `fitModel()` for the same seed", async () => {
  const n = 200;
  const y = simulateNbMixture(new Rng(5), n);
  const model = createModel("negbin", {
    n,
    k: 1,
    y,
    x: new Float64Array(n).fill(1),
    coefficientNames: ["intercept"],
  });
  const alpha = Float64Array.from({ length: n }, (_, i) => 0.5 + 0.5 * ((i * 7) % 10) / 10);
  const options = { seed: 9, chains: 3, warmup: 150, draws: 100 };
  const progress: number[] = [];
  const parallel = await fitModelParallel(model, { alpha }, {
    ...options,
    threads: 2,
    onProgress: (done) => progress.push(done),
  });
  const serial = fitModel(model, { alpha }, options);
  assert.deepEqual(parallel.draws, serial.draws);
  assert.deepEqual(parallel.summary, serial.summary);
  assert.equal(parallel.gradientEvaluations, serial.gradientEvaluations);
  assert.equal(progress.at(-1), 3 * 250);
});

Deno.test("`fitModelParallel()` draws the `student-t` scales exactly, as `fitModel()` does", async () => {
  const n = 200;
  const y = simulateNbMixture(new Rng(6), n);
  const x = Float64Array.from({ length: 2 * n }, (_, q) => q % 2 === 0 ? 1 : (q % 7) / 7);
  const model = createModel("negbin", {
    n,
    k: 2,
    y,
    x,
    coefficientNames: ["intercept", "z"],
    coefficientPrior: "student-t",
  });
  assert.deepEqual(model.exactCoordinates?.indices, [2, 3]);
  const options = { seed: 4, chains: 2, warmup: 150, draws: 100 };
  const parallel = await fitModelParallel(model, { alpha: null }, { ...options, threads: 2 });
  const serial = fitModel(model, { alpha: null }, options);
  assert.deepEqual(parallel.draws, serial.draws);
  for (const chain of [0, 1]) {
    const first = serial.draws.subarray(chain * 100 * 5, chain * 100 * 5 + 5);
    const second = serial.draws.subarray(chain * 100 * 5 + 5, chain * 100 * 5 + 10);
    assert.notEqual(first[2], second[2], "an exact scale is a new draw every time");
  }
});

Deno.test("`fitModelParallel()` rejects a worker's error instead of hanging", async () => {
  const model = twoRecordPoisson();
  await assert.rejects(
    fitModelParallel(model, { alpha: Float64Array.of(1, 1), censor: -1 }, {
      seed: 1,
      chains: 2,
      warmup: 10,
      draws: 10,
    }),
    /censor/,
  );
});
