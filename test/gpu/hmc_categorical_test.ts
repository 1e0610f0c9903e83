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
import { categoricalRegression, weights } from "./_glm_data.ts";
import { announceGpu, gpu, GPU_HMC_RUN, GPU_TEST } from "./_helpers.ts";

announceGpu("the GPU HMC sampler's categorical tests", true);

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
          const model = categoricalRegression(n, levels, k, 10 * levels + k);
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
    // Unweighted (`_nuts_cases.ts` says why): L = 3, K = 2, n = 400, the NUTS fit recorded.
    const ratio = await checkGpuHmcAgainstNuts(gpu!, "categorical");
    console.log(`categorical: largest |GPU − NUTS| / combined MCSE ${ratio.toFixed(2)}`);
  },
});

Deno.test({
  name: "`synthesize()` with `--sampler gpu-hmc` releases a categorical outcome from GPU draws",
  ...GPU_TEST,
  fn: async () => {
    const model = categoricalRegression(150, 3, 2, 41);
    const levels = model.design.outcomeLevels!;
    const rows = Array.from(
      { length: 150 },
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
  const wide = categoricalRegression(10, 5, 5, 1);
  assert.match(gpuHmcRefusal(wide)!, /categorical model .* coefficients=20/);
  assert.equal(gpuHmcRefusal(categoricalRegression(10, 9, 2, 1)), null);
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
  assert.equal(gpuTarget(categoricalRegression(10, 9, 2, 1), { alpha: null }).predictors, 8);
});
