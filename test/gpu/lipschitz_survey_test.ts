/**
 * The survey models' GPU Lipschitz kernels (shaders/lipschitz_fbs.wgsl, lipschitz_fbp.wgsl)
 * against the f64 CPU loop: Δ, its arg-max and every Δ_i equal bit for bit, on outcomes from 1e-4
 * to 1e7, weights from 1e-3 to 1e5, covariates near 1000, σ from 0.01 to 50, FBS's ρ within 1e-6
 * of ±1 and FBP's κ_y from 1e-6 to 3, with near ties between records (records equal but for their
 * weight among them) and between draws; a deliberately broken kernel fails the same checks; and
 * ε and the released data of a synthesis equal the CPU run's.
 *
 * @module
 */
import assert from "node:assert/strict";
import fbpSource from "../../shaders/lipschitz_fbp.wgsl" with { type: "text" };
import fbsSource from "../../shaders/lipschitz_fbs.wgsl" with { type: "text" };
import { parseCsv } from "../../src/data/csv.ts";
import type { GpuContext } from "../../src/gpu/device.ts";
import { createGpuLipschitz, type GpuLipschitzOptions } from "../../src/gpu/lipschitz_gpu.ts";
import { packLipschitz } from "../../src/gpu/lipschitz_pack.ts";
import { lipschitz } from "../../src/mechanisms/lipschitz.ts";
import { createModel, gpuSpec, hasGpuHmc, MODELS } from "../../src/models/mod.ts";
import { Rng } from "../../src/random/rng.ts";
import { announceGpu, gpuTest } from "./_helpers.ts";
import {
  assertConfirmsAsWholeModel,
  assertMatrixStreamedUnweighted,
  assertParityOverShapes,
  assertSameAnswer,
  assertSelectsGpu,
  type LipschitzProblem,
  logUniform,
  nextSeed,
  nextUp,
  worstBoundRatios,
} from "./_logit_parity.ts";
import { assertSynthesisParity } from "./_synthesis_parity.ts";

announceGpu("the survey models' GPU Lipschitz tests");

/** How a survey problem is drawn. */
interface SurveyShape {
  readonly model: "fbs" | "fbp";
  readonly n: number;
  /** Coefficients per linear predictor, intercept included (1 to 3). */
  readonly k: number;
  readonly s: number;
  /** Outcomes, weights, η, σ, ρ and κ_y over many orders of magnitude, a covariate near 1000. */
  readonly wide?: boolean;
  /** With `wide`, the share of records and draws that repeat the one before. */
  readonly ties?: number;
  /**
   * Draws about the first as a posterior's are (each coefficient times e^{local·N(0,1)}, the scales
   * too, atanh ρ plus local·N(0,1)) rather than independent: every draw's ℓ_i then depends on
   * every term, and a record's arg-max draw is decided by small differences.
   */
  readonly local?: number;
}

function sign(rng: Rng): number {
  return rng.uniform() < 0.5 ? -1 : 1;
}

/**
 * An FBS or FBP model, S constrained draws (FBS: θ = (β_y, β_w, σ_y, σ_w, ρ); FBP: θ = (β, κ_y,
 * κ_x, σ_y, σ_π)) and α with zeros and ones. A repeated record keeps its outcome and covariates
 * and, half the time, changes its weight by an ulp or a factor (so that only w tells two records
 * apart) or its covariate by an ulp.
 */
function surveyProblem(rng: Rng, shape: SurveyShape): LipschitzProblem {
  const { model: name, n, k, s, wide = false, ties = 0.05, local } = shape;
  const x = new Float64Array(n * k);
  const y = new Float64Array(n);
  const weight = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i * k] = 1;
    if (k > 1) x[i * k + 1] = wide ? 1000 + sign(rng) * logUniform(rng, 1e-3, 1e3) : rng.normal();
    if (k > 2) x[i * k + 2] = rng.uniform() < 0.5 ? 1 : 0;
    y[i] = wide ? logUniform(rng, 1e-4, 1e7) : Math.exp(1 + rng.normal());
    weight[i] = wide ? logUniform(rng, 1e-3, 1e5) : Math.exp(3 + 0.5 * rng.normal());
    if (wide && i > 0 && rng.uniform() < ties) {
      y[i] = y[i - 1];
      weight[i] = weight[i - 1];
      x.copyWithin(i * k, (i - 1) * k, i * k);
      const u = rng.uniform();
      if (u < 0.25) weight[i] = nextUp(weight[i]);
      else if (u < 0.5) weight[i] *= 1.5;
      else if (u < 0.75 && k > 1) x[i * k + 1] = nextUp(x[i * k + 1]);
    }
  }
  const names = ["intercept", "z", "b"].slice(0, k);
  const model = createModel(name, { n, k, y, x, weight, coefficientNames: names });
  const dim = model.dim;
  const draws = new Float64Array(s * dim);
  /** A linear predictor's coefficients at `at`: level + b_1·(x_1 − 1000) + b_2·x_2 when wide. */
  const coefficients = (theta: Float64Array, at: number, level: number, slope: number) => {
    const b1 = k > 1 ? sign(rng) * (wide ? logUniform(rng, 1e-9, slope) : 0.5 * rng.uniform()) : 0;
    theta[at] = (wide ? -1000 * b1 : 0) + level;
    if (k > 1) theta[at + 1] = b1;
    if (k > 2) theta[at + 2] = wide ? sign(rng) * logUniform(rng, 1e-6, 10) : rng.normal();
  };
  const scale = () => wide ? logUniform(rng, 0.01, 50) : 0.5 + rng.uniform();
  for (let d = 0; d < s; d++) {
    const theta = draws.subarray(d * dim, (d + 1) * dim);
    if (name === "fbs") {
      coefficients(theta, 0, wide ? 8 * rng.normal() : 1 + 0.3 * rng.normal(), 0.01);
      coefficients(theta, k, wide ? 5 * rng.normal() : 3 + 0.3 * rng.normal(), 0.01);
      theta[2 * k] = scale();
      theta[2 * k + 1] = scale();
      theta[2 * k + 2] = wide
        ? sign(rng) * (1 - logUniform(rng, 1e-6, 1))
        : 0.9 * (2 * rng.uniform() - 1);
    } else {
      const kappaY = wide ? sign(rng) * logUniform(rng, 1e-6, 3) : 0.3 * rng.normal();
      coefficients(theta, 0, wide ? 8 * rng.normal() : 1 + 0.3 * rng.normal(), 0.01);
      theta[k] = kappaY;
      coefficients(theta, k + 1, wide ? -5 - 8 * kappaY + 5 * rng.normal() : -3, 0.01);
      theta[2 * k + 1] = scale();
      theta[2 * k + 2] = scale();
    }
    if (local !== undefined && d > 0) {
      const rho = name === "fbs" ? 2 * k + 2 : -1;
      for (let j = 0; j < dim; j++) {
        const c = draws[j];
        theta[j] = j === rho
          ? Math.tanh(Math.atanh(c) + local * rng.normal())
          : c * Math.exp(local * rng.normal());
      }
    }
    if (wide && d > 0 && rng.uniform() < ties) {
      theta.set(draws.subarray((d - 1) * dim, d * dim));
      if (rng.uniform() < 0.5) {
        const j = rng.uniform() < 0.5 ? 0 : k;
        theta[j] = theta[j] === 0 ? 1e-300 : Math.sign(theta[j]) * nextUp(Math.abs(theta[j]));
      }
    }
  }
  const alpha = Float64Array.from({ length: n }, () => {
    const u = rng.uniform();
    return u < 0.1 ? 0 : u < 0.2 ? 1 : rng.uniform();
  });
  return { model, draws, alpha };
}

/**
 * Per model: wide data with independent draws, and draws about one point at spreads from 0.05
 * down to a few f32 ulps (3e-7: the kernel's error decides many arg-max draws), wide or not.
 */
const SHAPES: SurveyShape[] = (["fbs", "fbp"] as const).flatMap((model) => [
  { model, n: 400, k: 3, s: 48, wide: true, ties: 0.25 },
  { model, n: 400, k: 2, s: 48, wide: true, ties: 0.25, local: 0.01 },
  { model, n: 400, k: 3, s: 48, wide: true, ties: 0.25, local: 3e-7 },
  { model, n: 400, k: 3, s: 48, local: 0.05 },
  { model, n: 300, k: 1, s: 64, local: 1e-6 },
]);

Deno.test("every registry model has a GPU Lipschitz kernel; FBS and FBP have no GPU HMC", () => {
  for (const { name } of MODELS) assert.notEqual(gpuSpec(name), null, name);
  assert.deepEqual([gpuSpec("fbs")?.kernel, gpuSpec("fbp")?.kernel], ["fbs", "fbp"]);
  assert.deepEqual([hasGpuHmc("fbs"), hasGpuHmc("fbp")], [false, false]);
});

Deno.test("`confirmLipschitz()` keeps apart survey records that differ only in their weight", () => {
  for (const model of ["fbs", "fbp"] as const) {
    const seed = nextSeed();
    const problem = surveyProblem(new Rng(seed), { model, n: 200, k: 2, s: 20, wide: true });
    const { model: m, draws } = problem;
    // Every record the one before it but for its weight.
    const { design } = m;
    const y = design.y.slice();
    const x = design.x.slice();
    for (let i = 1; i < design.n; i += 2) {
      y[i] = y[i - 1];
      x.copyWithin(i * 2, (i - 1) * 2, i * 2);
    }
    const twins = createModel(model, { ...design, y, x });
    assertConfirmsAsWholeModel(`${model} seed ${seed}`, twins, draws);
  }
});

gpuTest(
  "`createGpuLipschitz()` gives the CPU's Δ for fbs and fbp with K = 1 and K = 3",
  async (ctx) => {
    const backend = createGpuLipschitz(ctx);
    for (const model of ["fbs", "fbp"] as const) {
      for (const k of [1, 3]) {
        const seed = nextSeed();
        const { model: m, draws, alpha } = surveyProblem(new Rng(seed), {
          model,
          n: 300,
          k,
          s: 40,
        });
        const label = `${model} K=${k} seed ${seed}`;
        const packed = packLipschitz(m, draws, alpha);
        assert.equal(packed.cpuRecords.length, 0, label);
        assert.equal(packed.cpuDraws.length, 0, label);
        await assertMatrixStreamedUnweighted(backend, label, m, draws, alpha);
      }
    }
  },
);

gpuTest(
  "fbs, fbp: Δ, every Δ_i and the arg-max equal the CPU's for y from 1e-4 to 1e7, w from 1e-3 to 1e5, ρ near ±1, covariates near 1000 and near ties",
  async (ctx) => {
    await assertParityOverShapes(
      ctx,
      SHAPES,
      2,
      surveyProblem,
      (s) => `${s.model} K=${s.k} local=${s.local ?? "no"}`,
    );
  },
);

gpuTest("fbs, fbp: the kernels' error bounds E_i hold over many magnitudes", async (ctx) => {
  const ratios = await worstBoundRatios(
    ctx,
    SHAPES.filter((shape) => shape.n === 400),
    surveyProblem,
    (shape) => `${shape.model} ${shape.wide ? "wide" : "plain"} local=${shape.local ?? "no"}`,
  );
  console.log(`fbs, fbp: largest |f32 − f64| / E_i: ${ratios}`);
});

gpuTest(
  "fbs, fbp: bad outcomes or weights, covariate outliers and out-of-range draws are computed in f64",
  async (ctx) => {
    const backend = createGpuLipschitz(ctx);
    for (const model of ["fbs", "fbp"] as const) {
      for (const bad of [-1, 0, Infinity, NaN]) {
        const seed = nextSeed();
        const base = surveyProblem(new Rng(seed), { model, n: 60, k: 2, s: 12 });
        const { design } = base.model;
        const y = design.y.slice();
        const weight = design.weight!.slice();
        const x = design.x.slice();
        y[17] = bad;
        weight[23] = bad;
        x[5 * 2 + 1] = 1e9; // |x| > 2²⁴: record 5 goes to the CPU
        const m = createModel(model, { ...design, y, x, weight });
        const { draws, alpha } = base;
        alpha[5] = 1;
        const label = `${model} y=w=${bad} seed ${seed}`;
        const packed = packLipschitz(m, draws, alpha);
        for (const i of [5, 17, 23]) {
          if (alpha[i] > 0) assert.ok(packed.cpuRecords.includes(i), `${label}: record ${i}`);
        }
        const want = lipschitz(m, draws, { alpha, matrix: true });
        assertSameAnswer(label, await backend.compute(m, draws, { alpha, matrix: true }), want);
        alpha[17] = 0;
        alpha[23] = 0;
        assertSameAnswer(
          `${label} α_17 = α_23 = 0`,
          await backend.compute(m, draws, { alpha }),
          lipschitz(m, draws, { alpha }),
        );
        // A scale out of the kernel's range, a huge coefficient, ρ = 1 − 1e-8 (FBS), and NaN.
        const dim = m.dim;
        draws[2 * dim + dim - 2] = 1e-9;
        draws[3 * dim + 1] = 1e30;
        if (model === "fbs") draws[5 * dim + dim - 1] = 1 - 1e-8;
        draws[4 * dim] = NaN;
        const skipped = packLipschitz(m, draws, alpha).cpuDraws;
        assert.deepEqual([...skipped], model === "fbs" ? [2, 3, 4, 5] : [2, 3, 4], label);
        assertSameAnswer(
          `${label} bad draws`,
          await backend.compute(m, draws, { alpha }),
          lipschitz(m, draws, { alpha }),
        );
      }
    }
  },
);

/**
 * The shader `source` with `from` replaced by `to` (asserting it occurs once): a broken kernel.
 */
function broken(source: string, from: string, to: string): string {
  assert.equal(source.split(from).length, 2, `${from} occurs once`);
  return source.replace(from, to);
}

/**
 * How many of `problems` a backend running the broken kernel gets wrong (Δ, arg-max or any Δ_i
 * unlike the CPU's), weighted or not.
 */
async function failures(
  ctx: GpuContext,
  options: GpuLipschitzOptions,
  problems: readonly SurveyShape[],
): Promise<number> {
  const backend = createGpuLipschitz(ctx, options);
  let failed = 0;
  for (const shape of problems) {
    const seed = nextSeed();
    const { model, draws, alpha } = surveyProblem(new Rng(seed), shape);
    for (const a of [alpha, null]) {
      const got = await backend.compute(model, draws, { alpha: a });
      try {
        assertSameAnswer(`seed ${seed}`, got, lipschitz(model, draws, { alpha: a }));
      } catch {
        failed++;
      }
    }
  }
  return failed;
}

gpuTest("a deliberately broken fbs or fbp kernel fails the parity checks", async (ctx) => {
  const shapes = (model: "fbs" | "fbp") => SHAPES.filter((shape) => shape.model === model);
  // FBS with ρ's sign flipped; FBP without its κ_y·r_y term.
  const fbs = broken(
    fbsSource,
    "ev_mul(ev_input(draws[db + 2u]), z2)",
    "ev_neg(ev_mul(ev_input(draws[db + 2u]), z2))",
  );
  const fbp = broken(fbpSource, "ev_add(rp, ev_mul(kappa, ry))", "rp");
  // And each with its error bound dropped, on draws a few ulps apart: the confirmation then
  // trusts arg-max draws that the f32 rounding picked.
  const unbounded = (source: string) =>
    broken(
      source,
      "fn record_loglik(r: u32, s: u32) -> EV {",
      "fn record_loglik_exact(r: u32, s: u32) -> EV {",
    ) +
    "\nfn record_loglik(r: u32, s: u32) -> EV {\n  let l = record_loglik_exact(r, s);\n" +
    "  return EV(l.v, select(0.0, l.e, l.e < 0.0));\n}\n";
  const close = (model: "fbs" | "fbp") =>
    Array.from({ length: 5 }, () => ({
      model,
      n: 1000,
      k: 3,
      s: 64,
      wide: true,
      ties: 0.25,
      local: 3e-7,
    }));
  const counts = {
    fbs: await failures(ctx, { sources: { fbs } }, shapes("fbs")),
    fbp: await failures(ctx, { sources: { fbp } }, shapes("fbp")),
    fbsUnbounded: await failures(ctx, { sources: { fbs: unbounded(fbsSource) } }, close("fbs")),
    fbpUnbounded: await failures(ctx, { sources: { fbp: unbounded(fbpSource) } }, close("fbp")),
  };
  // Each problem is checked weighted and unweighted: 10 checks per kernel.
  console.log(`broken kernels: checks failed of 10 each: ${JSON.stringify(counts)}`);
  assert.ok(Object.values(counts).every((c) => c > 0), JSON.stringify(counts));
  // The real kernels pass the same close problems.
  assert.equal(await failures(ctx, {}, [...close("fbs"), ...close("fbp")]), 0);
});

gpuTest("`--backend gpu` runs the fbs and fbp kernels, without a fall-back note", async () => {
  for (const model of ["fbs", "fbp"] as const) {
    const problem = surveyProblem(new Rng(nextSeed()), { model, n: 200, k: 3, s: 30 });
    await assertSelectsGpu(problem.model, problem.draws, problem.alpha);
  }
});

/** 300 survey records: y lognormal given z and stratum, w from a lognormal tied to y. */
const PIPELINE = (() => {
  const seed = nextSeed();
  const rng = new Rng(seed);
  const rows = Array.from({ length: 300 }, () => {
    const z = rng.normal();
    const stratum = rng.uniform() < 0.5 ? "a" : "b";
    const ly = 8 + 0.5 * z + (stratum === "a" ? 0.3 : 0) + 0.7 * rng.normal();
    const w = Math.exp(4 - 0.4 * (ly - 8) + 0.3 * rng.normal());
    return `${Math.exp(ly).toFixed(2)},${z.toFixed(3)},${stratum},${w.toFixed(3)}`;
  });
  const data = parseCsv("y,z,stratum,w\n" + rows.join("\n") + "\n", "survey.csv");
  return { seed, data };
})();

for (const model of ["fbs", "fbp"] as const) {
  gpuTest(`--backend gpu gives the CPU's report, ε and data for ${model}/lw`, async () => {
    const strata = { strata: "stratum", stratumSizes: { a: 30000, b: 30000 } };
    await assertSynthesisParity(
      PIPELINE.data,
      { y: "y", x: ["z"], model, weight: "w", ...strata, mechanism: "lw", epsilon: 12, seed: 5 },
      `seed ${PIPELINE.seed}`,
      { refused: `${model}/lw` },
    );
  });
}
