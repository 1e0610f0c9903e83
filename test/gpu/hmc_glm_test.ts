/**
 * Issue 27: `--sampler gpu-hmc` for the GLMs (logistic, normal, lognormal regression with two
 * covariates and weights α): the GPU's many-chain HMC agrees with the CPU's NUTS on every
 * parameter's posterior mean within 4 combined MCSE. (Categorical regression's check is
 * `hmc_categorical_test.ts`.)
 */
import assert from "node:assert/strict";
import { sampleGpuHmc } from "../../src/gpu/hmc.ts";
import { fitModel, summarizeFit } from "../../src/mcmc/fit.ts";
import type { ModelName } from "../../src/models/mod.ts";
import { checkMeans, meansOf } from "./_check_means.ts";
import { dataset, weights } from "./_glm_data.ts";
import { announceGpu, gpu, GPU_TEST } from "./_helpers.ts";

announceGpu("the GPU HMC sampler's GLM tests", true);

const GLMS: ModelName[] = ["logistic", "normal", "lognormal"];

for (const name of GLMS) {
  Deno.test({
    name: `\`sampleGpuHmc()\` agrees with NUTS on a weighted ${name} regression within 4 MCSE`,
    ...GPU_TEST,
    fn: async () => {
      const model = dataset(name, 600, 21);
      const weighting = { alpha: weights(600, 22) };
      const nuts = fitModel(model, weighting, { seed: 3, chains: 4, warmup: 500, draws: 2000 });
      assert.equal(nuts.divergences, 0, `${name}: NUTS diverged`);
      const result = await sampleGpuHmc(gpu!, model, weighting, {
        seed: 4,
        chains: 64,
        warmup: 300,
        draws: 200,
        batchSize: 100,
      });
      const fit = summarizeFit(model, result);
      assert.ok(fit.divergences <= 0.01 * fit.S, `${name}: ${fit.divergences} divergences`);
      checkMeans(fit, meansOf(nuts), name);
    },
  });
}
