import assert from "node:assert/strict";
import { type GpuContext, GpuError } from "../../src/gpu/device.ts";
import { confirmLipschitz } from "../../src/gpu/lipschitz_confirm.ts";
import { createGpuLipschitz, planTiles, runLipschitzKernel } from "../../src/gpu/lipschitz_gpu.ts";
import { BOUND_FACTOR, packLipschitz } from "../../src/gpu/lipschitz_pack.ts";
import { lipschitz, type LipschitzResult } from "../../src/mechanisms/lipschitz.ts";
import { createModel, type Model } from "../../src/models/mod.ts";
import { Rng } from "../../src/random/rng.ts";
import { twoRecordPoisson } from "../models/_helpers.ts";
import { announceGpu, gpuTest } from "./_helpers.ts";
import { assertMatrixWithin, checkKernelBounds, logUniform } from "./_logit_parity.ts";

announceGpu("the GPU Lipschitz tests");

const MODELS = ["poisson", "negbin", "beta", "normal", "lognormal"] as const;
type Name = typeof MODELS[number];

/** A fresh seed from the system's entropy, printed in every failure message. */
function nextSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0];
}

/** An outcome of the model's kind; `wide` spreads it over many orders of magnitude. */
function outcome(name: Name, rng: Rng, wide: boolean): number {
  switch (name) {
    case "poisson":
    case "negbin":
      return wide ? Math.floor(logUniform(rng, 1, 1e6)) - 1 : Math.floor(30 * rng.uniform() ** 3);
    case "beta":
      return wide && rng.uniform() < 0.5 ? 1 / (1 + logUniform(rng, 1e-6, 1e6)) : rng.uniform();
    case "normal":
      return (wide ? logUniform(rng, 0.01, 1e5) : 2) * rng.normal();
    case "lognormal":
      return wide ? logUniform(rng, 1e-8, 1e8) : Math.exp(rng.normal());
  }
}

/**
 * A random model with n records and K coefficients (column 1 continuous, column 2 binary), S
 * random constrained draws around its starting point, and α with about 10% zeros; `edit` may
 * change the data before the model is bound to it.
 */
function problem(
  name: Name,
  rng: Rng,
  n: number,
  k: number,
  s: number,
  wide = false,
  edit: (y: Float64Array, x: Float64Array) => void = () => {},
): { model: Model; draws: Float64Array; alpha: Float64Array } {
  const x = new Float64Array(n * k);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i * k] = 1;
    if (k > 1) x[i * k + 1] = rng.normal() * (wide ? logUniform(rng, 0.01, 10) : 1);
    if (k > 2) x[i * k + 2] = rng.uniform() < 0.5 ? 1 : 0;
    y[i] = outcome(name, rng, wide);
  }
  edit(y, x);
  const names = ["intercept", "z", "b"].slice(0, k);
  const model = createModel(name, { n, k, y, x, coefficientNames: names });
  const draws = new Float64Array(s * model.dim);
  for (let d = 0; d < s; d++) {
    const u = model.initialPoint();
    for (let j = 0; j < model.dim; j++) u[j] += (wide ? 2 : 0.3) * rng.normal();
    if (wide && model.dim > 2 * k) u[2 * k] = 18 * rng.uniform() - 9;
    draws.set(model.constrain(u), d * model.dim);
  }
  const alpha = Float64Array.from({ length: n }, () => rng.uniform() < 0.1 ? 0 : rng.uniform());
  return { model, draws, alpha };
}

/** Asserts the GPU result is the CPU's: Δ, arg-max and every Δ_i exact; the matrix within E_i. */
function assertSameAnswer(
  label: string,
  gpuResult: LipschitzResult,
  cpuResult: LipschitzResult,
  bound: Float64Array,
): void {
  assert.equal(gpuResult.overall, cpuResult.overall, `${label}: overall Δ`);
  assert.deepEqual(gpuResult.argmax, cpuResult.argmax, `${label}: arg-max`);
  assert.deepEqual(gpuResult.perRecord, cpuResult.perRecord, `${label}: per-record maxima`);
  if (cpuResult.matrix !== undefined) assertMatrixWithin(label, gpuResult, cpuResult, bound);
}

/** The kernel's per-record bounds E_i (0 for records it left to the CPU). */
async function kernelBounds(
  ctx: GpuContext,
  model: Model,
  draws: Float64Array,
  alpha: Float64Array,
): Promise<Float64Array> {
  const packed = packLipschitz(model, draws, alpha);
  const maxima = await runLipschitzKernel(ctx, packed, false, ctx.limits);
  return Float64Array.from(maxima.err, (e, i) => maxima.flag[i] === 1 ? 0 : BOUND_FACTOR * e);
}

for (const name of MODELS) {
  gpuTest(
    `\`createGpuLipschitz()\` gives the CPU's Δ for ${name} with K = 1 and K = 3`,
    async (ctx) => {
      const backend = createGpuLipschitz(ctx);
      for (const k of [1, 3]) {
        const seed = nextSeed();
        const rng = new Rng(seed);
        const { model, draws, alpha } = problem(name, rng, 300, k, 40);
        const label = `${name} K=${k} seed ${seed}`;
        const got = await backend.compute(model, draws, { alpha, matrix: true });
        const want = lipschitz(model, draws, { alpha, matrix: true });
        assertSameAnswer(label, got, want, await kernelBounds(ctx, model, draws, alpha));
        const streamed = await backend.compute(model, draws, { alpha });
        assert.equal(streamed.matrix, undefined);
        assert.deepEqual(streamed.perRecord, got.perRecord, label);
        const unweighted = await backend.compute(model, draws);
        assert.equal(unweighted.overall, lipschitz(model, draws).overall, `${label}: α = 1`);
      }
    },
  );
}

gpuTest("the kernels' error bounds E_i hold on inputs spread over many magnitudes", async (ctx) => {
  const ratios: string[] = [];
  for (const name of MODELS) {
    const seed = nextSeed();
    const drawn = problem(name, new Rng(seed), 400, 3, 40, true);
    const { worst } = await checkKernelBounds(ctx, `${name} seed ${seed}`, drawn, false);
    ratios.push(`${name} ${worst.toFixed(2)}`);
  }
  console.log(`largest |f32 − f64| / E_i: ${ratios.join(", ")}`);
});

gpuTest("non-finite ℓ with α_i > 0 makes Δ infinite as on the CPU", async (ctx) => {
  const backend = createGpuLipschitz(ctx);
  const seed = nextSeed();
  const cases: [Name, number][] = [
    ["beta", 1],
    ["beta", 0],
    ["lognormal", 0],
    ["lognormal", -2],
    ["poisson", -1],
    ["negbin", NaN],
    ["normal", Infinity],
  ];
  for (const [name, bad] of cases) {
    const { model, draws, alpha } = problem(name, new Rng(seed), 50, 2, 10, false, (y) => {
      y[17] = bad;
    });
    const label = `${name} y=${bad} seed ${seed}`;
    const want = lipschitz(model, draws, { alpha, matrix: true });
    const got = await backend.compute(model, draws, { alpha, matrix: true });
    assert.equal(got.overall, want.overall, label);
    assert.deepEqual(got.argmax, want.argmax, label);
    assert.deepEqual(got.perRecord, want.perRecord, label);
    if (alpha[17] > 0) assert.equal(got.overall, Infinity, label);
    // With α = 0 the record is ignored on both.
    alpha[17] = 0;
    const ignored = await backend.compute(model, draws, { alpha });
    assert.equal(ignored.overall, lipschitz(model, draws, { alpha }).overall, label);
    assert.ok(Number.isFinite(ignored.overall), label);
  }
});

gpuTest("draws and records outside the kernels' ranges are computed in f64", async (ctx) => {
  const backend = createGpuLipschitz(ctx);
  const seed = nextSeed();
  for (const name of MODELS) {
    // A covariate outlier (|x| > 2²⁴) and one that pushes |η| to about 400, past the exp-based
    // kernels' range.
    const { model, draws, alpha } = problem(name, new Rng(seed), 60, 2, 12, false, (_y, x) => {
      x[5 * 2 + 1] = 1e9;
      x[9 * 2 + 1] = 400;
    });
    const dim = model.dim;
    const label = `${name} seed ${seed}`;
    alpha[5] = alpha[9] = 1;
    // A draw with a huge coefficient and one at an extreme φ or σ.
    draws[3 * dim + 1] = 1e30;
    if (dim > 4) draws[5 * dim + 4] = 1e-300;
    const compare = async (what: string, rows: number[]) => {
      const want = lipschitz(model, draws, { alpha, matrix: true });
      const got = await backend.compute(model, draws, { alpha, matrix: true });
      assert.equal(got.overall, want.overall, `${label} ${what}`);
      assert.deepEqual(got.argmax, want.argmax, `${label} ${what}`);
      for (const s of rows) {
        const row = (m: Float64Array) => Array.from(m.subarray(s * 60, (s + 1) * 60));
        assert.deepEqual(row(got.matrix!), row(want.matrix!), `${label} ${what}: draw ${s}`);
      }
      assert.equal(got.perRecord[5], want.perRecord[5], `${label} ${what}: record 5`);
    };
    await compare("finite", dim > 4 ? [3, 5] : [3]);
    // A draw with a non-finite coefficient: every record with α_i > 0 becomes infinite.
    draws[4 * dim] = NaN;
    await compare("NaN draw", [3, 4]);
  }
});

gpuTest("tiling at just below and above each limit gives the untiled answer", async (ctx) => {
  const seed = nextSeed();
  const untiled = createGpuLipschitz(ctx);
  const check = async (
    label: string,
    n: number,
    s: number,
    limits: { maxStorageBufferBindingSize?: number; maxComputeWorkgroupsPerDimension?: number },
    matrix: boolean,
    expectTiles: (records: number, draws: number) => boolean,
  ) => {
    const { model, draws, alpha } = problem("negbin", new Rng(seed), n, 1, s);
    const full = {
      maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize ??
        ctx.limits.maxStorageBufferBindingSize,
      maxComputeWorkgroupsPerDimension: limits.maxComputeWorkgroupsPerDimension ??
        ctx.limits.maxComputeWorkgroupsPerDimension,
    };
    const plan = planTiles(n, s, 3, 5, matrix, full);
    const tiles = [Math.ceil(n / plan.recordsPerTile), Math.ceil(s / plan.drawsPerTile)] as const;
    assert.ok(expectTiles(...tiles), `${label}: tiles ${tiles}`);
    assert.ok(plan.groups <= full.maxComputeWorkgroupsPerDimension);
    assert.ok(Math.ceil(plan.recordsPerTile / 64) <= full.maxComputeWorkgroupsPerDimension);
    const tiled = await createGpuLipschitz(ctx, { limits }).compute(model, draws, {
      alpha,
      matrix,
    });
    const reference = await untiled.compute(model, draws, { alpha, matrix });
    assert.deepEqual(tiled, reference, `${label} seed ${seed}`);
    assert.equal(
      tiled.overall,
      lipschitz(model, draws, { alpha }).overall,
      `${label} seed ${seed}`,
    );
  };
  // 3 workgroups of 64 threads: 192 records in one tile, 193 in two.
  const three = { maxComputeWorkgroupsPerDimension: 3 };
  await check("192 records, 3 workgroups", 192, 30, three, false, (r) => r === 1);
  await check("193 records, 3 workgroups", 193, 30, three, false, (r) => r === 2);
  // 4096-byte bindings: 204 results of 20 bytes; 204 draws of 20 bytes.
  const small = { maxStorageBufferBindingSize: 4096 };
  await check("204 records, 4 KiB", 204, 20, small, false, (r, d) => r === 1 && d === 1);
  await check("205 records, 4 KiB", 205, 20, small, false, (r, d) => r === 2 && d === 1);
  await check("204 draws, 4 KiB", 100, 204, small, false, (r, d) => r === 1 && d === 1);
  await check("205 draws, 4 KiB", 100, 205, small, false, (r, d) => r === 1 && d === 2);
  // The matrix tile: 32 records × 32 draws × 4 bytes = 4096.
  await check("matrix 32 × 32, 4 KiB", 32, 32, small, true, (r, d) => r === 1 && d === 1);
  await check("matrix 32 × 33, 4 KiB", 32, 33, small, true, (r, d) => r === 1 && d === 2);
  await check(
    "both limits",
    300,
    70,
    { maxStorageBufferBindingSize: 4096, maxComputeWorkgroupsPerDimension: 3 },
    true,
    (r, d) => r === 2 && d > 1,
  );
});

gpuTest("duplicated records tied at the maximum are confirmed once each", async (ctx) => {
  const backend = createGpuLipschitz(ctx);
  const seed = nextSeed();
  // Intercept only: 21 records with an extreme count, which hold the maximum (|ℓ| ≈ 2600
  // against at most a few hundred for the others).
  const { model, draws } = problem("poisson", new Rng(seed), 200, 1, 30, false, (y) => {
    for (let i = 0; i <= 20; i++) y[i * 7] = 2000;
  });
  const want = lipschitz(model, draws);
  const got = await backend.compute(model, draws);
  assert.equal(got.overall, want.overall, `seed ${seed}`);
  assert.deepEqual(got.argmax, want.argmax, `seed ${seed}`);
  assert.equal(got.argmax.record, 0);
  const stats = backend.lastStats!;
  assert.ok(stats.recomputed >= 21, `seed ${seed}`);
  // One distinct row for the 21 tied records, plus at most one per near tie elsewhere (rare).
  assert.ok(stats.distinct >= 1 && stats.distinct - 1 <= stats.nearTies, `seed ${seed}`);
  if (stats.nearTies === 0) assert.equal(stats.distinct, 1, `seed ${seed}`);
});

gpuTest("`createGpuLipschitz()` rejects what the CPU loop rejects, and bad limits", async (ctx) => {
  const backend = createGpuLipschitz(ctx);
  const model = twoRecordPoisson();
  await assert.rejects(backend.compute(model, new Float64Array(3)), /not a positive multiple/);
  await assert.rejects(
    backend.compute(model, new Float64Array(2), { alpha: new Float64Array(3) }),
    /alpha has 3 entries, expected 2/,
  );
  assert.throws(
    () => createGpuLipschitz(ctx, { limits: { maxStorageBufferBindingSize: 0 } }),
    /Invalid limits.maxStorageBufferBindingSize/,
  );
  await assert.rejects(
    createGpuLipschitz(ctx, { limits: { maxStorageBufferBindingSize: 8 } }).compute(
      model,
      Float64Array.of(0, 1),
    ),
    RangeError,
  );
  // A model the registry does not know (every model it lists has a kernel).
  const unknown = { ...model, name: "gamma" } as Model;
  await assert.rejects(backend.compute(unknown, Float64Array.of(0, 1)), GpuError);
});

gpuTest("a lost device is reported as a GpuError, never as numbers", async (ctx) => {
  const adapter = await navigator.gpu.requestAdapter();
  const device = await adapter!.requestDevice({ label: "lost on purpose" });
  const own: GpuContext = { ...ctx, device };
  const backend = createGpuLipschitz(own);
  device.destroy();
  await device.lost;
  const { model, draws, alpha } = problem("poisson", new Rng(1), 20, 1, 5);
  await assert.rejects(backend.compute(model, draws, { alpha }), (error: Error) => {
    assert.ok(error instanceof GpuError, String(error));
    assert.match(error.message, /device lost: destroyed/);
    return true;
  });
});

Deno.test("`confirmLipschitz()` returns the exact f64 Δ and per-record maxima from any approximation within its bounds", () => {
  const seed = nextSeed();
  const rng = new Rng(seed);
  let [nearTies, trusted] = [0, 0];
  for (let trial = 0; trial < 20; trial++) {
    const { model, draws, alpha } = problem("negbin", rng, 80, 2, 15);
    const n = model.design.n;
    const cpu = lipschitz(model, draws, { alpha, matrix: true });
    const S = draws.length / model.dim;
    // Perturb every entry by up to its bound, then take the perturbed maxima; a few records
    // are marked exact and a few draws skipped.
    const bound = Float64Array.from({ length: n }, () => 0.5 * rng.uniform() ** 4);
    const skippedDraws = Int32Array.from([...Array(S).keys()].filter(() => rng.uniform() < 0.1));
    const exact = Uint8Array.from({ length: n }, () => rng.uniform() < 0.05 ? 1 : 0);
    const value = new Float64Array(n);
    const draw = new Int32Array(n);
    const runnerUp = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let [best, second] = [-1, -1];
      for (let s = 0; s < S; s++) {
        if (skippedDraws.includes(s)) continue;
        const v = Math.max(0, cpu.matrix![s * n + i] + bound[i] * (2 * rng.uniform() - 1));
        if (v > best) [second, best, draw[i]] = [best, v, s];
        else second = Math.max(second, v);
      }
      [value[i], runnerUp[i]] = [Math.max(0, best), second];
    }
    const { result, stats } = confirmLipschitz(
      model,
      draws,
      alpha,
      { value, draw, runnerUp, bound, exact, skippedDraws },
      undefined,
    );
    const label = `seed ${seed} trial ${trial}`;
    assert.equal(result.overall, cpu.overall, label);
    assert.deepEqual(result.argmax, cpu.argmax, label);
    assert.deepEqual(result.perRecord, cpu.perRecord, label);
    nearTies += stats.nearTies;
    trusted += n - stats.recomputed - alpha.filter((a) => a === 0).length;
  }
  // Both paths ran: near ties recomputed, and other records left at their approximate arg-max.
  assert.ok(nearTies > 0 && trusted > 0, `seed ${seed}: ${nearTies} near ties, ${trusted} trusted`);
});
