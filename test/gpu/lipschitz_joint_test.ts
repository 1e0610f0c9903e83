/**
 * The joint-record GPU Lipschitz pass (src/gpu/lipschitz_joint.ts) against the f64 CPU loop over
 * a {@linkcode JointModel}'s logLik: Δ = max_{i,s} |α_i·Σ_j ℓ_ij(θ_{j,s})|, its arg-max and every
 * Δ_i equal bit for bit, for logistic + categorical + normal and hurdle + logistic joint models,
 * with raw-scale covariates and near ties; and a synthesis's ε and data equal to the CPU run's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { parseCsv } from "../../src/data/csv.ts";
import type { Dataset } from "../../src/data/dataset.ts";
import { createGpuLipschitz, runLipschitzKernel } from "../../src/gpu/lipschitz_gpu.ts";
import {
  hasLipschitzKernel,
  jointGpuLipschitz,
  type KernelRunner,
} from "../../src/gpu/lipschitz_joint.ts";
import { lipschitz } from "../../src/mechanisms/lipschitz.ts";
import { isJointModel, type JointModel } from "../../src/models/joint.ts";
import { Rng } from "../../src/random/rng.ts";
import { SynthesisSpec } from "../../src/synthesis/spec.ts";
import { synthesisModel } from "../../src/synthesis/synthesis_model.ts";
import {
  assertSameAnswer,
  assertSelectsGpu,
  logUniform,
  nextSeed,
  nextUp,
} from "./_logit_parity.ts";
import { announceGpu, gpuTest } from "./_helpers.ts";
import { assertSameSynthesis, QUICK, synthesizeOnBoth } from "./_synthesis_parity.ts";

announceGpu("the joint-record GPU Lipschitz tests");

/** The three-outcome models the tests fit: logistic b, categorical c, normal a; hurdle h. */
const OUTCOMES = {
  mixed: { y: ["b", "c", "a"], model: ["logistic", "categorical", "normal"] },
  hurdle: { y: ["h", "b"], model: ["hurdle", "logistic"] },
} as const;

/**
 * n records: z (near 1000 when `wide`), g ∈ {p, q, r}, b ∈ {no, yes}, c ∈ {u, v, w}, a normal and
 * h ≥ 0 with zeros; with `wide` a quarter of the rows repeat the one before (or a z ulp away).
 */
function dataset(rng: Rng, n: number, wide: boolean): Dataset {
  const rows = ["z,g,b,c,a,h"];
  let previous: number[] | null = null;
  for (let i = 0; i < n; i++) {
    let z = wide
      ? 1000 + (rng.uniform() < 0.5 ? -1 : 1) * logUniform(rng, 1e-3, 1e3)
      : rng.normal();
    const g = Math.floor(3 * rng.uniform());
    const b = rng.uniform() < 0.5 ? 1 : 0;
    const c = Math.floor(3 * rng.uniform());
    const a = (wide ? 1e3 : 1) * rng.normal();
    const h = rng.uniform() < 0.3 ? 0 : wide ? logUniform(rng, 1e-3, 1e6) : Math.exp(rng.normal());
    let row = [z, g, b, c, a, h];
    if (wide && previous !== null && rng.uniform() < 0.25) {
      row = previous.slice();
      if (rng.uniform() < 0.5) row[0] = z = nextUp(Math.abs(row[0])) * Math.sign(row[0]);
    }
    previous = row;
    rows.push(
      `${row[0]},${"pqr"[row[1]]},${row[2] ? "yes" : "no"},${"uvw"[row[3]]},${row[4]},${row[5]}`,
    );
  }
  return parseCsv(rows.join("\n") + "\n", "joint.csv");
}

function spec(outcomes: keyof typeof OUTCOMES, extra: Record<string, unknown> = {}) {
  return SynthesisSpec.parse({
    ...OUTCOMES[outcomes],
    x: ["z", "g"],
    mechanism: "lw",
    epsilon: 8,
    ...extra,
  });
}

/**
 * S draws of the joint θ: per conditional, its coefficients (the first half of its block, less
 * σ), raw-scale ones on z (−1000·b_1 in the intercept), prior scales 1, σ log-uniform; with
 * `wide`, a quarter of the draws repeat the one before (or a coefficient ulp away).
 */
function jointDraws(rng: Rng, model: JointModel, s: number, wide: boolean): Float64Array {
  const dim = model.dim;
  const draws = new Float64Array(s * dim);
  for (let d = 0; d < s; d++) {
    const theta = draws.subarray(d * dim, (d + 1) * dim);
    model.components.forEach((c, j) => {
      const block = theta.subarray(model.offsets[j], model.offsets[j + 1]);
      const k = c.model.design.k;
      const odd = c.model.dim % 2 === 1;
      const coefficients = odd ? (c.model.dim - 1) / 2 : c.model.dim / 2;
      for (let at = 0; at < coefficients; at += k) {
        const b1 = (rng.uniform() < 0.5 ? -1 : 1) * (wide ? logUniform(rng, 1e-7, 0.3) : 0.5);
        const level = (rng.uniform() < 0.5 ? -1 : 1) * (wide ? logUniform(rng, 1e-6, 60) : 1);
        block[at] = (wide ? -1000 * b1 : 0) + level * (c.model.name === "normal" && wide ? 100 : 1);
        block[at + 1] = b1 * rng.uniform();
        for (let l = 2; l < k; l++) block[at + l] = rng.normal();
      }
      block.fill(1, coefficients);
      if (odd) {
        block[c.model.dim - 1] = c.model.name === "normal"
          ? logUniform(rng, wide ? 10 : 0.5, wide ? 1e4 : 2)
          : logUniform(rng, 0.1, 5);
      }
    });
    if (wide && d > 0 && rng.uniform() < 0.25) {
      theta.set(draws.subarray((d - 1) * dim, d * dim));
      if (rng.uniform() < 0.5) theta[0] = nextUp(Math.abs(theta[0])) * Math.sign(theta[0] || 1);
    }
  }
  return draws;
}

function weights(rng: Rng, n: number): Float64Array {
  return Float64Array.from({ length: n }, () => {
    const u = rng.uniform();
    return u < 0.1 ? 0 : u < 0.2 ? 1 : rng.uniform();
  });
}

for (const outcomes of ["mixed", "hurdle"] as const) {
  gpuTest(
    `joint (${
      OUTCOMES[outcomes].model.join(" + ")
    }): Δ, every Δ_i and the arg-max equal the CPU's, raw-scale covariates and near ties`,
    async (ctx) => {
      const backend = createGpuLipschitz(ctx);
      let nearTies = 0;
      for (const wide of [false, true, true, true]) {
        const seed = nextSeed();
        const rng = new Rng(seed);
        const data = dataset(rng, 300, wide);
        const model = synthesisModel(data, spec(outcomes));
        assert.ok(isJointModel(model) && hasLipschitzKernel(model));
        const draws = jointDraws(rng, model, 40, wide);
        const alpha = weights(rng, model.design.n);
        const label = `${outcomes} wide=${wide} seed ${seed}`;
        const want = lipschitz(model, draws, { alpha, matrix: true });
        const got = await backend.compute(model, draws, { alpha, matrix: true });
        assertSameAnswer(label, got, want);
        for (let e = 0; e < want.matrix!.length; e++) {
          const error = Math.abs(got.matrix![e] - want.matrix![e]);
          assert.ok(error <= 1e-4 * (1 + want.matrix![e]), `${label}: matrix entry ${e}`);
        }
        assertSameAnswer(
          `${label} streamed`,
          await backend.compute(model, draws, { alpha }),
          lipschitz(model, draws, { alpha }),
        );
        nearTies += backend.lastStats!.nearTies;
        assertSameAnswer(
          `${label} α = 1`,
          await backend.compute(model, draws),
          lipschitz(model, draws),
        );
        // Bad draws and a record out of a kernel's range: f64 on the CPU.
        draws[3 * model.dim] = 1e30;
        draws[5 * model.dim + model.offsets[1]] = NaN;
        assertSameAnswer(
          `${label} bad draws`,
          await backend.compute(model, draws, { alpha }),
          lipschitz(model, draws, { alpha }),
        );
      }
      assert.ok(nearTies > 0, `${nearTies} near ties`);
    },
  );
}

gpuTest("`--backend gpu` runs the joint pass, without a fall-back note", async () => {
  const rng = new Rng(nextSeed());
  const model = synthesisModel(dataset(rng, 200, false), spec("mixed")) as JointModel;
  const draws = jointDraws(rng, model, 30, false);
  await assertSelectsGpu(model, draws, weights(rng, model.design.n));
});

const pipelineSeed = nextSeed();
const DATA = dataset(new Rng(pipelineSeed), 300, false);
/** The quick settings: S·n = 400·300 entries, one chunk of the joint pass (chunks: below). */
const SETTINGS = { ...QUICK, seed: 17, allowFlagged: true };

for (const outcomes of ["mixed", "hurdle"] as const) {
  gpuTest(`--backend gpu gives the CPU's report, ε and data for joint ${outcomes}/lw`, async () => {
    const [cpu, onGpu] = await synthesizeOnBoth(
      DATA,
      (backend) => spec(outcomes, { backend, ...SETTINGS }),
    );
    assert.ok(!(cpu instanceof Error), `joint ${outcomes}: the CPU run refused: ${cpu}`);
    assertSameSynthesis(`seed ${pipelineSeed}`, cpu, onGpu, {});
  });
}

gpuTest(
  "joint: draws summed in chunks, with bad draws in several chunks, give the CPU's Δ",
  async (ctx) => {
    const seed = nextSeed();
    const rng = new Rng(seed);
    const model = synthesisModel(dataset(rng, 120, true), spec("mixed")) as JointModel;
    const draws = jointDraws(rng, model, 45, true);
    const alpha = weights(rng, model.design.n);
    // A NaN in the first conditional, σ far outside the normal kernel's range in the last.
    draws[2 * model.dim] = NaN;
    draws[30 * model.dim + model.dim - 1] = 1e-12;
    const run = (packed: Parameters<KernelRunner>[0]) =>
      runLipschitzKernel(ctx, packed, true, ctx.limits, true);
    for (const chunk of [1, 7, 45]) {
      const { result } = await jointGpuLipschitz(
        model,
        draws,
        { alpha, matrix: true },
        run,
        chunk * model.design.n,
      );
      assertSameAnswer(
        `${chunk} draws a chunk, seed ${seed}`,
        result,
        lipschitz(model, draws, { alpha, matrix: true }),
      );
    }
  },
);
