import assert from "node:assert/strict";
import { TILE } from "../../src/gpu/hmc_layout.ts";
import { evaluateGpuLogDensity } from "../../src/gpu/hmc_resources.ts";
import { gpuTarget } from "../../src/gpu/hmc_target.ts";
import { createModel, type Model, type ModelName, type Weighting } from "../../src/models/mod.ts";
import { Rng } from "../../src/random/rng.ts";
import { dataset, weights } from "./_glm_data.ts";
import { announceGpu, gpu, GPU_TEST } from "./_helpers.ts";

announceGpu("the GPU log-density tests", true);

/**
 * Tolerances for f32 (unit roundoff u = 2⁻²⁴ ≈ 6e-8). Each record's term passes through a few
 * f32 special functions whose WGSL error bounds are tens of u relative to the largest
 * intermediate (for the negative binomial y·log(φ + y) ≈ 100·|ℓ_i|), and the tree reduction adds
 * about log₂(n)·u of the sum of magnitudes. So the value is compared with the f64 CPU value to
 * VALUE_TOL of Σ_i |α_i ℓ_i| (plus the prior's magnitude), and gradient component j to GRAD_TOL of
 * Σ_i |∂(α_i ℓ_i)/∂u_j| plus the prior's |∂/∂u_j| (computed in f64 one record at a time).
 */
const VALUE_TOL = 1e-5;
const GRAD_TOL = 1e-4;

/**
 * Random points around the model's starting point, plus (for the models with an extra
 * parameter) one where it is large and one where it is small, which exercise both branches of
 * the negative binomial's log Γ and ψ differences (φ above and below 8).
 */
function points(model: Model, seed: number): Float64Array {
  const rng = new Rng(seed);
  const d = model.dim;
  const init = model.initialPoint();
  const out: number[] = [];
  for (let s = 0; s < 4; s++) {
    for (let j = 0; j < d; j++) out.push(init[j] + 0.4 * rng.normal());
  }
  if (d % 2 === 1) {
    for (const extra of [-6, 2.5]) {
      const u = [...init];
      u[d - 1] = extra * (model.name === "negbin" || model.name === "beta" ? 1 : 0.3);
      out.push(...u);
    }
  }
  return Float64Array.from(out);
}

/** Σ_i |record i's contribution| to the value and to each gradient component, in f64. */
function magnitudes(model: Model, weighting: Weighting, u: Float64Array) {
  const n = model.design.n;
  const d = model.dim;
  const prior = new Float64Array(d);
  const priorValue = model.logDensity(u, prior, { ...weighting, alpha: new Float64Array(n) });
  const value = { scale: Math.abs(priorValue) };
  const grad = prior.map(Math.abs);
  const g = new Float64Array(d);
  const alpha = weighting.alpha ?? new Float64Array(n).fill(1);
  for (let i = 0; i < n; i++) {
    if (alpha[i] === 0) continue;
    // A new α per record: a model may keep sums of an uncensored weighting's α (`Weighting`).
    const single = new Float64Array(n);
    single[i] = alpha[i];
    const v = model.logDensity(u, g, { ...weighting, alpha: single });
    value.scale += Math.abs(v - priorValue);
    for (let j = 0; j < d; j++) grad[j] += Math.abs(g[j] - prior[j]);
  }
  return { value: value.scale, grad };
}

async function checkModel(name: ModelName, n: number, weighting: (n: number) => Weighting) {
  const model = dataset(name, n, 11);
  const w = weighting(n);
  const u = points(model, 12);
  const d = model.dim;
  const gpuEval = await evaluateGpuLogDensity(gpu!, model, w, u);
  const grad = new Float64Array(d);
  for (let s = 0; s < u.length / d; s++) {
    const us = u.subarray(s * d, (s + 1) * d);
    const value = model.logDensity(us, grad, w);
    const scale = magnitudes(model, w, us);
    assert.ok(gpuEval.finite[s], `${name} point ${s}: GPU flagged a non-finite term`);
    const dv = Math.abs(gpuEval.logDensity[s] - value);
    assert.ok(
      dv <= VALUE_TOL * scale.value,
      `${name} point ${s}: log density GPU ${
        gpuEval.logDensity[s]
      }, CPU ${value}, scale ${scale.value}`,
    );
    for (let j = 0; j < d; j++) {
      const dg = Math.abs(gpuEval.gradient[s * d + j] - grad[j]);
      assert.ok(
        dg <= GRAD_TOL * scale.grad[j],
        `${name} point ${s} ${model.paramNames[j]}: GPU ${gpuEval.gradient[s * d + j]}, ` +
          `CPU ${grad[j]}, scale ${scale.grad[j]}`,
      );
    }
  }
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
