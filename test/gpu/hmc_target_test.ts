import assert from "node:assert/strict";
import { TILE } from "../../src/gpu/hmc_layout.ts";
import { evaluateGpuLogDensity } from "../../src/gpu/hmc_resources.ts";
import { gpuTarget } from "../../src/gpu/hmc_target.ts";
import { createModel, type Model, type ModelName, type Weighting } from "../../src/models/mod.ts";
import { checkDensity, points } from "./_density_parity.ts";
import { dataset, weights } from "./_glm_data.ts";
import { announceGpu, gpu, GPU_TEST } from "./_helpers.ts";

announceGpu("the GPU log-density tests", true);

async function checkModel(name: ModelName, n: number, weighting: (n: number) => Weighting) {
  const model = dataset(name, n, 11);
  await checkDensity(model, weighting(n), points(model, 12), name);
}

const MODELS: ModelName[] = ["poisson", "negbin", "beta", "normal", "lognormal", "logistic"];

for (const name of MODELS) {
  Deno.test({
    name: `\`evaluateGpuLogDensity()\` matches the f64 \`logDensity()\` of ${name} with weights α`,
    ...GPU_TEST,
    fn: () => checkModel(name, 300, (n) => ({ alpha: weights(n, 5) })),
  });
}

for (const name of MODELS) {
  Deno.test({
    name: `\`evaluateGpuLogDensity()\` matches ${name} over two record tiles with censoring`,
    ...GPU_TEST,
    fn: () => checkModel(name, 1300, (n) => ({ alpha: weights(n, 6), censor: 3 })),
  });
}

for (const n of [TILE, TILE + 1]) {
  Deno.test({
    name: `\`evaluateGpuLogDensity()\` matches normal with n = ${n} (tile of ${TILE} records)`,
    ...GPU_TEST,
    fn: () => checkModel("normal", n, () => ({ alpha: null })),
  });
}

Deno.test({
  name: "`evaluateGpuLogDensity()` flags a point where the f32 terms overflow",
  ...GPU_TEST,
  fn: async () => {
    const model = dataset("poisson", 50, 3);
    // η = 100 overflows e^η in f32 (not in f64): without censoring the point is non-finite.
    const u = Float64Array.of(100, 0, 0, 0, 0, 0);
    const plain = await evaluateGpuLogDensity(gpu!, model, { alpha: null }, u);
    assert.equal(plain.finite[0], false);
    // With censoring every record is clamped to −C: finite, as on the CPU.
    const censored = await evaluateGpuLogDensity(gpu!, model, { alpha: null, censor: 2 }, u);
    assert.equal(censored.finite[0], true);
    const grad = new Float64Array(6);
    const value = model.logDensity(u, grad, { alpha: null, censor: 2 });
    assert.ok(Math.abs(censored.logDensity[0] - value) < 1e-5 * Math.abs(value));
  },
});

Deno.test("`gpuTarget()` refuses models without GPU kernels and too many coefficients", () => {
  const model = dataset("poisson", 5, 1);
  const other = { ...model, name: "fbs" } as unknown as Model;
  assert.throws(() => gpuTarget(other, { alpha: null }), TypeError);
  const k = 17;
  const wide = createModel("normal", {
    n: 1,
    k,
    y: Float64Array.of(1),
    x: new Float64Array(k).fill(1),
    coefficientNames: Array.from({ length: k }, (_, j) => `c${j}`),
  });
  assert.throws(() => gpuTarget(wide, { alpha: null }), RangeError);
});
