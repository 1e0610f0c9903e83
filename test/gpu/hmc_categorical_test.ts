/**
 * Issue 27: GPU HMC for the categorical model, whose records have L − 1 linear predictors (one
 * per level but the reference): the GPU log target and gradient equal the f64 `logDensity` (with
 * weights α, with and without censoring, L = 3 and 4, K = 1 to 3 covariates), `sampleGpuHmc`
 * agrees with NUTS on every parameter's posterior mean within 4 combined MCSE, and a model with
 * more coefficients than the kernels hold is refused.
 */
import assert from "node:assert/strict";
import { MAX_K } from "../../src/gpu/hmc_layout.ts";
import { gpuHmcRefusal, gpuTarget } from "../../src/gpu/hmc_target.ts";
import { CategoricalModel } from "../../src/models/categorical.ts";
import { synthesizeYOnZ } from "../_synthesis.ts";
import { checkGpuHmcAgainstNuts } from "./_check_means.ts";
import { checkDensity, points } from "./_density_parity.ts";
import { categoricalData, weights } from "./_glm_data.ts";
import { announceGpu, gpu, GPU_HMC_RUN, GPU_TEST } from "./_helpers.ts";

announceGpu("the GPU HMC sampler's categorical tests", true);

/**
 * n records with `levels` outcome levels and k covariates (an intercept, then standard normals),
 * the outcome drawn from the model at β_l = (intercept_l, ±1.2/j): intercepts 0.8, −0.8, 0.4.
 */
function categorical(n: number, levels: number, k: number, seed: number): CategoricalModel {
  const names = Array.from({ length: levels }, (_, l) => `level${l}`);
  return categoricalData(n, k, names, seed, (m) => {
    const theta = new Float64Array(2 * m).fill(1);
    for (let l = 1; l < levels; l++) {
      for (let j = 0; j < k; j++) {
        theta[(l - 1) * k + j] = j === 0 ? [0.8, -0.8, 0.4][l - 1] : (l % 2 === 1 ? 1.2 : -1.2) / j;
      }
    }
    return theta;
  });
}

/** Random points around the starting point and one with every coefficient tripled (wide η). */
function categoricalPoints(model: CategoricalModel, seed: number): Float64Array {
  const near = points(model, seed);
  const wide = near.slice(0, model.dim);
  for (let j = 0; j < model.dim / 2; j++) wide[j] *= 3;
  return Float64Array.of(...near, ...wide);
}

for (const levels of [3, 4]) {
  for (const k of [1, 2, 3]) {
    for (const censored of [false, true]) {
      // Censored: two record tiles (the tiled evaluation and reduction); else one.
      const n = censored ? 1300 : 300;
      Deno.test({
        name: `\`evaluateGpuLogDensity()\` matches categorical with L = ${levels}, K = ${k}, ` +
          `weights α${censored ? ", censoring and two record tiles" : ""}`,
        ...GPU_TEST,
        fn: async () => {
          const model = categorical(n, levels, k, 10 * levels + k);
          const weighting = censored
            ? { alpha: weights(n, 6), censor: 3 }
            : { alpha: weights(n, 5) };
          const label = `categorical L=${levels} K=${k}${censored ? " censored" : ""}`;
          const errors = await checkDensity(model, weighting, categoricalPoints(model, 12), label);
          console.log(
            `${label}: largest relative error value ${errors.value.toExponential(2)}, ` +
              `gradient ${errors.gradient.toExponential(2)}`,
          );
        },
      });
    }
  }
}

Deno.test({
  name: "`sampleGpuHmc()` agrees with NUTS on a categorical regression within 4 MCSE",
  ...GPU_TEST,
  fn: async () => {
    // Unweighted: with these weights (effective n ≈ 170) NUTS meets the paper prior's funnel
    // (59 to 135 divergences in 8,000 draws), and the reference would be biased.
    const model = categorical(400, 3, 2, 31);
    const ratio = await checkGpuHmcAgainstNuts(gpu!, model, { alpha: null }, "categorical");
    console.log(`categorical: largest |GPU − NUTS| / combined MCSE ${ratio.toFixed(2)}`);
  },
});

Deno.test({
  name: "`synthesize()` with `--sampler gpu-hmc` releases a categorical outcome from GPU draws",
  ...GPU_TEST,
  fn: async () => {
    const model = categorical(300, 3, 2, 41);
    const levels = model.design.outcomeLevels!;
    const rows = Array.from(
      { length: 300 },
      (_, i) => `${levels[model.design.y[i]]},${model.design.x[2 * i + 1].toFixed(3)}`,
    );
    const notes: string[] = [];
    const result = await synthesizeYOnZ(
      rows,
      "categorical.csv",
      { model: "categorical", mechanism: "lw", ...GPU_HMC_RUN },
      { onNote: (line) => notes.push(line) },
    );
    assert.deepEqual(notes.filter((line) => line.includes("GPU HMC")), []);
    assert.ok(result.report.epsilon <= 12);
    assert.equal(result.datasets.length, 2);
    const synthetic = result.datasets[0].get("y") as string[];
    assert.ok(synthetic.every((level) => levels.includes(level)));
  },
});

Deno.test("`gpuTarget()` refuses a categorical model with more coefficients than the kernels hold", () => {
  // (L − 1)·K = 4·5 = 20 > 16 coefficients; 8·2 = 16 fit.
  const wide = categorical(10, 5, 5, 1);
  assert.match(gpuHmcRefusal(wide)!, /categorical model .* coefficients=20/);
  assert.equal(gpuHmcRefusal(categorical(10, 9, 2, 1)), null);
  assert.throws(
    () => gpuTarget(wide, { alpha: null }),
    {
      name: "RangeError",
      message: new RegExp(
        `^Cannot run the categorical model .* more than ${MAX_K} .*coefficients=20, ` +
          `predictors=4, k=5$`,
      ),
    },
  );
  assert.equal(gpuTarget(categorical(10, 9, 2, 1), { alpha: null }).predictors, 8);
});
