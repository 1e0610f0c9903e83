import assert from "node:assert/strict";
import {
  createGpuLipschitz,
  LOOP_BUDGET,
  loopIterationsPerDraw,
  planTiles,
} from "../../src/gpu/lipschitz_gpu.ts";
import { packLipschitz } from "../../src/gpu/lipschitz_pack.ts";
import { lipschitz } from "../../src/mechanisms/lipschitz.ts";
import { createModel, type Model } from "../../src/models/mod.ts";
import { Rng } from "../../src/random/rng.ts";
import { assertSameAnswer, logitProblem, nextSeed } from "./_logit_parity.ts";
import { announceGpu, gpuTest } from "./_helpers.ts";

announceGpu("the loop-budget tests");

Deno.test("`planTiles()` keeps every thread's draws and the groups within the loop budget", () => {
  const limits = { maxStorageBufferBindingSize: 2 ** 27, maxComputeWorkgroupsPerDimension: 65535 };
  for (const [n, draws, cap] of [[100_000, 4000, 1666], [1, 10 ** 7, 3], [640, 4000, 7500]]) {
    const plan = planTiles(n, draws, 5, 9, false, limits, cap);
    assert.ok(plan.drawsPerGroup <= cap, `n=${n}: ${plan.drawsPerGroup} > ${cap}`);
    assert.ok(plan.groups <= LOOP_BUDGET, `n=${n}: ${plan.groups} groups`);
    assert.ok(plan.groups * plan.drawsPerGroup >= plan.drawsPerTile);
  }
  // Without a cap the plan is the one the tiling tests pin (one group of every draw here).
  assert.equal(planTiles(100_000, 4000, 5, 9, false, limits).drawsPerGroup, 4000);
});

/** An NB model with φ < 8 (the log Γ loop runs) and a Poisson model, K = 3, S draws. */
function countProblem(name: "negbin" | "poisson", rng: Rng, n: number, S: number) {
  const k = 3;
  const x = new Float64Array(n * k);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i * k] = 1;
    x[i * k + 1] = rng.normal();
    x[i * k + 2] = rng.uniform() < 0.5 ? 1 : 0;
    y[i] = Math.floor(10 * rng.uniform());
  }
  const model: Model = createModel(name, { n, k, y, x, coefficientNames: ["a", "b", "c"] });
  const draws = new Float64Array(S * model.dim);
  for (let s = 0; s < S; s++) {
    const theta = draws.subarray(s * model.dim, (s + 1) * model.dim);
    theta[0] = 1 + 0.3 * rng.normal();
    theta[1] = 0.3 * rng.normal();
    theta[2] = 0.3 * rng.normal();
    theta[3] = theta[4] = theta[5] = 1;
    if (model.dim > 6) theta[6] = 2 * Math.exp(0.3 * rng.normal());
  }
  return { model, draws };
}

// One workgroup per dispatch dimension makes every thread loop over all the draws of its tile,
// as n ≥ 2¹⁶ records do with the device's limits. Without the cap on draws per thread, llvmpipe
// ended the loops after 65535 iterations and these maxima missed the last draws.
gpuTest(
  "threads that would loop past llvmpipe's 65535 iterations get fewer draws each",
  async (ctx) => {
    const seed = nextSeed();
    const rng = new Rng(seed);
    const limits = { maxComputeWorkgroupsPerDimension: 1 };
    const backend = createGpuLipschitz(ctx, { limits });
    const cases = [
      { label: "negbin φ < 8", ...countProblem("negbin", rng, 128, 8000) },
      { label: "poisson", ...countProblem("poisson", rng, 128, 16000) },
      { label: "categorical L = 6", ...logitProblem(rng, { levels: 6, n: 128, k: 3, s: 4000 }) },
    ];
    for (const { label, model, draws } of cases) {
      const packed = packLipschitz(model, draws, null);
      const S = draws.length / model.dim;
      assert.ok(S * loopIterationsPerDraw(packed) > 65535, `${label}: past the limit uncapped`);
      const got = await backend.compute(model, draws);
      assertSameAnswer(`${label} seed ${seed}`, got, lipschitz(model, draws));
    }
  },
);
