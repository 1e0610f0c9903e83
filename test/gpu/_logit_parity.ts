/**
 * Shared pieces of the logistic and categorical Lipschitz parity tests: problems whose linear
 * predictors span many orders of magnitude (|η| from 1e-6 to 700, raw-scale covariates near
 * 1000), with near ties between records, draws and levels and α with zeros; and the checks that
 * the GPU backend's answer is the CPU's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { parseCsv } from "../../src/data/csv.ts";
import type { Dataset } from "../../src/data/dataset.ts";
import type { GpuContext } from "../../src/gpu/device.ts";
import { confirmLipschitz } from "../../src/gpu/lipschitz_confirm.ts";
import {
  createGpuLipschitz,
  type GpuLipschitzBackend,
  runLipschitzKernel,
} from "../../src/gpu/lipschitz_gpu.ts";
import { BOUND_FACTOR, packLipschitz } from "../../src/gpu/lipschitz_pack.ts";
import { selectLipschitz } from "../../src/gpu/select_lipschitz.ts";
import type { LipschitzResult } from "../../src/mechanisms/lipschitz.ts";
import { lipschitz } from "../../src/mechanisms/lipschitz.ts";
import { createModel, type Model } from "../../src/models/mod.ts";
import { Rng } from "../../src/random/rng.ts";
import { gpuTest } from "./_helpers.ts";

/** The state of {@linkcode nextSeed}'s sequence. */
let seedState = 20261125;

/**
 * The next seed of a fixed sequence (an LCG), printed in every failure message: each test file
 * draws the same seeds on every run, so a failure reproduces and a count the tests assert (near
 * ties) does not depend on chance.
 */
export function nextSeed(): number {
  seedState = (Math.imul(seedState, 1664525) + 1013904223) >>> 0;
  return seedState;
}

/** log-uniform on [lo, hi]. */
export function logUniform(rng: Rng, lo: number, hi: number): number {
  return lo * (hi / lo) ** rng.uniform();
}

/** ±1 with equal probability. */
export function sign(rng: Rng): number {
  return rng.uniform() < 0.5 ? -1 : 1;
}

/** The next f64 above v (v finite and positive). */
export function nextUp(v: number): number {
  const bits = new BigInt64Array(Float64Array.of(v).buffer);
  bits[0] += 1n;
  return new Float64Array(bits.buffer)[0];
}

/** The next f64 away from 0 after v, or the tiny 1e-300 for 0: a coefficient an ulp away. */
export function ulpAway(v: number): number {
  return v === 0 ? 1e-300 : Math.sign(v) * nextUp(Math.abs(v));
}

/** Weights α of n records from `rng`: 0 with probability 0.1, 1 with 0.1, else uniform. */
export function randomAlpha(rng: Rng, n: number): Float64Array {
  return Float64Array.from({ length: n }, () => {
    const u = rng.uniform();
    return u < 0.1 ? 0 : u < 0.2 ? 1 : rng.uniform();
  });
}

/** How a problem's data and draws are drawn. */
export interface ProblemShape {
  /** Outcome levels L (2: the logistic model; more: the categorical model). */
  readonly levels: number;
  /** Records. */
  readonly n: number;
  /** Coefficients per level, intercept included (1 to 3). */
  readonly k: number;
  /** Draws. */
  readonly s: number;
  /**
   * Spread η over many orders of magnitude (|η| from 1e-6 to 700) with a covariate near 1000,
   * and add near ties between records, draws and levels.
   */
  readonly wide?: boolean;
  /** With `wide`, the share of records and of draws that repeat the one before (default 0.05). */
  readonly ties?: number;
  /**
   * A covariate with three values (near 1000 when wide), so that rows group and the CPU model
   * runs its TypeScript loop rather than the SIMD one.
   */
  readonly grouped?: boolean;
  /** The categorical model even at L = 2. */
  readonly categorical?: boolean;
}

/**
 * A random logistic (L = 2) or categorical model, S constrained draws and α with about 10%
 * zeros and 10% ones; `edit` may change the data before the model is bound to it.
 */
export function logitProblem(
  rng: Rng,
  shape: ProblemShape,
  edit: (y: Float64Array, x: Float64Array) => void = () => {},
): { model: Model; draws: Float64Array; alpha: Float64Array } {
  const { levels, n, k, s, wide = false, grouped = false, ties = 0.05 } = shape;
  const x = new Float64Array(n * k);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i * k] = 1;
    if (k > 1) {
      x[i * k + 1] = grouped
        ? (wide ? 1000 : 0) + (i % 3)
        : wide
        ? 1000 + sign(rng) * logUniform(rng, 1e-3, 1e3)
        : rng.normal();
    }
    if (k > 2) x[i * k + 2] = rng.uniform() < 0.5 ? 1 : 0;
    y[i] = Math.floor(levels * rng.uniform());
    if (wide && i > 0 && rng.uniform() < ties) {
      // A duplicate of the previous record (an exact tie), or one a covariate ulp away.
      y[i] = y[i - 1];
      x.copyWithin(i * k, (i - 1) * k, i * k);
      if (k > 1 && !grouped && rng.uniform() < 0.5) x[i * k + 1] = nextUp(x[i * k + 1]);
    }
  }
  edit(y, x);
  const coefficientNames = ["intercept", "z", "b"].slice(0, k);
  const outcomeLevels = Array.from({ length: levels }, (_, l) => `level${l}`);
  const name = levels === 2 && shape.categorical !== true ? "logistic" : "categorical";
  const model = createModel(name, { n, k, y, x, coefficientNames, outcomeLevels });
  const m = (levels - 1) * k;
  const draws = new Float64Array(s * model.dim);
  for (let d = 0; d < s; d++) {
    const theta = draws.subarray(d * model.dim, (d + 1) * model.dim);
    for (let l = 0; l < levels - 1; l++) {
      const beta = theta.subarray(l * k, (l + 1) * k);
      if (!wide) {
        for (let j = 0; j < k; j++) beta[j] = (j === 1 ? 0.5 : 1.5) * rng.normal();
      } else if (l > 0 && rng.uniform() < 0.2) {
        // Two levels with (nearly) the same linear predictor.
        beta.set(theta.subarray((l - 1) * k, l * k));
        if (rng.uniform() < 0.5) beta[0] += 1e-9 * beta[0];
      } else {
        // η = ±L + β_1·(x_1 − 1000) + β_2·x_2 with L log-uniform on [1e-6, 700].
        const b1 = k > 1 ? sign(rng) * logUniform(rng, 1e-9, 0.35) : 0;
        beta[0] = -1000 * b1 + sign(rng) * logUniform(rng, 1e-6, 700);
        if (k > 1) beta[1] = b1;
        if (k > 2) beta[2] = sign(rng) * logUniform(rng, 1e-6, 10);
      }
    }
    for (let j = m; j < 2 * m; j++) theta[j] = 1;
    if (wide && d > 0 && rng.uniform() < ties) {
      // A repeated draw (an exact tie) or one a coefficient ulp away.
      theta.set(draws.subarray((d - 1) * model.dim, d * model.dim));
      if (rng.uniform() < 0.5) theta[0] = ulpAway(theta[0]);
    }
  }
  return { model, draws, alpha: randomAlpha(rng, n) };
}

/** Asserts the GPU result is the CPU's: Δ, arg-max and every Δ_i exact; the matrix within E_i. */
export function assertSameAnswer(
  label: string,
  gpuResult: LipschitzResult,
  cpuResult: LipschitzResult,
  bound?: Float64Array,
): void {
  assert.equal(gpuResult.overall, cpuResult.overall, `${label}: overall Δ`);
  assert.deepEqual(gpuResult.argmax, cpuResult.argmax, `${label}: arg-max`);
  const n = cpuResult.perRecord.length;
  for (let i = 0; i < n; i++) {
    assert.ok(
      Object.is(gpuResult.perRecord[i], cpuResult.perRecord[i]),
      `${label}: Δ_${i} = ${gpuResult.perRecord[i]}, CPU ${cpuResult.perRecord[i]}`,
    );
  }
  if (cpuResult.matrix !== undefined && bound !== undefined) {
    assertMatrixWithin(label, gpuResult, cpuResult, bound);
  }
}

/** Asserts every entry of the GPU matrix is within its record's bound E_i of the CPU's. */
export function assertMatrixWithin(
  label: string,
  gpuResult: LipschitzResult,
  cpuResult: LipschitzResult,
  bound: Float64Array,
): void {
  const n = cpuResult.perRecord.length;
  const m = gpuResult.matrix!;
  for (let j = 0; j < m.length; j++) {
    const i = j % n;
    assert.ok(
      Math.abs(m[j] - cpuResult.matrix![j]) <= bound[i],
      `${label}: matrix[${Math.floor(j / n)}, ${i}] = ${m[j]}, CPU ${cpuResult.matrix![j]}`,
    );
  }
}

/**
 * Runs the kernel alone with the matrix and checks every f32 entry and every f32 maximum against
 * the CPU's f64 within its bound E_i (records with α_i = 0 too unless `skipZeroWeights`); returns
 * the largest |f32 − f64| / E_i and how many records the kernel evaluated.
 */
export async function checkKernelBounds(
  ctx: GpuContext,
  label: string,
  { model, draws, alpha }: LipschitzProblem,
  skipZeroWeights = true,
): Promise<{ worst: number; evaluated: number }> {
  const packed = packLipschitz(model, draws, alpha);
  const maxima = await runLipschitzKernel(ctx, packed, true, ctx.limits);
  const cpu = lipschitz(model, draws, { alpha, matrix: true });
  const n = model.design.n;
  let worst = 0;
  let evaluated = 0;
  for (let i = 0; i < n; i++) {
    if (maxima.flag[i] === 1 || packed.cpuRecords.includes(i)) continue;
    if (skipZeroWeights && alpha[i] === 0) continue;
    evaluated++;
    const bound = BOUND_FACTOR * maxima.err[i];
    let exact = 0;
    for (let p = 0; p < packed.drawIndex.length; p++) {
      const want = cpu.matrix![packed.drawIndex[p] * n + i];
      exact = Math.max(exact, want);
      const error = Math.abs(maxima.matrix![p * n + i] - want);
      assert.ok(error <= bound, `${label}: entry (${p}, ${i}): ${error} > ${bound}`);
      if (error > 0) worst = Math.max(worst, error / bound);
    }
    const error = Math.abs(maxima.value[i] - exact);
    assert.ok(error <= bound, `${label}: max of record ${i}: ${error} > ${bound}`);
  }
  return { worst, evaluated };
}

/**
 * Asserts the backend gives the CPU's answer with the matrix, streamed (no matrix, the same Δ) and
 * with α = 1.
 */
export async function assertMatrixStreamedUnweighted(
  backend: GpuLipschitzBackend,
  label: string,
  model: Model,
  draws: Float64Array,
  alpha: Float64Array,
): Promise<void> {
  const got = await backend.compute(model, draws, { alpha, matrix: true });
  const want = lipschitz(model, draws, { alpha, matrix: true });
  assertSameAnswer(label, got, want);
  const streamed = await backend.compute(model, draws, { alpha });
  assert.equal(streamed.matrix, undefined);
  assertSameAnswer(`${label} streamed`, streamed, want);
  const unweighted = await backend.compute(model, draws);
  assertSameAnswer(`${label} α = 1`, unweighted, lipschitz(model, draws));
}

/** Asserts the backend gives the CPU's answer with α and with α = 1; returns the near ties of the first. */
export async function assertWeightedUnweighted(
  backend: GpuLipschitzBackend,
  label: string,
  model: Model,
  draws: Float64Array,
  alpha: Float64Array,
): Promise<number> {
  const got = await backend.compute(model, draws, { alpha });
  assertSameAnswer(label, got, lipschitz(model, draws, { alpha }));
  const nearTies = backend.lastStats!.nearTies;
  const unweighted = await backend.compute(model, draws);
  assertSameAnswer(`${label} α = 1`, unweighted, lipschitz(model, draws));
  return nearTies;
}

/**
 * Asserts the backend gives the CPU's answer where record 17's outcome is bad (Δ infinite when
 * α_17 > 0, finite once α_17 = 0), then with draw 3's coefficient `hugeAt` 1e30 and draw 4's
 * `nanAt` NaN.
 */
export async function assertBadInputsInF64(
  backend: GpuLipschitzBackend,
  label: string,
  model: Model,
  draws: Float64Array,
  alpha: Float64Array,
  hugeAt: number,
  nanAt: number,
): Promise<void> {
  const want = lipschitz(model, draws, { alpha, matrix: true });
  assertSameAnswer(label, await backend.compute(model, draws, { alpha, matrix: true }), want);
  if (alpha[17] > 0) assert.equal(want.overall, Infinity, label);
  alpha[17] = 0;
  const ignored = await backend.compute(model, draws, { alpha });
  assertSameAnswer(`${label} α_17 = 0`, ignored, lipschitz(model, draws, { alpha }));
  assert.ok(Number.isFinite(ignored.overall), label);
  draws[3 * model.dim + hugeAt] = 1e30;
  assertSameAnswer(
    `${label} huge β`,
    await backend.compute(model, draws, { alpha }),
    lipschitz(model, draws, { alpha }),
  );
  draws[4 * model.dim + nanAt] = NaN;
  assertSameAnswer(
    `${label} NaN β`,
    await backend.compute(model, draws, { alpha }),
    lipschitz(model, draws, { alpha }),
  );
}

/** Asserts `--backend gpu` selects the GPU, with no note and no line logged, and gives the CPU's Δ. */
export async function assertSelectsGpu(
  model: Model,
  draws: Float64Array,
  alpha: Float64Array,
): Promise<void> {
  const lines: string[] = [];
  const backend = await selectLipschitz("gpu", (line) => lines.push(line));
  const got = await backend.compute(model, draws, { alpha });
  assert.equal(backend.name, "gpu");
  assert.equal(backend.note, null);
  assert.deepEqual(lines, []);
  assertSameAnswer("selected", got, lipschitz(model, draws, { alpha }));
}

/** Asserts `confirmLipschitz()`, every record marked exact at 0, gives the whole model's answer. */
export function assertConfirmsAsWholeModel(
  label: string,
  model: Model,
  draws: Float64Array,
): void {
  const n = model.design.n;
  const { result } = confirmLipschitz(model, draws, null, {
    value: new Float64Array(n),
    draw: new Int32Array(n),
    runnerUp: new Float64Array(n).fill(-1),
    bound: new Float64Array(n),
    exact: new Uint8Array(n).fill(1),
    skippedDraws: new Int32Array(0),
  }, undefined);
  assertSameAnswer(label, result, lipschitz(model, draws));
}

/**
 * {@linkcode assertConfirmsAsWholeModel} on four problems with `levels` outcome levels (n = 400,
 * K = 3, 30 draws), three with rows that group and one without, every coefficient times 0.07:
 * |η| below 1 or so, where the TypeScript and SIMD loops differ most. With rows that group, the
 * whole model runs the TypeScript loop while a few records alone would run the SIMD one (a few
 * ulp apart): the confirmation must re-evaluate in the parent's.
 */
export function assertConfirmsGroupedOrNot(levels: number): void {
  for (const grouped of [true, true, true, false]) {
    const seed = nextSeed();
    const { model, draws } = logitProblem(new Rng(seed), { levels, n: 400, k: 3, s: 30, grouped });
    for (let d = 0; d < 30; d++) {
      for (let j = 0; j < 3 * (levels - 1); j++) draws[d * model.dim + j] *= 0.07;
    }
    assertConfirmsAsWholeModel(`grouped=${grouped} seed ${seed}`, model, draws);
  }
}

/**
 * A problem with `levels` outcome levels (n = 60, K = 2, 12 draws) whose record 17 has the
 * outcome `bad` and record 5 a covariate of 1e9 (|x| > 2²⁴: record 5 goes to the CPU), α_5 = 1.
 */
export function badInputsProblem(
  seed: number,
  levels: number,
  bad: number,
): { model: Model; draws: Float64Array; alpha: Float64Array } {
  const problem = logitProblem(new Rng(seed), { levels, n: 60, k: 2, s: 12 }, (y, x) => {
    y[17] = bad;
    x[5 * 2 + 1] = 1e9;
  });
  problem.alpha[5] = 1;
  return problem;
}

/** A problem's outcome levels, records, coefficients per level and draws. */
export type ProblemSize = readonly [levels: number, n: number, k: number, s: number];

/**
 * {@linkcode assertParityOverShapes} for |η| from 1e-6 to 700, covariates near 1000 and near
 * ties: `wide` sizes with wide covariates and ties, then rows that group (the CPU model runs its
 * TypeScript loop, not the SIMD one), wide with ties at `groupedWide` and plain at `grouped`.
 */
export async function assertParityOverMagnitudes(
  ctx: GpuContext,
  sizes: { wide: readonly ProblemSize[]; groupedWide: ProblemSize; grouped: ProblemSize },
  trials: number,
  name: (shape: ProblemShape) => string,
): Promise<void> {
  const shape = ([levels, n, k, s]: ProblemSize) => ({ levels, n, k, s });
  const shapes: ProblemShape[] = [
    ...sizes.wide.map((size) => ({ ...shape(size), wide: true, ties: 0.25 })),
    { ...shape(sizes.groupedWide), wide: true, ties: 0.25, grouped: true },
    { ...shape(sizes.grouped), grouped: true },
  ];
  await assertParityOverShapes(ctx, shapes, trials, logitProblem, name);
}

/**
 * Registers the GPU test "`model`: Δ, every Δ_i and the arg-max equal the CPU's for |η| from 1e-6
 * to 700, covariates near 1000 and near ties": {@linkcode assertParityOverMagnitudes}.
 */
export function magnitudeParityTest(
  model: string,
  sizes: { wide: readonly ProblemSize[]; groupedWide: ProblemSize; grouped: ProblemSize },
  trials: number,
  name: (shape: ProblemShape) => string,
): void {
  gpuTest(
    `${model}: Δ, every Δ_i and the arg-max equal the CPU's for |η| from 1e-6 to 700, covariates near 1000 and near ties`,
    async (ctx) => await assertParityOverMagnitudes(ctx, sizes, trials, name),
  );
}

/**
 * Registers the GPU test "`model`: the kernel's error bounds E_i hold over many magnitudes":
 * {@linkcode worstBoundRatios} over `shapes`, the ratios logged.
 */
export function boundRatiosTest<S>(
  model: string,
  shapes: readonly S[],
  problem: (rng: Rng, shape: S) => LipschitzProblem,
  name: (shape: S) => string,
): void {
  gpuTest(`${model}: the kernel's error bounds E_i hold over many magnitudes`, async (ctx) => {
    const ratios = await worstBoundRatios(ctx, shapes, problem, name);
    console.log(`${model}: largest |f32 − f64| / E_i: ${ratios}`);
  });
}

/**
 * {@linkcode worstBoundRatio} on one problem of each shape (seed from {@linkcode nextSeed}): the
 * ratios, each after its shape's name, joined by commas.
 */
export async function worstBoundRatios<S>(
  ctx: GpuContext,
  shapes: readonly S[],
  problem: (rng: Rng, shape: S) => LipschitzProblem,
  name: (shape: S) => string,
): Promise<string> {
  const ratios: string[] = [];
  for (const shape of shapes) {
    const seed = nextSeed();
    const worst = await worstBoundRatio(
      ctx,
      `${name(shape)} seed ${seed}`,
      seed,
      problem(new Rng(seed), shape),
    );
    ratios.push(`${name(shape)} ${worst}`);
  }
  return ratios.join(", ");
}

/** A model, its draws and the weights α of a parity check. */
export interface LipschitzProblem {
  readonly model: Model;
  readonly draws: Float64Array;
  readonly alpha: Float64Array;
}

/**
 * Draws `trials` problems of each shape (seed from {@linkcode nextSeed}), asserts the GPU backend's
 * weighted and unweighted answers are the CPU's, and that the duplicated records and draws made
 * near ties for the f64 confirmation to settle.
 */
export async function assertParityOverShapes<S>(
  ctx: GpuContext,
  shapes: readonly S[],
  trials: number,
  problem: (rng: Rng, shape: S) => LipschitzProblem,
  name: (shape: S) => string,
): Promise<void> {
  const backend = createGpuLipschitz(ctx);
  let nearTies = 0;
  for (const shape of shapes) {
    for (let trial = 0; trial < trials; trial++) {
      const seed = nextSeed();
      const { model, draws, alpha } = problem(new Rng(seed), shape);
      const label = `${name(shape)} seed ${seed}`;
      nearTies += await assertWeightedUnweighted(backend, label, model, draws, alpha);
    }
  }
  assert.ok(nearTies > 0, `${nearTies} near ties`);
}

/**
 * {@linkcode checkKernelBounds} on one problem, asserting the kernel evaluated over 300 records;
 * returns the largest |f32 − f64| / E_i to two decimals.
 */
async function worstBoundRatio(
  ctx: GpuContext,
  label: string,
  seed: number,
  problem: LipschitzProblem,
): Promise<string> {
  const { worst, evaluated } = await checkKernelBounds(ctx, label, problem);
  assert.ok(evaluated > 300, `seed ${seed}: the kernel evaluated ${evaluated} records`);
  return worst.toFixed(2);
}

/**
 * The data of a pipeline parity test: 300 rows that `row` draws from a generator seeded by
 * {@linkcode nextSeed}, under `header`, parsed as `<name>.csv`; and that seed.
 */
export function pipelineData(
  name: string,
  header: string,
  row: (rng: Rng) => string,
): { seed: number; data: Dataset } {
  const seed = nextSeed();
  const rng = new Rng(seed);
  const rows = Array.from({ length: 300 }, () => row(rng));
  return { seed, data: parseCsv(header + "\n" + rows.join("\n") + "\n", `${name}.csv`) };
}
