/**
 * The WebGPU Lipschitz backend (SPEC §1): Δ_{α,x_i} = max_s |α_i·ℓ_i(θ_s)| and
 * Δ_{α,x} = max_i Δ_{α,x_i}, the same answers as the f64 CPU loop (`cpuLipschitz`).
 *
 * One kernel per model (shaders/lipschitz_<kernel>.wgsl after special.wgsl and
 * lipschitz_common.wgsl) evaluates ℓ_i(θ_s) in f32 over a tile of records × draws, fused with the
 * per-record maximum of |α_i·ℓ_i|, its first arg-max draw, the runner-up over the other draws
 * and a running error bound; the S×n matrix is only written when asked for. Records and draws
 * are tiled so that no binding exceeds maxStorageBufferBindingSize and no dispatch exceeds
 * maxComputeWorkgroupsPerDimension, and no thread loops over so many draws that llvmpipe would
 * cut its loops short ({@linkcode LOOP_BUDGET}).
 *
 * A joint model of several outcomes runs each conditional's kernel and sums them per record
 * (`lipschitz_joint.ts`). The f32 maxima are then confirmed in f64 by `confirmLipschitz`: the
 * overall Δ, its arg-max and every per-record maximum are exactly the CPU loop's. The per-record error bound is
 * E_i = 2·2⁻²⁴·e_i, with e_i the kernel's first-order bound in units of 2⁻²⁴ (every rounding of
 * every operation, from WGSL's accuracy table; see lipschitz_common.wgsl) and the factor 2 for
 * second-order terms.
 *
 * @module
 */
import common from "../../shaders/lipschitz_common.wgsl" with { type: "text" };
import beta from "../../shaders/lipschitz_beta.wgsl" with { type: "text" };
import categorical from "../../shaders/lipschitz_categorical.wgsl" with { type: "text" };
import fbp from "../../shaders/lipschitz_fbp.wgsl" with { type: "text" };
import fbs from "../../shaders/lipschitz_fbs.wgsl" with { type: "text" };
import gaussian from "../../shaders/lipschitz_gaussian.wgsl" with { type: "text" };
import hurdle from "../../shaders/lipschitz_hurdle.wgsl" with { type: "text" };
import logistic from "../../shaders/lipschitz_logistic.wgsl" with { type: "text" };
import negbin from "../../shaders/lipschitz_negbin.wgsl" with { type: "text" };
import poisson from "../../shaders/lipschitz_poisson.wgsl" with { type: "text" };
import special from "../../shaders/special.wgsl" with { type: "text" };
import { checkLipschitzInput, lipschitz, type LipschitzResult } from "../mechanisms/lipschitz.ts";
import type { LipschitzBackend } from "../mechanisms/lipschitz_backend.ts";
import { isJointModel } from "../models/joint.ts";
import type { GpuKernelName, Model } from "../models/model.ts";
import { bufferPool } from "./buffers.ts";
import {
  cachedPipeline,
  type GpuContext,
  GpuError,
  type GpuLimits,
  withErrorScopes,
} from "./device.ts";
import { type ConfirmationStats, confirmLipschitz } from "./lipschitz_confirm.ts";
import { jointGpuLipschitz } from "./lipschitz_joint.ts";
import { BOUND_FACTOR } from "./lipschitz_pack.ts";
import { type PackedLipschitz, packLipschitz } from "./lipschitz_pack.ts";

/** The WGSL of each kernel (after special.wgsl and lipschitz_common.wgsl). */
const SOURCES: Readonly<Record<GpuKernelName, string>> = {
  poisson,
  negbin,
  beta,
  gaussian,
  logistic,
  categorical,
  hurdle,
  fbs,
  fbp,
};

/** Threads per workgroup of both entry points (@workgroup_size in lipschitz_common.wgsl). */
export const WORKGROUP_SIZE = 64;

/** Bytes of one `Best` struct (v, e, arg, flag, v2). */
const BEST_BYTES = 20;

/** The limits the tiling obeys. */
export type TilingLimits = Pick<
  GpuLimits,
  "maxStorageBufferBindingSize" | "maxComputeWorkgroupsPerDimension"
>;

/** Options of {@linkcode createGpuLipschitz}. */
export interface GpuLipschitzOptions {
  /** Limits below the device's, e.g. to exercise tiling in tests. */
  readonly limits?: Partial<TilingLimits>;
  /**
   * A kernel's model file (its `record_loglik`) in place of shaders/lipschitz_<kernel>.wgsl:
   * tests run a deliberately broken kernel to show that the parity checks would catch one.
   */
  readonly sources?: Partial<Record<GpuKernelName, string>>;
}

/** How the records × draws are cut into dispatches. */
export interface TilePlan {
  /** Records per tile (one thread each per group of draws). */
  readonly recordsPerTile: number;
  /** Draws per tile. */
  readonly drawsPerTile: number;
  /** Draws each thread loops over; a tile of d draws has ceil(d / drawsPerGroup) groups. */
  readonly drawsPerGroup: number;
  /** The most groups a tile has. */
  readonly groups: number;
}

/**
 * The loop iterations one invocation of `evaluate` may run in all: llvmpipe (Mesa's software
 * driver behind lavapipe) ends every loop of a shader invocation once 65535 iterations of all
 * its loops together have run (`LP_MAX_TGSI_LOOP_ITERATIONS`, "shared between every loop"),
 * silently, so a thread looping over too many draws would skip the last ones. Kept below that
 * with a margin for the loops' exit tests.
 */
export const LOOP_BUDGET = 60_000;

/**
 * An upper bound on the loop iterations (every loop's, exit tests included) that `evaluate`
 * runs per draw for a packed kernel: the draw loop, the linear predictor (k), the log Γ shift
 * loop (at most 8 per call: one call for negbin, two for beta), for the hurdle, FBS and FBP
 * kernels two linear predictors, and for the categorical kernel two passes over the L levels
 * with a linear predictor each.
 *
 * @param packed the kernel, k and the draw stride.
 * @returns iterations per draw.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loopIterationsPerDraw } from "./lipschitz_gpu.ts";
 * assert.equal(loopIterationsPerDraw({ kernel: "poisson", k: 3, drawStride: 3 }), 5);
 * // Categorical, L = 4 levels of k = 3: (L − 1)·k = 9 floats per draw.
 * assert.equal(loopIterationsPerDraw({ kernel: "categorical", k: 3, drawStride: 9 }), 36);
 * // Hurdle: γ and β, then 1/σ and log σ.
 * assert.equal(loopIterationsPerDraw({ kernel: "hurdle", k: 3, drawStride: 8 }), 9);
 * ```
 */
export function loopIterationsPerDraw(
  packed: Pick<PackedLipschitz, "kernel" | "k" | "drawStride">,
): number {
  const { kernel, k } = packed;
  switch (kernel) {
    case "categorical":
      return 4 + 2 * (packed.drawStride / k + 1) * (k + 1);
    case "negbin":
      return 2 + k + 8;
    case "beta":
      return 2 + k + 16;
    case "hurdle":
    case "fbs":
    case "fbp":
      return 3 + 2 * k;
    default:
      return 2 + k;
  }
}

/**
 * Cuts n records × S draws into tiles: every binding (records, draws, partial maxima, result,
 * matrix tile) fits in maxStorageBufferBindingSize bytes and every dispatch dimension
 * (⌈records/64⌉, groups) in maxComputeWorkgroupsPerDimension, and no thread loops over more
 * than `maxDrawsPerGroup` draws. Groups aim at 2¹⁶ threads per tile with at least 8 draws each.
 *
 * @param n records (≥ 1).
 * @param draws draws (≥ 1).
 * @param recStride floats per record.
 * @param drawStride floats per draw.
 * @param matrix whether the S×n matrix is written.
 * @param limits the limits to obey.
 * @param maxDrawsPerGroup the most draws one thread may loop over (≥ 1; see
 *   {@linkcode LOOP_BUDGET}).
 * @param bestBytes bytes of one record's partial and final result (the kernel's `Best`; the
 *   latent class kernel's is larger).
 * @returns the plan.
 */
export function planTiles(
  n: number,
  draws: number,
  recStride: number,
  drawStride: number,
  matrix: boolean,
  limits: TilingLimits,
  maxDrawsPerGroup = Infinity,
  bestBytes = BEST_BYTES,
): TilePlan {
  const bytes = limits.maxStorageBufferBindingSize;
  const dim = limits.maxComputeWorkgroupsPerDimension;
  const recordsPerTile = Math.min(
    n,
    WORKGROUP_SIZE * dim,
    Math.floor(bytes / (4 * recStride)),
    Math.floor(bytes / bestBytes),
  );
  let drawsPerTile = Math.min(
    draws,
    Math.floor(bytes / (4 * drawStride)),
    matrix ? Math.floor(bytes / (4 * Math.max(1, recordsPerTile))) : Infinity,
  );
  if (recordsPerTile < 1 || drawsPerTile < 1) {
    throw new RangeError(
      `Invalid limits: one record and one draw do not fit: maxStorageBufferBindingSize=${bytes}, ` +
        `maxComputeWorkgroupsPerDimension=${dim}`,
    );
  }
  // `reduce` loops over the groups: they stay within the loop budget too.
  const maxGroups = Math.min(
    dim,
    Math.floor(bytes / (bestBytes * recordsPerTile)),
    LOOP_BUDGET,
  );
  const cap = Math.max(1, Math.floor(maxDrawsPerGroup));
  // As many draws as the groups can hold at `cap` draws each.
  drawsPerTile = Math.min(drawsPerTile, maxGroups * cap);
  const wanted = Math.max(
    Math.min(Math.ceil(2 ** 16 / recordsPerTile), Math.ceil(drawsPerTile / 8)),
    Math.ceil(drawsPerTile / cap),
  );
  const groups0 = Math.max(1, Math.min(maxGroups, wanted));
  const drawsPerGroup = Math.ceil(drawsPerTile / groups0);
  return {
    recordsPerTile,
    drawsPerTile,
    drawsPerGroup,
    groups: Math.ceil(drawsPerTile / drawsPerGroup),
  };
}

/** A binding of a whole buffer from offset 0: [binding, buffer, size in bytes]. */
export type BufferBinding = readonly [number, GPUBuffer, number];

/**
 * A tiled pass's two entry points with their bind groups: `evaluate` writes each row's partial
 * result per group of draws, `reduce` folds the groups' partials into each row's result.
 */
export interface TileKernels {
  readonly evaluate: GPUComputePipeline;
  readonly evaluateGroup: GPUBindGroup;
  readonly reduce: GPUComputePipeline;
  readonly reduceGroup: GPUBindGroup;
}

/**
 * Binds a tiled pass's `evaluate` and `reduce` pipelines to their buffers (bind groups
 * `<label>.evaluate` and `<label>.reduce`).
 */
export function bindTileKernels(
  device: GPUDevice,
  label: string,
  evaluate: GPUComputePipeline,
  evaluateBindings: readonly BufferBinding[],
  reduce: GPUComputePipeline,
  reduceBindings: readonly BufferBinding[],
): TileKernels {
  const group = (pipeline: GPUComputePipeline, name: string, bindings: readonly BufferBinding[]) =>
    device.createBindGroup({
      label: `${label}.${name}`,
      layout: pipeline.getBindGroupLayout(0),
      entries: bindings.map(([binding, buffer, size]) => ({
        binding,
        resource: { buffer, offset: 0, size },
      })),
    });
  return {
    evaluate,
    evaluateGroup: group(evaluate, "evaluate", evaluateBindings),
    reduce,
    reduceGroup: group(reduce, "reduce", reduceBindings),
  };
}

/**
 * Copies the first `bytes` of a tile's results into the mappable `readback` buffer and hands them
 * to `read` as f32 and u32 words while it is mapped.
 */
export async function readResults(
  device: GPUDevice,
  label: string,
  result: GPUBuffer,
  readback: GPUBuffer,
  bytes: number,
  read: (f: Float32Array, u: Uint32Array) => void,
): Promise<void> {
  const encoder = device.createCommandEncoder({ label });
  encoder.copyBufferToBuffer(result, 0, readback, 0, bytes);
  device.queue.submit([encoder.finish()]);
  await readback.mapAsync(GPUMapMode.READ, 0, bytes);
  try {
    const mapped = readback.getMappedRange(0, bytes);
    read(new Float32Array(mapped), new Uint32Array(mapped));
  } finally {
    readback.unmap();
  }
}

/**
 * Encodes one tile in a compute pass: `evaluate` on ⌈rows/64⌉ × groups workgroups, then `reduce`
 * on ⌈rows/64⌉.
 */
export function encodeTile(
  encoder: GPUCommandEncoder,
  label: string,
  kernels: TileKernels,
  rows: number,
  groups: number,
): void {
  const pass = encoder.beginComputePass({ label });
  pass.setPipeline(kernels.evaluate);
  pass.setBindGroup(0, kernels.evaluateGroup);
  pass.dispatchWorkgroups(Math.ceil(rows / WORKGROUP_SIZE), groups);
  pass.setPipeline(kernels.reduce);
  pass.setBindGroup(0, kernels.reduceGroup);
  pass.dispatchWorkgroups(Math.ceil(rows / WORKGROUP_SIZE));
  pass.end();
}

/** The kernel's per-record output, before the f64 confirmation. */
export interface KernelMaxima {
  /** f32 max of |α_i·ℓ_i| over the packed draws. */
  readonly value: Float32Array;
  /** Packed draw index of that max (first on ties). */
  readonly draw: Int32Array;
  /** f32 max over the other packed draws (equal to `value` on a tie; −1 with one draw). */
  readonly runnerUp: Float32Array;
  /** The first-order error bound over those draws, in units of 2⁻²⁴. */
  readonly err: Float32Array;
  /** 1 where the kernel left the record to the CPU (out of range or a non-finite result). */
  readonly flag: Uint8Array;
  /** The packed-draws × n matrix of f32 entries, when asked for. */
  readonly matrix?: Float32Array;
}

/**
 * Runs a model's kernel over packed inputs (inside error scopes; pooled buffers), returning the
 * per-record f32 maxima, their bounds and flags, and optionally the matrix.
 *
 * @param gpu the GPU.
 * @param packed the packed records and draws (at least one of each).
 * @param matrix whether to return the matrix.
 * @param limits the tiling limits (at most the device's).
 * @param signed with `matrix`, store the signed f32 ℓ_i(θ_s) rather than |α_i·ℓ_i(θ_s)| (0 where
 *   α_i = 0 or the record is flagged); with every packed α_i equal to 1, E_i then bounds each
 *   entry's error too.
 * @param source the kernel's model file in place of its shader ({@linkcode GpuLipschitzOptions}).
 * @returns the kernel's maxima.
 */
export async function runLipschitzKernel(
  gpu: GpuContext,
  packed: PackedLipschitz,
  matrix: boolean,
  limits: TilingLimits,
  signed = false,
  source?: string,
): Promise<KernelMaxima> {
  const { device } = gpu;
  const { n, k, recStride, drawStride, kernel } = packed;
  const total = packed.drawIndex.length;
  const perDraw = loopIterationsPerDraw(packed);
  if (perDraw > LOOP_BUDGET) {
    throw new GpuError(
      `lipschitz_${kernel}: one draw needs ${perDraw} loop iterations, more than a software ` +
        `adapter runs per thread (${LOOP_BUDGET})`,
    );
  }
  const plan = planTiles(
    n,
    total,
    recStride,
    drawStride,
    matrix,
    limits,
    Math.floor(LOOP_BUDGET / perDraw),
  );
  const nT = plan.recordsPerTile;
  const sT = plan.drawsPerTile;
  // Pipelines are cached by label: a replaced model file gets a label of its own.
  const label = source === undefined
    ? `lipschitz_${kernel}`
    : `lipschitz_${kernel}.replaced.${sourceHash(source)}`;
  const code = `${special}\n${common}\n${source ?? SOURCES[kernel]}`;
  const pool = bufferPool(device);
  return await pool.exclusive(() =>
    withErrorScopes(device, label, async () => {
      const evaluate = cachedPipeline(device, label, code, "evaluate");
      const reduce = cachedPipeline(device, label, code, "reduce");
      const STORAGE = GPUBufferUsage.STORAGE;
      const params = pool.acquire(
        "lipschitz.params",
        GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
        48,
      );
      const records = pool.acquire(
        "lipschitz.records",
        STORAGE | GPUBufferUsage.COPY_DST,
        nT * recStride * 4,
      );
      const draws = pool.acquire(
        "lipschitz.draws",
        STORAGE | GPUBufferUsage.COPY_DST,
        sT * drawStride * 4,
      );
      const partial = pool.acquire("lipschitz.partial", STORAGE, plan.groups * nT * BEST_BYTES);
      const tileBytes = matrix ? sT * nT * 4 : 4;
      const lmatrix = pool.acquire(
        "lipschitz.matrix",
        STORAGE | GPUBufferUsage.COPY_SRC,
        tileBytes,
      );
      const result = pool.acquire(
        "lipschitz.result",
        STORAGE | GPUBufferUsage.COPY_SRC,
        nT * BEST_BYTES,
      );
      const readResult = pool.acquire(
        "lipschitz.read_result",
        GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
        nT * BEST_BYTES,
      );
      const readMatrix = matrix
        ? pool.acquire(
          "lipschitz.read_matrix",
          GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
          tileBytes,
        )
        : null;
      const partialBytes = plan.groups * nT * BEST_BYTES;
      const kernels = bindTileKernels(
        device,
        label,
        evaluate,
        [
          [0, params, 48],
          [1, records, nT * recStride * 4],
          [2, draws, sT * drawStride * 4],
          [3, partial, partialBytes],
          [4, lmatrix, tileBytes],
        ],
        reduce,
        [[0, params, 48], [3, partial, partialBytes], [5, result, nT * BEST_BYTES]],
      );
      const value = new Float32Array(n);
      const draw = new Int32Array(n);
      const runnerUp = new Float32Array(n);
      const err = new Float32Array(n);
      const flag = new Uint8Array(n);
      const out = matrix ? new Float32Array(total * n) : undefined;
      for (let r0 = 0; r0 < n; r0 += nT) {
        const nTile = Math.min(nT, n - r0);
        device.queue.writeBuffer(records, 0, packed.records, r0 * recStride, nTile * recStride);
        for (let p0 = 0; p0 < total; p0 += sT) {
          const sTile = Math.min(sT, total - p0);
          const groups = Math.ceil(sTile / plan.drawsPerGroup);
          device.queue.writeBuffer(draws, 0, packed.draws, p0 * drawStride, sTile * drawStride);
          device.queue.writeBuffer(
            params,
            0,
            Uint32Array.of(
              nTile,
              sTile,
              plan.drawsPerGroup,
              groups,
              k,
              recStride,
              drawStride,
              p0,
              p0 === 0 ? 1 : 0,
              matrix ? (signed ? 2 : 1) : 0,
              0,
              0,
            ),
          );
          const encoder = device.createCommandEncoder({ label });
          encodeTile(encoder, label, kernels, nTile, groups);
          if (readMatrix !== null) {
            encoder.copyBufferToBuffer(lmatrix, 0, readMatrix, 0, sTile * nTile * 4);
          }
          device.queue.submit([encoder.finish()]);
          if (readMatrix !== null && out !== undefined) {
            await readMatrix.mapAsync(GPUMapMode.READ, 0, sTile * nTile * 4);
            try {
              const tile = new Float32Array(readMatrix.getMappedRange(0, sTile * nTile * 4));
              for (let s = 0; s < sTile; s++) {
                out.set(tile.subarray(s * nTile, (s + 1) * nTile), (p0 + s) * n + r0);
              }
            } finally {
              readMatrix.unmap();
            }
          }
        }
        await readResults(device, label, result, readResult, nTile * BEST_BYTES, (f, u) => {
          for (let i = 0; i < nTile; i++) {
            value[r0 + i] = f[5 * i];
            err[r0 + i] = f[5 * i + 1];
            draw[r0 + i] = u[5 * i + 2];
            flag[r0 + i] = u[5 * i + 3] === 0 ? 0 : 1;
            runnerUp[r0 + i] = f[5 * i + 4];
          }
        });
      }
      return { value, draw, runnerUp, err, flag, matrix: out };
    })
  );
}

/** A 32-bit FNV-1a hash of a shader's text, in hex (a replaced kernel's pipeline label). */
function sourceHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16);
}

/** The device's limits, lowered where `override` asks (never raised). */
export function tilingLimits(gpu: GpuContext, override: Partial<TilingLimits> = {}): TilingLimits {
  const pick = (name: keyof TilingLimits) => {
    const wanted = override[name];
    if (wanted === undefined) return gpu.limits[name];
    if (!Number.isSafeInteger(wanted) || wanted < 1) {
      throw new RangeError(`Invalid limits.${name}: must be a positive integer: ${name}=${wanted}`);
    }
    return Math.min(wanted, gpu.limits[name]);
  };
  return {
    maxStorageBufferBindingSize: pick("maxStorageBufferBindingSize"),
    maxComputeWorkgroupsPerDimension: pick("maxComputeWorkgroupsPerDimension"),
  };
}

/** A {@linkcode LipschitzBackend} that also reports how much the f64 confirmation recomputed. */
export interface GpuLipschitzBackend extends LipschitzBackend {
  /** What the confirmation of the last completed `compute` recomputed in f64. */
  readonly lastStats: ConfirmationStats | null;
}

/**
 * The GPU Lipschitz backend: same contract and same answers as `cpuLipschitz` (overall Δ and
 * arg-max and per-record maxima exactly the f64 CPU loop's; the matrix, when asked for, within
 * E_i of the CPU's). Device failures are thrown as {@linkcode GpuError}, never returned as numbers.
 *
 * @param gpu the GPU context from `acquireGpu`.
 * @param options lower tiling limits (tests).
 * @returns the backend, named "gpu".
 */
export function createGpuLipschitz(
  gpu: GpuContext,
  options: GpuLipschitzOptions = {},
): GpuLipschitzBackend {
  const limits = tilingLimits(gpu, options.limits);
  const sources = options.sources ?? {};
  let lastStats: ConfirmationStats | null = null;
  let lost: GPUDeviceLostInfo | null = null;
  gpu.device.lost.then((info) => lost = info);
  return {
    name: "gpu",
    get lastStats() {
      return lastStats;
    },
    async compute(model: Model, draws: Float64Array, opts = {}): Promise<LipschitzResult> {
      const { n } = model.design;
      const dim = model.dim;
      const alpha = checkLipschitzInput(model, draws, opts);
      if (n === 0) return lipschitz(model, draws, opts);
      // Device failures as GpuError, with the device-lost reason when there is one.
      const wrapped = async <T>(kernel: string, work: () => Promise<T>): Promise<T> => {
        try {
          return await work();
        } catch (error) {
          if (error instanceof RangeError || (error instanceof GpuError && lost === null)) {
            throw error;
          }
          const { name, message } = error as Error;
          const state = lost === null ? "" : ` (device lost: ${lost.reason}: ${lost.message})`;
          throw new GpuError(`lipschitz_${kernel}${state}: ${name}: ${message}`);
        }
      };
      if (isJointModel(model)) {
        // Several outcomes: each conditional's kernel, summed per record (lipschitz_joint.ts).
        const { result, stats } = await jointGpuLipschitz(
          model,
          draws,
          opts,
          (packed) =>
            wrapped(
              packed.kernel,
              () => runLipschitzKernel(gpu, packed, true, limits, true, sources[packed.kernel]),
            ),
        );
        lastStats = stats;
        return result;
      }
      let packed: PackedLipschitz;
      try {
        packed = packLipschitz(model, draws, alpha);
      } catch (error) {
        throw new GpuError((error as Error).message);
      }
      const total = draws.length / dim;
      const kernelDraws = packed.drawIndex.length;
      let maxima: KernelMaxima | null = null;
      if (kernelDraws > 0) {
        maxima = await wrapped(
          packed.kernel,
          () =>
            runLipschitzKernel(
              gpu,
              packed,
              opts.matrix === true,
              limits,
              false,
              sources[packed.kernel],
            ),
        );
      }
      const exact = new Uint8Array(n);
      for (const i of packed.cpuRecords) exact[i] = 1;
      const bound = new Float64Array(n);
      const drawOf = new Int32Array(n);
      if (maxima !== null) {
        for (let i = 0; i < n; i++) {
          if (maxima.flag[i] === 1) exact[i] = 1;
          bound[i] = BOUND_FACTOR * maxima.err[i];
          drawOf[i] = packed.drawIndex[maxima.draw[i]];
        }
      }
      let matrix: Float64Array | undefined;
      if (opts.matrix === true) {
        matrix = new Float64Array(total * n);
        const tile = maxima?.matrix;
        if (tile !== undefined) {
          for (let p = 0; p < kernelDraws; p++) {
            matrix.set(tile.subarray(p * n, (p + 1) * n), packed.drawIndex[p] * n);
          }
        }
      }
      const { result, stats } = confirmLipschitz(model, draws, alpha, {
        value: maxima?.value ?? new Float32Array(n),
        draw: drawOf,
        runnerUp: maxima?.runnerUp ?? new Float32Array(n).fill(-1),
        bound,
        exact,
        skippedDraws: packed.cpuDraws,
      }, matrix);
      lastStats = stats;
      return result;
    },
  };
}
