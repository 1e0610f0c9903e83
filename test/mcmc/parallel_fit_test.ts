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
