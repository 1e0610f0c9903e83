import assert from "node:assert/strict";
import { createGpuLipschitz } from "../../src/gpu/lipschitz_gpu.ts";
import { packLipschitz } from "../../src/gpu/lipschitz_pack.ts";
import { lipschitz } from "../../src/mechanisms/lipschitz.ts";
import { Rng } from "../../src/random/rng.ts";
import * as lp from "./_logit_parity.ts";
import { announceGpu, gpuTest } from "./_helpers.ts";
import { synthesisParityTests } from "./_synthesis_parity.ts";

announceGpu("the categorical GPU Lipschitz tests");

gpuTest(
  "`createGpuLipschitz()` gives the CPU's Δ for categorical with L = 2, 3, 6 and K = 1, 3",
  async (ctx) => {
    const backend = createGpuLipschitz(ctx);
    for (const levels of [2, 3, 6]) {
      for (const k of [1, 3]) {
        const seed = lp.nextSeed();
        const shape = { levels, n: 300, k, s: 40, categorical: true };
        const { model, draws, alpha } = lp.logitProblem(new Rng(seed), shape);
        assert.equal(model.name, "categorical");
        const label = `L=${levels} K=${k} seed ${seed}`;
        await lp.assertMatrixStreamedUnweighted(backend, label, model, draws, alpha);
      }
    }
  },
);

/** L, n, K and S of the problems of the magnitude parity test. */
const MAGNITUDES = {
  wide: [[3, 400, 3, 40], [5, 300, 2, 40], [4, 300, 1, 48]],
  groupedWide: [4, 400, 3, 40],
  grouped: [3, 400, 3, 40],
} as const;

lp.magnitudeParityTest(
  "categorical",
  MAGNITUDES,
  2,
  (shape) => `L=${shape.levels} K=${shape.k}${shape.grouped ? " grouped" : ""}`,
);

lp.boundRatiosTest(
  "categorical",
  ([[3, false], [6, false], [4, true]] as const).map(([levels, grouped]) => ({
    levels,
    n: 400,
    k: 3,
    s: 40,
    wide: true,
    grouped,
  })),
  lp.logitProblem,
  (shape) => `L=${shape.levels}${shape.grouped ? " grouped rows" : ""}`,
);

gpuTest(
  "categorical: outcomes that are no level's code, outliers and bad draws are computed in f64",
  async (ctx) => {
    const backend = createGpuLipschitz(ctx);
    const seed = lp.nextSeed();
    for (const bad of [4, 1.5, -1, NaN]) {
      const { model, draws, alpha } = lp.badInputsProblem(seed, 4, bad);
      const label = `y=${bad} seed ${seed}`;
      const packed = packLipschitz(model, draws, alpha);
      assert.ok(packed.cpuRecords.includes(5), label);
      assert.equal(packed.cpuRecords.includes(17), alpha[17] > 0, label);
      // A coefficient of the last level that is huge (f64 on the CPU), then one that is NaN.
      await lp.assertBadInputsInF64(backend, label, model, draws, alpha, 5, 4);
    }
  },
);

gpuTest("categorical: tiles of records and draws give the untiled answer", async (ctx) => {
  const seed = lp.nextSeed();
  // 9 coefficients per draw: 4 KiB bindings hold 113 draws and 204 results; 3 workgroups of 64
  // threads 192 records. So 300 records × 250 draws run as 2 × 3 tiles.
  const shape = { levels: 4, n: 300, k: 3, s: 250, wide: true };
  const { model, draws, alpha } = lp.logitProblem(new Rng(seed), shape);
  const limits = { maxStorageBufferBindingSize: 4096, maxComputeWorkgroupsPerDimension: 3 };
  const tiled = await createGpuLipschitz(ctx, { limits }).compute(model, draws, { alpha });
  lp.assertSameAnswer(`tiled seed ${seed}`, tiled, lipschitz(model, draws, { alpha }));
  const matrix = await createGpuLipschitz(ctx, { limits }).compute(model, draws, {
    alpha,
    matrix: true,
  });
  lp.assertSameAnswer(`tiled matrix seed ${seed}`, matrix, lipschitz(model, draws, { alpha }));
});

gpuTest("`--backend gpu` runs the categorical kernel, without a fall-back note", async () => {
  const { model, draws, alpha } = lp.logitProblem(new Rng(5), { levels: 4, n: 200, k: 3, s: 30 });
  await lp.assertSelectsGpu(model, draws, alpha);
});

Deno.test("`confirmLipschitz()` evaluates categorical records as the whole model does, grouped rows or not", () => {
  lp.assertConfirmsGroupedOrNot(3);
});

const PIPELINE = lp.pipelineData("categorical", "y,z", (rng) => {
  const z = rng.normal();
  const eta = [0, 0.4 + 0.9 * z, -0.2 - 0.7 * z];
  const p = eta.map(Math.exp);
  let u = rng.uniform() * (p[0] + p[1] + p[2]);
  let level = 0;
  while (level < 2 && u >= p[level]) u -= p[level++];
  return `${["red", "green", "blue"][level]},${z.toFixed(3)}`;
});

synthesisParityTests(
  PIPELINE,
  { model: "categorical", x: ["z"], seed: 13 },
  [["lw", { epsilon: 10 }], ["censored", { epsilon: 4 }]],
  { alpha: false },
);
