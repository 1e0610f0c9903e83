import { createGpuLipschitz } from "../../src/gpu/lipschitz_gpu.ts";
import { lipschitz } from "../../src/mechanisms/lipschitz.ts";
import { createModel } from "../../src/models/mod.ts";
import { Rng } from "../../src/random/rng.ts";
import {
  assertBadInputsInF64,
  assertConfirmsGroupedOrNot,
  assertMatrixStreamedUnweighted,
  assertSameAnswer,
  assertSelectsGpu,
  badInputsProblem,
  boundRatiosTest,
  checkKernelBounds,
  logitProblem,
  magnitudeParityTest,
  nextSeed,
  pipelineData,
} from "./_logit_parity.ts";
import { announceGpu, gpuTest } from "./_helpers.ts";
import { synthesisParityTests } from "./_synthesis_parity.ts";

announceGpu("the logistic GPU Lipschitz tests");

gpuTest(
  "`createGpuLipschitz()` gives the CPU's Δ for logistic with K = 1 and K = 3",
  async (ctx) => {
    const backend = createGpuLipschitz(ctx);
    for (const k of [1, 3]) {
      const seed = nextSeed();
      const { model, draws, alpha } = logitProblem(new Rng(seed), { levels: 2, n: 300, k, s: 40 });
      await assertMatrixStreamedUnweighted(backend, `K=${k} seed ${seed}`, model, draws, alpha);
    }
  },
);

/** L, n, K and S of the problems of the magnitude parity test. */
const MAGNITUDES = {
  wide: [[2, 400, 3, 48], [2, 400, 2, 48], [2, 300, 1, 64]],
  groupedWide: [2, 400, 3, 48],
  grouped: [2, 400, 3, 48],
} as const;

magnitudeParityTest("logistic", MAGNITUDES, 3, (s) => `K=${s.k}${s.grouped ? " grouped" : ""}`);

boundRatiosTest(
  "logistic",
  [false, true].map((grouped) => ({ levels: 2, n: 400, k: 3, s: 48, wide: true, grouped })),
  logitProblem,
  (shape) => shape.grouped ? "grouped rows" : "raw-scale covariate",
);

gpuTest(
  "logistic: η at each branch of the kernel (±1e-6 … ±700, both sides of 87)",
  async (ctx) => {
    const backend = createGpuLipschitz(ctx);
    const etas = [1e-6, 1e-3, 0.5, 1, 20, 86.9, 87, 87.1, 88, 100, 300, 700];
    const signed = etas.flatMap((v) => [v, -v]);
    // Both outcomes at each η = x_1 (β ≈ (0, 1)); the draws move η a little.
    const n = 2 * signed.length;
    const k = 2;
    const y = Float64Array.from({ length: n }, (_, i) => i % 2);
    const x = new Float64Array(n * k);
    for (let i = 0; i < n; i++) {
      x[i * k] = 1;
      x[i * k + 1] = signed[i >> 1];
    }
    const model = createModel("logistic", {
      n,
      k,
      y,
      x,
      coefficientNames: ["intercept", "eta"],
      outcomeLevels: ["0", "1"],
    });
    const S = 6;
    const draws = new Float64Array(S * model.dim);
    for (let s = 0; s < S; s++) {
      draws[s * model.dim] = s === 0 ? 0 : 1e-7 * s;
      draws[s * model.dim + 1] = 1 - 1e-3 * s;
      draws[s * model.dim + 2] = draws[s * model.dim + 3] = 1;
    }
    const alpha = Float64Array.from({ length: n }, (_, i) => i % 5 === 4 ? 0 : 1 - i / (4 * n));
    const { worst } = await checkKernelBounds(ctx, "branches", { model, draws, alpha });
    const got = await backend.compute(model, draws, { alpha, matrix: true });
    assertSameAnswer("branches", got, lipschitz(model, draws, { alpha, matrix: true }));
    console.log(`logistic branches: largest |f32 − f64| / E_i ${worst.toFixed(2)}`);
  },
);

gpuTest(
  "logistic: outcomes other than 0 or 1, covariate outliers and bad draws are computed in f64",
  async (ctx) => {
    const backend = createGpuLipschitz(ctx);
    const seed = nextSeed();
    for (const bad of [2, 0.5, -1, NaN]) {
      const { model, draws, alpha } = badInputsProblem(seed, 2, bad);
      // A draw with a huge coefficient (f64 on the CPU) and one with NaN (every Δ_i infinite).
      await assertBadInputsInF64(backend, `y=${bad} seed ${seed}`, model, draws, alpha, 1, 0);
    }
  },
);

gpuTest("`--backend gpu` runs the logistic kernel, without a fall-back note", async () => {
  const { model, draws, alpha } = logitProblem(new Rng(5), { levels: 2, n: 200, k: 3, s: 30 });
  await assertSelectsGpu(model, draws, alpha);
});

const PIPELINE = pipelineData("logistic", "y,z,b", (rng) => {
  const z = rng.normal();
  const b = rng.uniform() < 0.5 ? 1 : 0;
  const p = 1 / (1 + Math.exp(-(-0.3 + 1.2 * z - 0.8 * b)));
  return `${rng.uniform() < p ? "yes" : "no"},${z.toFixed(3)},${b}`;
});

synthesisParityTests(PIPELINE, { model: "logistic", x: ["z", "b"], seed: 11 }, [
  ["lw", { epsilon: 8 }],
  ["weighted-e", { epsilon: 20, g: 0.5 }],
  ["censored", { epsilon: 4 }],
]);

Deno.test("`confirmLipschitz()` evaluates logistic records as the whole model does, grouped rows or not", () => {
  assertConfirmsGroupedOrNot(2);
});
