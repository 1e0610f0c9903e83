/**
 * What the whole-file models' GPU Lipschitz passes share (SPEC §13): the kernel run that keeps
 * per group g of records the extremes of |u_g(θ_s)| over the draws in f32
 * (shaders/term_extremes.wgsl prepended to the model's kernel), the f32 bound of an α-weighted
 * sum of logs, and the f64 confirmation that turns the kernel's extremes into the one-thread
 * `termMaxima`'s, bit for bit. `lipschitz_latent_class.ts` and `lipschitz_bayes_net.ts` supply
 * the kernel, its inputs and the model's f64 term.
 *
 * Confirmation in f64, for each extreme (the argument of `lipschitz_confirm.ts`, group by group):
 * let E_g bound the kernel's error at every draw it evaluated, A_g and L_g be its f32 maximum and
 * minimum of |u_g| over those draws, R_g the largest over the other draws and R'_g the smallest
 * (+∞ with one draw). A group with A_g − R_g > 2E_g has its exact maximum over the kernel's draws
 * at the same draw (every other is at most R_g + E_g < A_g − E_g), and one with R'_g − L_g > 2E_g
 * its exact minimum (every other is at least R'_g − E_g > L_g + E_g); max and min are
 * 1-Lipschitz in the maximum norm, so E_g bounds both extremes' errors. Either draw is then the
 * unique exact extreme over the kernel's draws, hence also the first; its f64 value there,
 * joined with the f64 extreme over the draws the kernel skipped (the earlier draw on an exact
 * tie), is `termMaxima`'s extreme with its first draw (whose maximum starts at 0 at draw 0 and
 * minimum at +∞, each replaced only by a strictly more extreme value, NaN counting as +∞). Every
 * other group (a near tie of either extreme, or one the kernel flagged as non-finite) is
 * recomputed in f64 over all draws. A group the kernel does not evaluate (α = 0) has u = 0 at
 * every kernel draw, so 0 at the first kernel draw joins its skipped draws' f64 extremes the same
 * way. The f64 values come from the model's own term, bit for bit `termMaxima`'s.
 *
 * @module
 */
import extremesShader from "../../shaders/term_extremes.wgsl" with { type: "text" };
import { foldExtremes, type TermMaxima } from "../models/latent_class.ts";
import { bufferPool } from "./buffers.ts";
import { cachedPipeline, type GpuContext, GpuError, withErrorScopes } from "./device.ts";
import {
  bindTileKernels,
  encodeTile,
  LOOP_BUDGET,
  planTiles,
  readResults,
  type TilingLimits,
} from "./lipschitz_gpu.ts";

/** The unit roundoff u = 2⁻²⁴ of f32. */
const U = 2 ** -24;

/** Bytes of one `Best` (v, e, arg, flag, v2, lo, lo_arg, lo2), passed to planTiles. */
const BEST_BYTES = 32;

/** 32-bit words of one `Best`. */
const BEST_WORDS = BEST_BYTES / 4;

/** Bytes of term_extremes.wgsl's `Extent`. */
const EXTENT_BYTES = 32;

/** γ_n = n·u/(1 − n·u) of f32 (Higham 2002, §3.1). */
function gamma(n: number): number {
  return (n * U) / (1 - n * U);
}

/**
 * The relative bound r of an α-weighted sum of m non-positive terms in f32: with each term and α
 * rounded to f32 (u relative each), the recursive sum in any order (γ_{m−1}·Σ|terms|, Higham
 * 2002, §4.2, and Σ|terms| = |Σ| as the terms share a sign) and the product by α,
 * |v̂ − α·Σ_t ℓ_t| ≤ γ_{m+2}·|α·Σ_t ℓ_t| ≤ r·|v̂| with r = γ_{m+2}/(1 − γ_{m+2}).
 *
 * @param terms m.
 * @returns r.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { weightedSumBound } from "./term_extremes.ts";
 * const r = weightedSumBound(25);
 * assert.ok(r > 27 * 2 ** -24 && r < 27.001 * 2 ** -24);
 * ```
 */
export function weightedSumBound(terms: number): number {
  const g = gamma(terms + 2);
  return g / (1 - g);
}

/** One input array of a term kernel: per group, or per kernel draw. */
export interface TermKernelInput {
  readonly data: Uint32Array<ArrayBuffer> | Float32Array<ArrayBuffer>;
  /** 32-bit words per group (or per draw). */
  readonly stride: number;
}

/** A model's term kernel and its inputs (see shaders/term_extremes.wgsl for the contract). */
export interface TermKernel {
  /** The pipelines' and buffers' label. */
  readonly label: string;
  /** The model's WGSL: its constants at binding 3, `evaluate`, inputs from binding 4 on. */
  readonly source: string;
  /** Groups (at least one). */
  readonly groups: number;
  /** Kernel draws (at least one). */
  readonly draws: number;
  /** The kernel's constants (binding 3), a multiple of 16 bytes. */
  readonly constants: ArrayBuffer;
  /** Per-group inputs, bound at 4, 5, …, in this order. */
  readonly perGroup: readonly TermKernelInput[];
  /** Per-draw inputs, bound after the per-group ones. */
  readonly perDraw: readonly TermKernelInput[];
  /** Loop iterations one thread runs per draw, exit tests included (see `LOOP_BUDGET`). */
  readonly loopsPerDraw: number;
  /** E_g = this × the largest bound the kernel wrote. */
  readonly boundFactor: number;
}

/** The kernel's per-group output, before the f64 confirmation. */
export interface TermKernelExtremes {
  /** A_g: the f32 max of |u_g| over the kernel's draws. */
  readonly value: Float32Array;
  /** The kernel row of A_g, first on ties. */
  readonly draw: Int32Array;
  /** R_g: the f32 max over the other kernel draws (−1 with one draw). */
  readonly runnerUp: Float32Array;
  /** L_g: the f32 min of |u_g| over the kernel's draws (+∞ if none was finite). */
  readonly minValue: Float32Array;
  /** The kernel row of L_g, first on ties. */
  readonly minDraw: Int32Array;
  /** R'_g: the f32 min over the other kernel draws (+∞ with one draw). */
  readonly minRunnerUp: Float32Array;
  /** E_g: the bound on both extremes' errors over the kernel's draws (factor included). */
  readonly bound: Float64Array;
  /** 1 where a value or bound was not finite (the group is recomputed in f64). */
  readonly flag: Uint8Array;
}

/**
 * Runs a term kernel over its groups × draws, tiled so that no binding exceeds
 * maxStorageBufferBindingSize, no dispatch maxComputeWorkgroupsPerDimension, and no thread the
 * loop budget.
 *
 * @param gpu The GPU.
 * @param kernel The kernel and its inputs.
 * @param limits The tiling limits (at most the device's).
 * @returns The f32 extremes and their bounds; every failure as `GpuError`.
 */
export async function runTermKernel(
  gpu: GpuContext,
  kernel: TermKernel,
  limits: TilingLimits = gpu.limits,
): Promise<TermKernelExtremes> {
  const { label, groups: G, draws: total, loopsPerDraw } = kernel;
  if (loopsPerDraw > LOOP_BUDGET) {
    throw new GpuError(
      `${label}: one draw needs ${loopsPerDraw} loop iterations, more than a software adapter ` +
        `runs per thread (${LOOP_BUDGET})`,
    );
  }
  try {
    return await tiledRun(gpu, kernel, G, total, limits);
  } catch (error) {
    // Device failures (a lost device, a shape the limits cannot hold) as GpuError.
    if (error instanceof GpuError) throw error;
    const { name, message } = error as Error;
    throw new GpuError(`${label}: ${name}: ${message}`);
  }
}

function tiledRun(
  gpu: GpuContext,
  kernel: TermKernel,
  G: number,
  total: number,
  limits: TilingLimits,
): Promise<TermKernelExtremes> {
  const { device } = gpu;
  const { label, perGroup, perDraw } = kernel;
  const stride = (inputs: readonly TermKernelInput[]) =>
    Math.max(1, ...inputs.map((input) => input.stride));
  const plan = planTiles(
    G,
    total,
    stride(perGroup),
    stride(perDraw),
    false,
    limits,
    Math.floor(LOOP_BUDGET / kernel.loopsPerDraw),
    BEST_BYTES,
  );
  const gT = plan.recordsPerTile;
  const sT = plan.drawsPerTile;
  const pool = bufferPool(device);
  return pool.exclusive(() =>
    withErrorScopes(device, label, async () => {
      const source = `${extremesShader}\n${kernel.source}`;
      const evaluate = cachedPipeline(device, label, source, "evaluate");
      const reduce = cachedPipeline(device, label, source, "reduce");
      const STORAGE = GPUBufferUsage.STORAGE;
      const COPY_DST = GPUBufferUsage.COPY_DST;
      const UNIFORM = GPUBufferUsage.UNIFORM | COPY_DST;
      const extent = pool.acquire(`${label}.extent`, UNIFORM, EXTENT_BYTES);
      const constants = pool.acquire(`${label}.constants`, UNIFORM, kernel.constants.byteLength);
      const inputs = [
        ...perGroup.map((input) => ({ input, tile: gT })),
        ...perDraw.map(
          (input) => ({ input, tile: sT }),
        ),
      ].map(({ input, tile }, b) => {
        const size = Math.max(4, tile * input.stride * 4);
        return { input, size, buffer: pool.acquire(`${label}.in${b}`, STORAGE | COPY_DST, size) };
      });
      const partialBytes = plan.groups * gT * BEST_BYTES;
      const partial = pool.acquire(`${label}.partial`, STORAGE, partialBytes);
      const resultBytes = gT * BEST_BYTES;
      const result = pool.acquire(
        `${label}.result`,
        STORAGE | GPUBufferUsage.COPY_SRC,
        resultBytes,
      );
      const readResult = pool.acquire(
        `${label}.read_result`,
        GPUBufferUsage.MAP_READ | COPY_DST,
        resultBytes,
      );
      const kernels = bindTileKernels(
        device,
        label,
        evaluate,
        [
          [0, extent, EXTENT_BYTES],
          [1, partial, partialBytes],
          [3, constants, kernel.constants.byteLength],
          ...inputs.map(({ buffer, size }, b) => [4 + b, buffer, size] as const),
        ],
        reduce,
        [[0, extent, EXTENT_BYTES], [1, partial, partialBytes], [2, result, resultBytes]],
      );
      device.queue.writeBuffer(constants, 0, kernel.constants);
      const out = {
        value: new Float32Array(G),
        draw: new Int32Array(G),
        runnerUp: new Float32Array(G),
        minValue: new Float32Array(G),
        minDraw: new Int32Array(G),
        minRunnerUp: new Float32Array(G),
        bound: new Float64Array(G),
        flag: new Uint8Array(G),
      };
      const words = new Uint32Array(EXTENT_BYTES / 4);
      for (let g0 = 0; g0 < G; g0 += gT) {
        const gTile = Math.min(gT, G - g0);
        inputs.slice(0, perGroup.length).forEach(({ input, buffer }) =>
          device.queue.writeBuffer(
            buffer,
            0,
            input.data,
            g0 * input.stride,
            gTile * input.stride,
          )
        );
        for (let p0 = 0; p0 < total; p0 += sT) {
          const sTile = Math.min(sT, total - p0);
          const chunks = Math.ceil(sTile / plan.drawsPerGroup);
          inputs.slice(perGroup.length).forEach(({ input, buffer }) =>
            device.queue.writeBuffer(
              buffer,
              0,
              input.data,
              p0 * input.stride,
              sTile * input.stride,
            )
          );
          words.set([gTile, sTile, plan.drawsPerGroup, chunks, p0, p0 === 0 ? 1 : 0]);
          device.queue.writeBuffer(extent, 0, words);
          const encoder = device.createCommandEncoder({ label });
          encodeTile(encoder, label, kernels, gTile, chunks);
          device.queue.submit([encoder.finish()]);
        }
        await readResults(device, label, result, readResult, gTile * BEST_BYTES, (f, u) => {
          for (let h = 0; h < gTile; h++) {
            const at = BEST_WORDS * h;
            const g = g0 + h;
            out.value[g] = f[at];
            out.bound[g] = kernel.boundFactor * f[at + 1];
            out.draw[g] = u[at + 2];
            out.flag[g] = u[at + 3] === 0 ? 0 : 1;
            out.runnerUp[g] = f[at + 4];
            // −1 (none) stands for +∞ in the minimum's fields.
            out.minValue[g] = f[at + 5] < 0 ? Infinity : f[at + 5];
            out.minDraw[g] = u[at + 6];
            out.minRunnerUp[g] = f[at + 7] < 0 ? Infinity : f[at + 7];
          }
        });
      }
      return out;
    })
  );
}

/** Which draws the kernel evaluated and which it left to the CPU. */
export interface TermDraws {
  /** S, every draw. */
  readonly S: number;
  /** The draw (0-based in the caller's draws) of each kernel row, increasing. */
  readonly drawIndex: Int32Array;
  /** The draws the kernel skipped, increasing (evaluated in f64 for every group). */
  readonly cpuDraws: Int32Array;
}

/**
 * The model's f64 term for a list of groups: `prepare(ids)` returns the function writing
 * u_g(θ_s) of those groups (in order) at draw s into `out`, bit for bit the value `termMaxima`
 * takes the absolute value of.
 */
export type GroupTerms = (ids: readonly number[]) => (s: number, out: Float64Array) => void;

/** Per-group extremes of |u| with their first draws. */
export interface GroupExtremes {
  readonly max: Float64Array;
  readonly arg: Int32Array;
  readonly min: Float64Array;
  readonly argMin: Int32Array;
}

/** How much f64 work the confirmation did. */
export interface TermConfirmation {
  /** Groups the kernel evaluated (α > 0). */
  readonly groups: number;
  /** Groups recomputed in f64 over every draw (near ties and flagged groups). */
  readonly recomputed: number;
  /** Of those, the near ties of either extreme (A_g − R_g ≤ 2E_g or R'_g − L_g ≤ 2E_g). */
  readonly nearTies: number;
  /** Of those, the near ties of the minimum (R'_g − L_g ≤ 2E_g). */
  readonly minNearTies: number;
  /** Draws the kernel skipped (evaluated in f64 for every group). */
  readonly skippedDraws: number;
}

/** Extremes before any draw: termMaxima's start (maximum 0, minimum +∞, both at draw 0). */
function emptyExtremes(G: number): GroupExtremes {
  return {
    max: new Float64Array(G),
    arg: new Int32Array(G),
    min: new Float64Array(G).fill(Infinity),
    argMin: new Int32Array(G),
  };
}

/**
 * termMaxima's f64 extremes over the listed draws (in increasing order) for the listed groups
 * (first draw on ties, NaN as +∞), merged into `into`, which holds termMaxima's start values or
 * the extremes over earlier draws.
 */
function exactExtremes(
  terms: GroupTerms,
  drawList: Iterable<number>,
  ids: readonly number[],
  into: GroupExtremes,
): void {
  if (ids.length === 0) return;
  const evaluate = terms(ids);
  const out = new Float64Array(ids.length);
  const { max, arg, min, argMin } = into;
  for (const s of drawList) {
    evaluate(s, out);
    for (let h = 0; h < ids.length; h++) foldExtremes(out[h], s, ids[h], max, arg, min, argMin);
  }
}

/**
 * Confirms a term kernel's extremes in f64 (see the module): `termMaxima`'s per-group maxima and
 * minima of |u| and their first draws, bit for bit.
 *
 * @param groups G, the groups; those not in `kernelGroups` have u = 0 at every kernel draw.
 * @param kernelGroups The groups the kernel evaluated, in the kernel's order.
 * @param kernel Its extremes (null when it had no group or no draw).
 * @param draws The draws it evaluated and skipped.
 * @param terms The model's f64 term of a list of groups.
 * @returns The extremes per group and what was recomputed.
 */
export function confirmTermExtremes(
  groups: number,
  kernelGroups: Int32Array,
  kernel: TermKernelExtremes | null,
  draws: TermDraws,
  terms: GroupTerms,
): { extremes: GroupExtremes; stats: TermConfirmation } {
  const all = Array.from({ length: groups }, (_, g) => g);
  const result = emptyExtremes(groups);
  const stats = {
    groups: kernelGroups.length,
    recomputed: 0,
    nearTies: 0,
    minNearTies: 0,
    skippedDraws: draws.cpuDraws.length,
  };
  if (draws.drawIndex.length === 0) {
    // Every draw was skipped.
    exactExtremes(terms, draws.cpuDraws, all, result);
    return { extremes: result, stats };
  }
  if (kernel === null && kernelGroups.length > 0) {
    throw new RangeError("Invalid kernel: its groups' extremes are missing");
  }
  // The skipped draws' f64 extremes (termMaxima over those draws only).
  const skip = emptyExtremes(groups);
  exactExtremes(terms, draws.cpuDraws, all, skip);
  // Each group's kernel-draw extremes where confirmed (v at draw s, both ways), else recomputed.
  const maxDraw = new Int32Array(groups).fill(draws.drawIndex[0]);
  const minDraw = new Int32Array(groups).fill(draws.drawIndex[0]);
  const inKernel = new Uint8Array(groups);
  const again: number[] = [];
  for (let h = 0; kernel !== null && h < kernelGroups.length; h++) {
    const g = kernelGroups[h];
    inKernel[g] = 1;
    const E2 = 2 * kernel.bound[h];
    const maxTie = !(kernel.value[h] - kernel.runnerUp[h] > E2);
    const minTie = !(kernel.minRunnerUp[h] - kernel.minValue[h] > E2);
    if (kernel.flag[h] === 1 || maxTie || minTie) {
      again.push(g);
      if (kernel.flag[h] === 0) {
        stats.nearTies++;
        if (minTie) stats.minNearTies++;
      }
      continue;
    }
    maxDraw[g] = draws.drawIndex[kernel.draw[h]];
    minDraw[g] = draws.drawIndex[kernel.minDraw[h]];
  }
  stats.recomputed = again.length;
  exactExtremes(terms, Array.from({ length: draws.S }, (_, s) => s), again, result);
  // The f64 values at the confirmed draws, grouped by draw.
  const byDraw = new Map<number, Set<number>>();
  const confirmAt = (s: number, g: number) => {
    let set = byDraw.get(s);
    if (set === undefined) byDraw.set(s, set = new Set());
    set.add(g);
  };
  const confirmed = new Uint8Array(groups).fill(1);
  for (const g of again) confirmed[g] = 0;
  const value = new Float64Array(groups * 2);
  for (let g = 0; g < groups; g++) {
    if (confirmed[g] === 1 && inKernel[g] === 1) {
      confirmAt(maxDraw[g], g);
      confirmAt(minDraw[g], g);
    }
  }
  for (const [s, set] of byDraw) {
    const list = Array.from(set);
    const out = new Float64Array(list.length);
    terms(list)(s, out);
    list.forEach((g, h) => {
      if (maxDraw[g] === s) value[2 * g] = Math.abs(out[h]);
      if (minDraw[g] === s) value[2 * g + 1] = Math.abs(out[h]);
    });
  }
  const { max, arg, min, argMin } = result;
  for (let g = 0; g < groups; g++) {
    if (confirmed[g] === 0) continue;
    // The kernel's draw is the unique extreme over its draws (its inputs are finite: u is
    // finite; 0 at the first kernel draw outside the kernel): join the skipped draws, the
    // earlier draw on exact ties. termMaxima's maximum starts at 0 at draw 0, so a maximum of 0
    // stays at draw 0; its minimum starts at +∞, so a minimum is at the first draw attaining it.
    const v = value[2 * g];
    const s = maxDraw[g];
    const better = v > skip.max[g] || (v === skip.max[g] && v > 0 && s < skip.arg[g]);
    max[g] = better ? v : skip.max[g];
    arg[g] = better ? s : skip.arg[g];
    const w = value[2 * g + 1];
    const t = minDraw[g];
    const lower = w < skip.min[g] || (w === skip.min[g] && t < skip.argMin[g]);
    min[g] = lower ? w : skip.min[g];
    argMin[g] = lower ? t : skip.argMin[g];
  }
  return { extremes: result, stats };
}

/**
 * Per-record extremes from per-group ones.
 *
 * @param extremes Per group.
 * @param of Record i's group.
 * @returns The `TermMaxima`.
 */
export function recordExtremes(extremes: GroupExtremes, of: Int32Array): TermMaxima {
  return {
    perRecord: Float64Array.from(of, (g) => extremes.max[g]),
    argDraw: Int32Array.from(of, (g) => extremes.arg[g]),
    minimum: Float64Array.from(of, (g) => extremes.min[g]),
    argMinDraw: Int32Array.from(of, (g) => extremes.argMin[g]),
  };
}

/** What a model's packing hands the confirmation: the kernel's groups and the draws' split. */
export interface PackedTermDraws {
  /** Indices (into the model's groups) of the groups the kernel evaluates (α > 0). */
  readonly groups: Int32Array;
  /** The draw (0-based in the caller's draws) of each kernel row, increasing. */
  readonly drawIndex: Int32Array;
  /** Draws the kernel skips (evaluated in f64 for every group), increasing. */
  readonly cpuDraws: Int32Array;
}

/**
 * The groups a term kernel evaluates: those with α > 0 (a group with α = 0 has u = 0 at every
 * draw and stays on the CPU).
 *
 * @param alpha Each group's α.
 * @returns Their indices, increasing.
 */
export function kernelGroups(alpha: Float64Array): Int32Array {
  const kept: number[] = [];
  alpha.forEach((a, g) => {
    if (a > 0) kept.push(g);
  });
  return Int32Array.from(kept);
}

/**
 * Splits S×dim draws between a term kernel and the CPU, in draw order: `take(row, p)` packs draw
 * s as kernel row p (the kernel rows so far) and returns true, or returns false (packing nothing)
 * to leave it to the f64 pass.
 *
 * @param draws S×dim draws, row-major.
 * @param dim A draw's length.
 * @param take Packs one draw for the kernel, or refuses it.
 * @returns The kernel rows' draws and the CPU's, each increasing.
 */
export function splitDraws(
  draws: Float64Array,
  dim: number,
  take: (row: Float64Array, p: number) => boolean,
): Pick<PackedTermDraws, "drawIndex" | "cpuDraws"> {
  const S = draws.length / dim;
  const drawIndex: number[] = [];
  const cpuDraws: number[] = [];
  for (let s = 0; s < S; s++) {
    if (take(draws.subarray(s * dim, (s + 1) * dim), drawIndex.length)) drawIndex.push(s);
    else cpuDraws.push(s);
  }
  return { drawIndex: Int32Array.from(drawIndex), cpuDraws: Int32Array.from(cpuDraws) };
}

/** Options of a whole-file model's GPU term maxima. */
export interface TermKernelOptions {
  /** Tiling limits below the device's (tests). */
  readonly limits?: Partial<TilingLimits>;
}

/**
 * The per-record extremes of a whole-file model's GPU pass: runs the kernel (`run`) when it has
 * a group and a draw, confirms its extremes in f64 ({@linkcode confirmTermExtremes}) and spreads
 * them over the records ({@linkcode recordExtremes}).
 *
 * @param groups The model's groups: each group's α, and record i's group.
 * @param packed The kernel's groups and the draws' split.
 * @param S Every draw.
 * @param run Runs the kernel over `packed`.
 * @param terms The model's f64 term of a list of groups.
 * @returns termMaxima's extremes, bit for bit, and what the confirmation recomputed.
 */
export async function confirmedTermMaxima(
  groups: { readonly alpha: Float64Array; readonly of: Int32Array },
  packed: PackedTermDraws,
  S: number,
  run: () => Promise<TermKernelExtremes>,
  terms: GroupTerms,
): Promise<{ maxima: TermMaxima; stats: TermConfirmation }> {
  const kernel = packed.drawIndex.length === 0 || packed.groups.length === 0 ? null : await run();
  const { extremes, stats } = confirmTermExtremes(
    groups.alpha.length,
    packed.groups,
    kernel,
    { S, drawIndex: packed.drawIndex, cpuDraws: packed.cpuDraws },
    terms,
  );
  return { maxima: recordExtremes(extremes, groups.of), stats };
}
