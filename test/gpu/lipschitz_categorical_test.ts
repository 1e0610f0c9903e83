import assert from "node:assert/strict";
import { parseCsv } from "../../src/data/csv.ts";
import { confirmLipschitz } from "../../src/gpu/lipschitz_confirm.ts";
import { createGpuLipschitz } from "../../src/gpu/lipschitz_gpu.ts";
import { packLipschitz } from "../../src/gpu/lipschitz_pack.ts";
import { selectLipschitz } from "../../src/gpu/select_lipschitz.ts";
import { CalibrationError } from "../../src/mechanisms/calibrate.ts";
import { lipschitz } from "../../src/mechanisms/lipschitz.ts";
import { Rng } from "../../src/random/rng.ts";
import { SynthesisSpec } from "../../src/synthesis/spec.ts";
import { synthesize } from "../../src/synthesis/synthesize.ts";
import {
  assertSameAnswer,
  checkKernelBounds,
  logitProblem,
  nextSeed,
  type ProblemShape,
} from "./_logit_parity.ts";
import { announceGpu, gpuTest } from "./_helpers.ts";

announceGpu("the categorical GPU Lipschitz tests");

gpuTest(
  "`createGpuLipschitz()` gives the CPU's Δ for categorical with L = 2, 3, 6 and K = 1, 3",
  async (ctx) => {
    const backend = createGpuLipschitz(ctx);
    for (const levels of [2, 3, 6]) {
      for (const k of [1, 3]) {
        const seed = nextSeed();
        const shape = { levels, n: 300, k, s: 40, categorical: true };
        const { model, draws, alpha } = logitProblem(new Rng(seed), shape);
        assert.equal(model.name, "categorical");
        const label = `L=${levels} K=${k} seed ${seed}`;
        const got = await backend.compute(model, draws, { alpha, matrix: true });
        const want = lipschitz(model, draws, { alpha, matrix: true });
        assertSameAnswer(label, got, want);
        const streamed = await backend.compute(model, draws, { alpha });
        assert.equal(streamed.matrix, undefined);
        assertSameAnswer(`${label} streamed`, streamed, want);
        const unweighted = await backend.compute(model, draws);
        assertSameAnswer(`${label} α = 1`, unweighted, lipschitz(model, draws));
      }
    }
  },
);

gpuTest(
  "categorical: Δ, every Δ_i and the arg-max equal the CPU's for |η| from 1e-6 to 700, covariates near 1000 and near ties",
  async (ctx) => {
    const backend = createGpuLipschitz(ctx);
    const shapes: ProblemShape[] = [
      { levels: 3, n: 400, k: 3, s: 40, wide: true, ties: 0.25 },
      { levels: 5, n: 300, k: 2, s: 40, wide: true, ties: 0.25 },
      { levels: 4, n: 300, k: 1, s: 48, wide: true, ties: 0.25 },
      // Rows that group: the CPU model runs its TypeScript loop, not the SIMD one.
      { levels: 4, n: 400, k: 3, s: 40, wide: true, ties: 0.25, grouped: true },
      { levels: 3, n: 400, k: 3, s: 40, grouped: true },
    ];
    let nearTies = 0;
    for (const shape of shapes) {
      for (let trial = 0; trial < 2; trial++) {
        const seed = nextSeed();
        const { model, draws, alpha } = logitProblem(new Rng(seed), shape);
        const label = `L=${shape.levels} K=${shape.k}${
          shape.grouped ? " grouped" : ""
        } seed ${seed}`;
        const got = await backend.compute(model, draws, { alpha });
        assertSameAnswer(label, got, lipschitz(model, draws, { alpha }));
        nearTies += backend.lastStats!.nearTies;
        const unweighted = await backend.compute(model, draws);
        assertSameAnswer(`${label} α = 1`, unweighted, lipschitz(model, draws));
      }
    }
    assert.ok(nearTies > 0, `${nearTies} near ties`);
  },
);

gpuTest("categorical: the kernel's error bounds E_i hold over many magnitudes", async (ctx) => {
  const ratios: string[] = [];
  for (const [levels, grouped] of [[3, false], [6, false], [4, true]] as const) {
    const seed = nextSeed();
    const { model, draws, alpha } = logitProblem(new Rng(seed), {
      levels,
      n: 400,
      k: 3,
      s: 40,
      wide: true,
      grouped,
    });
    const { worst, evaluated } = await checkKernelBounds(
      ctx,
      `L=${levels} grouped=${grouped} seed ${seed}`,
      model,
      draws,
      alpha,
    );
    assert.ok(evaluated > 300, `seed ${seed}: the kernel evaluated ${evaluated} records`);
    ratios.push(`L=${levels}${grouped ? " grouped rows" : ""} ${worst.toFixed(2)}`);
  }
  console.log(`categorical: largest |f32 − f64| / E_i: ${ratios.join(", ")}`);
});

gpuTest(
  "categorical: outcomes that are no level's code, outliers and bad draws are computed in f64",
  async (ctx) => {
    const backend = createGpuLipschitz(ctx);
    const seed = nextSeed();
    for (const bad of [4, 1.5, -1, NaN]) {
      const { model, draws, alpha } = logitProblem(
        new Rng(seed),
        { levels: 4, n: 60, k: 2, s: 12 },
        (y, x) => {
          y[17] = bad;
          x[5 * 2 + 1] = 1e9; // |x| > 2²⁴: record 5 goes to the CPU
        },
      );
      alpha[5] = 1;
      const label = `y=${bad} seed ${seed}`;
      const packed = packLipschitz(model, draws, alpha);
      assert.ok(packed.cpuRecords.includes(5), label);
      assert.equal(packed.cpuRecords.includes(17), alpha[17] > 0, label);
      const want = lipschitz(model, draws, { alpha, matrix: true });
      assertSameAnswer(label, await backend.compute(model, draws, { alpha, matrix: true }), want);
      if (alpha[17] > 0) assert.equal(want.overall, Infinity, label);
      alpha[17] = 0;
      const ignored = await backend.compute(model, draws, { alpha });
      assertSameAnswer(`${label} α_17 = 0`, ignored, lipschitz(model, draws, { alpha }));
      assert.ok(Number.isFinite(ignored.overall), label);
      // A coefficient of the last level that is huge (f64 on the CPU), then one that is NaN.
      draws[3 * model.dim + 5] = 1e30;
      assertSameAnswer(
        `${label} huge β`,
        await backend.compute(model, draws, { alpha }),
        lipschitz(model, draws, { alpha }),
      );
      draws[4 * model.dim + 4] = NaN;
      assertSameAnswer(
        `${label} NaN β`,
        await backend.compute(model, draws, { alpha }),
        lipschitz(model, draws, { alpha }),
      );
    }
  },
);

gpuTest("categorical: tiles of records and draws give the untiled answer", async (ctx) => {
  const seed = nextSeed();
  // 9 coefficients per draw: 4 KiB bindings hold 113 draws and 204 results; 3 workgroups of 64
  // threads 192 records. So 300 records × 250 draws run as 2 × 3 tiles.
  const shape = { levels: 4, n: 300, k: 3, s: 250, wide: true };
  const { model, draws, alpha } = logitProblem(new Rng(seed), shape);
  const limits = { maxStorageBufferBindingSize: 4096, maxComputeWorkgroupsPerDimension: 3 };
  const tiled = await createGpuLipschitz(ctx, { limits }).compute(model, draws, { alpha });
  assertSameAnswer(`tiled seed ${seed}`, tiled, lipschitz(model, draws, { alpha }));
  const matrix = await createGpuLipschitz(ctx, { limits }).compute(model, draws, {
    alpha,
    matrix: true,
  });
  assertSameAnswer(`tiled matrix seed ${seed}`, matrix, lipschitz(model, draws, { alpha }));
});

gpuTest("`--backend gpu` runs the categorical kernel, without a fall-back note", async () => {
  const { model, draws, alpha } = logitProblem(new Rng(5), { levels: 4, n: 200, k: 3, s: 30 });
  const lines: string[] = [];
  const backend = await selectLipschitz("gpu", (line) => lines.push(line));
  const got = await backend.compute(model, draws, { alpha });
  assert.equal(backend.name, "gpu");
  assert.equal(backend.note, null);
  assert.deepEqual(lines, []);
  assertSameAnswer("selected", got, lipschitz(model, draws, { alpha }));
});

Deno.test("`confirmLipschitz()` evaluates categorical records as the whole model does, grouped rows or not", () => {
  for (const grouped of [true, true, true, false]) {
    const seed = nextSeed();
    const { model, draws } = logitProblem(new Rng(seed), {
      levels: 3,
      n: 400,
      k: 3,
      s: 30,
      grouped,
    });
    // Small coefficients (|η| below 1 or so), where the TypeScript and SIMD loops differ most.
    for (let d = 0; d < 30; d++) {
      for (let j = 0; j < 6; j++) draws[d * model.dim + j] *= 0.07;
    }
    const n = model.design.n;
    const { result } = confirmLipschitz(model, draws, null, {
      value: new Float64Array(n),
      draw: new Int32Array(n),
      runnerUp: new Float64Array(n).fill(-1),
      bound: new Float64Array(n),
      exact: new Uint8Array(n).fill(1),
      skippedDraws: new Int32Array(0),
    }, undefined);
    assertSameAnswer(`grouped=${grouped} seed ${seed}`, result, lipschitz(model, draws));
  }
});

const pipelineSeed = nextSeed();
const pipelineRng = new Rng(pipelineSeed);
const ROWS = Array.from({ length: 300 }, () => {
  const z = pipelineRng.normal();
  const eta = [0, 0.4 + 0.9 * z, -0.2 - 0.7 * z];
  const p = eta.map(Math.exp);
  let u = pipelineRng.uniform() * (p[0] + p[1] + p[2]);
  let level = 0;
  while (level < 2 && u >= p[level]) u -= p[level++];
  return `${["red", "green", "blue"][level]},${z.toFixed(3)}`;
});
const DATA = parseCsv("y,z\n" + ROWS.join("\n") + "\n", "categorical.csv");

for (
  const [mechanism, extra] of [
    ["lw", { epsilon: 10 }],
    ["censored", { epsilon: 4 }],
  ] as const
) {
  gpuTest(
    `--backend gpu gives the CPU's report, ε and data for categorical/${mechanism}`,
    async () => {
      const run = (backend: "cpu" | "gpu") =>
        synthesize(
          DATA,
          SynthesisSpec.parse({
            y: "y",
            x: ["z"],
            model: "categorical",
            mechanism,
            seed: 13,
            backend,
            allowFlagged: true,
            draws: 400,
            chains: 2,
            warmup: 150,
            m: 2,
            ...extra,
          }),
        ).catch((error: Error) => error);
      const [cpu, onGpu] = [await run("cpu"), await run("gpu")];
      const label = `seed ${pipelineSeed}`;
      if (cpu instanceof Error || onGpu instanceof Error) {
        console.log(`categorical/${mechanism}: both runs refused: ${cpu}`);
        assert.ok(cpu instanceof CalibrationError, `${label}: ${cpu}`);
        assert.deepEqual(onGpu, cpu, label);
        return;
      }
      assert.equal(onGpu.report.backend, "gpu", label);
      assert.equal(onGpu.report.epsilon, cpu.report.epsilon, `${label}: ε`);
      assert.deepEqual({ ...onGpu.report, backend: "cpu" }, cpu.report, label);
      assert.deepEqual(onGpu.diagnostics.recordLipschitz, cpu.diagnostics.recordLipschitz, label);
      assert.deepEqual(onGpu.datasets, cpu.datasets, label);
    },
  );
}
