/**
 * The hurdle model's GPU Lipschitz kernel (shaders/lipschitz_hurdle.wgsl) against the f64 CPU
 * loop: Δ, its arg-max and every Δ_i equal bit for bit, on zeros and positive amounts spanning
 * orders of magnitude (y from 1e-4 to 1e7, |x·γ| from 1e-6 to 700, raw-scale covariates near
 * 1000), with near ties between records and draws; and ε and the released data of a synthesis
 * equal to the CPU run's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createGpuLipschitz } from "../../src/gpu/lipschitz_gpu.ts";
import { packLipschitz } from "../../src/gpu/lipschitz_pack.ts";
import { lipschitz } from "../../src/mechanisms/lipschitz.ts";
import { createModel, type Model } from "../../src/models/mod.ts";
import { Rng } from "../../src/random/rng.ts";
import {
  assertParityOverShapes,
  assertSameAnswer,
  assertSelectsGpu,
  boundRatiosTest,
  logUniform,
  nextSeed,
  nextUp,
  pipelineData,
  randomAlpha,
  sign,
  ulpAway,
} from "./_logit_parity.ts";
import { announceGpu, gpuTest } from "./_helpers.ts";
import { synthesisParityTests } from "./_synthesis_parity.ts";

announceGpu("the hurdle GPU Lipschitz tests");

/** How a hurdle problem is drawn. */
interface HurdleShape {
  readonly n: number;
  /** Coefficients per part, intercept included (1 to 3). */
  readonly k: number;
  readonly s: number;
  /** Amounts, η and σ over many orders of magnitude, a covariate near 1000, near ties. */
  readonly wide?: boolean;
  /** With `wide`, the share of records and draws that repeat the one before. */
  readonly ties?: number;
  /** The share of zero outcomes (default 0.3). */
  readonly zeros?: number;
}

/** A hurdle model, S constrained draws θ = (γ, β, σ_γ, σ_β, σ) and α with zeros and ones. */
function hurdleProblem(
  rng: Rng,
  shape: HurdleShape,
): { model: Model; draws: Float64Array; alpha: Float64Array } {
  const { n, k, s, wide = false, ties = 0.05, zeros = 0.3 } = shape;
  const x = new Float64Array(n * k);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i * k] = 1;
    if (k > 1) x[i * k + 1] = wide ? 1000 + sign(rng) * logUniform(rng, 1e-3, 1e3) : rng.normal();
    if (k > 2) x[i * k + 2] = rng.uniform() < 0.5 ? 1 : 0;
    y[i] = rng.uniform() < zeros ? 0 : wide ? logUniform(rng, 1e-4, 1e7) : Math.exp(rng.normal());
    if (wide && i > 0 && rng.uniform() < ties) {
      y[i] = y[i - 1];
      x.copyWithin(i * k, (i - 1) * k, i * k);
      if (k > 1 && rng.uniform() < 0.5) x[i * k + 1] = nextUp(x[i * k + 1]);
    }
  }
  const names = ["intercept", "z", "b"].slice(0, k);
  const model = createModel("hurdle", { n, k, y, x, coefficientNames: names });
  const dim = model.dim;
  const draws = new Float64Array(s * dim);
  for (let d = 0; d < s; d++) {
    const theta = draws.subarray(d * dim, (d + 1) * dim);
    for (let part = 0; part < 2; part++) {
      const c = theta.subarray(part * k, (part + 1) * k);
      if (!wide) {
        for (let j = 0; j < k; j++) c[j] = (j === 1 ? 0.5 : 1.5) * rng.normal();
      } else {
        // η = ±L + b_1·(x_1 − 1000) + b_2·x_2: L up to 700 for γ, near log y's range for β.
        const b1 = k > 1 ? sign(rng) * logUniform(rng, 1e-9, part === 0 ? 0.35 : 0.01) : 0;
        const level = part === 0 ? sign(rng) * logUniform(rng, 1e-6, 700) : 8 * rng.normal();
        c[0] = -1000 * b1 + level;
        if (k > 1) c[1] = b1;
        if (k > 2) c[2] = sign(rng) * logUniform(rng, 1e-6, 10);
      }
    }
    for (let j = 2 * k; j < 4 * k; j++) theta[j] = 1;
    theta[4 * k] = wide ? logUniform(rng, 0.01, 50) : 0.5 + rng.uniform();
    if (wide && d > 0 && rng.uniform() < ties) {
      theta.set(draws.subarray((d - 1) * dim, d * dim));
      if (rng.uniform() < 0.5) {
        const j = rng.uniform() < 0.5 ? 0 : k;
        theta[j] = ulpAway(theta[j]);
      }
    }
  }
  return { model, draws, alpha: randomAlpha(rng, n) };
}

gpuTest("`createGpuLipschitz()` gives the CPU's Δ for hurdle with K = 1 and K = 3", async (ctx) => {
  const backend = createGpuLipschitz(ctx);
  for (const k of [1, 3]) {
    const seed = nextSeed();
    const { model, draws, alpha } = hurdleProblem(new Rng(seed), { n: 300, k, s: 40 });
    const label = `K=${k} seed ${seed}`;
    const packed = packLipschitz(model, draws, alpha);
    assert.equal(packed.cpuRecords.length, 0, label);
    assert.equal(packed.cpuDraws.length, 0, label);
    const want = lipschitz(model, draws, { alpha, matrix: true });
    assertSameAnswer(label, await backend.compute(model, draws, { alpha, matrix: true }), want);
    assertSameAnswer(`${label} streamed`, await backend.compute(model, draws, { alpha }), want);
    assertSameAnswer(
      `${label} α = 1`,
      await backend.compute(model, draws),
      lipschitz(model, draws),
    );
  }
});

gpuTest(
  "hurdle: Δ, every Δ_i and the arg-max equal the CPU's for zeros and amounts from 1e-4 to 1e7, covariates near 1000 and near ties",
  async (ctx) => {
    const shapes: HurdleShape[] = [
      { n: 400, k: 3, s: 48, wide: true, ties: 0.25 },
      { n: 400, k: 2, s: 48, wide: true, ties: 0.25 },
      { n: 300, k: 1, s: 64, wide: true, ties: 0.25 },
      { n: 300, k: 3, s: 48, wide: true, ties: 0.25, zeros: 0 },
      { n: 300, k: 3, s: 48, wide: true, ties: 0.25, zeros: 0.9 },
    ];
    await assertParityOverShapes(
      ctx,
      shapes,
      3,
      hurdleProblem,
      (shape) => `K=${shape.k} zeros=${shape.zeros ?? 0.3}`,
    );
  },
);

boundRatiosTest(
  "hurdle",
  [0.3, 0].map((zeros) => ({ n: 400, k: 3, s: 48, wide: true, zeros })),
  hurdleProblem,
  (shape) => `zeros ${shape.zeros}`,
);

gpuTest(
  "hurdle: negative or non-finite outcomes, covariate outliers and bad draws are computed in f64",
  async (ctx) => {
    const backend = createGpuLipschitz(ctx);
    const seed = nextSeed();
    for (const bad of [-1, Infinity, NaN, Number.MIN_VALUE]) {
      const base = hurdleProblem(new Rng(seed), { n: 60, k: 2, s: 12 });
      const { y, x } = base.model.design;
      const y2 = y.slice();
      const x2 = x.slice();
      y2[17] = bad;
      x2[5 * 2 + 1] = 1e9; // |x| > 2²⁴: record 5 goes to the CPU
      const model = createModel("hurdle", { ...base.model.design, y: y2, x: x2 });
      const { draws, alpha } = base;
      alpha[5] = 1;
      const label = `y=${bad} seed ${seed}`;
      const want = lipschitz(model, draws, { alpha, matrix: true });
      assertSameAnswer(label, await backend.compute(model, draws, { alpha, matrix: true }), want);
      alpha[17] = 0;
      const ignored = await backend.compute(model, draws, { alpha });
      assertSameAnswer(`${label} α_17 = 0`, ignored, lipschitz(model, draws, { alpha }));
      // σ out of the kernel's range, a huge coefficient, and NaN.
      draws[2 * model.dim + 4 * 2] = 1e-9;
      draws[3 * model.dim + 2 + 1] = 1e30;
      assertSameAnswer(
        `${label} bad draws`,
        await backend.compute(model, draws, { alpha }),
        lipschitz(model, draws, { alpha }),
      );
      draws[4 * model.dim] = NaN;
      assertSameAnswer(
        `${label} NaN γ`,
        await backend.compute(model, draws, { alpha }),
        lipschitz(model, draws, { alpha }),
      );
    }
  },
);

gpuTest("`--backend gpu` runs the hurdle kernel, without a fall-back note", async () => {
  const { model, draws, alpha } = hurdleProblem(new Rng(nextSeed()), { n: 200, k: 3, s: 30 });
  await assertSelectsGpu(model, draws, alpha);
});

const PIPELINE = pipelineData("hurdle", "y,z,b", (rng) => {
  const z = rng.normal();
  const b = rng.uniform() < 0.5 ? 1 : 0;
  const p = 1 / (1 + Math.exp(-(0.4 + 0.9 * z - 0.6 * b)));
  const amount = Math.exp(8 + 0.5 * z + 0.3 * b + 0.7 * rng.normal());
  return `${rng.uniform() < p ? amount.toFixed(2) : 0},${z.toFixed(3)},${b}`;
});

synthesisParityTests(PIPELINE, { model: "hurdle", x: ["z", "b"], seed: 13 }, [
  ["lw", { epsilon: 8 }],
  ["censored", { epsilon: 4 }],
]);
