/**
 * The Bayesian network's Lipschitz pass on the GPU (SPEC §13, `src/models/bayes_net.ts`):
 * max_s |u_i(θ_s)| and min_s |u_i(θ_s)|, u_i = α_i·Σ_t θ_s[offset_t(s) + cell_t(g_ts, i)] (the
 * release's Δ_i is half their difference), the same answers as the one-thread f64
 * `BayesNetModel.termMaxima`, bit for bit (per-record maxima and minima with their first draws).
 *
 * Records with equal codes in every modelled column and equal α have the same u at every draw,
 * whatever its structure, and form one group ({@linkcode bayesNetGroups}); groups with α = 0
 * have u = 0 on every draw the kernel takes and stay here. A draw carries its own structure
 * (parent sets g_t), so each draw's T table offsets and, for each column, the index of its
 * (t, g_t) among the distinct tables the draws use are packed once with the draws; each group's
 * cell in each distinct table (`cellIndex(t, g)` at the group's record) is packed once too.
 * shaders/lipschitz_bayes_net.wgsl evaluates u_g(θ_s) in f32 for every other group and every
 * draw whose table entries are all in [−2¹⁰⁰, 0] and finite, and keeps per group the extremes of
 * |u| with their runners-up and the largest error bound (`term_extremes.ts`); other draws are
 * evaluated here in f64 for every group.
 *
 * Error bound of one (g, s), u = 2⁻²⁴ (Higham 2002, §3.1 and §4.2): the T table entries are log
 * probabilities ≤ 0 (the kernel's draws), so u_g is an α-weighted sum of T non-positive terms
 * and `weightedSumBound(T)` gives |û − u| ≤ r·|û|, r = γ_{T+2}/(1 − γ_{T+2}), whatever order the
 * compiler sums in; a device that flushes subnormals to zero adds at most 2⁻¹²⁶ per input, per
 * partial sum and for the product, (2T + 2)·2⁻¹²⁶ in all. The kernel's bound is
 *
 *     e_{g,s} = r·|û_g(θ_s)| + (2T + 2)·2⁻¹²⁶,
 *
 * and its maximum over a group's draws bounds |û − u| at every draw, hence both extremes'
 * errors. The host multiplies it by {@linkcode BAYES_NET_BOUND_FACTOR} = 2: for the f32
 * evaluation of the bound itself, the second-order terms dropped, and the f64 reference's own
 * rounding (the same sum with 2⁻⁵³ for 2⁻²⁴), so E_g = 2·max_s e_{g,s}.
 *
 * The confirmation in f64 is `term_extremes.ts`'s (near ties and flagged groups recomputed over
 * every draw, the others evaluated at their f32 extreme's draw and joined with the skipped
 * draws); the f64 values come from `BayesNetModel.recordTerm` at the group's first record, bit
 * for bit termMaxima's (the same sum, left to right from 0, times α). So every Δ_i and the
 * overall Δ are the CPU's exactly: a GPU-backed release publishes the same ε and weights.
 *
 * @module
 */
import shader from "../../shaders/lipschitz_bayes_net.wgsl" with { type: "text" };
import type { BayesNetModel } from "../models/bayes_net.ts";
import type { TermMaxima } from "../models/latent_class.ts";
import type { GpuContext } from "./device.ts";
import { type TilingLimits, tilingLimits } from "./lipschitz_gpu.ts";
import {
  confirmedTermMaxima,
  kernelGroups,
  type PackedTermDraws,
  runTermKernel,
  splitDraws,
  type TermConfirmation,
  type TermKernelExtremes,
  type TermKernelOptions,
  weightedSumBound,
} from "./term_extremes.ts";

/** E_g = this × the kernel's first-order bound (see the module). */
export const BAYES_NET_BOUND_FACTOR = 2;

/** The most negative table entry the kernel takes (−2¹⁰⁰); a draw with a lower one stays here. */
const LOG_FLOOR = -(2 ** 100);

/** Bytes of the kernel's `Params`. */
const PARAMS_BYTES = 32;

/** Records grouped by (codes of the modelled columns, α): `of[i]` is record i's group. */
export interface BayesNetGroups {
  readonly of: Int32Array;
  /** Each group's first record. */
  readonly record: Int32Array;
  /** Each group's α. */
  readonly alpha: Float64Array;
}

/**
 * Groups the records whose u is the same at every draw: equal codes in every modelled column and
 * equal α.
 *
 * @param model The network bound to the file.
 * @param alpha α (null: all 1).
 * @returns The groups.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BayesNetModel } from "../models/bayes_net.ts";
 * import { bayesNetGroups } from "./lipschitz_bayes_net.ts";
 * const a = Int32Array.of(0, 1, 0, 0), b = Int32Array.of(1, 1, 1, 1);
 * const file = { n: 4, columns: [{ name: "a", levels: 2, codes: a }, { name: "b", levels: 2, codes: b }] };
 * const groups = bayesNetGroups(new BayesNetModel(file), Float64Array.of(1, 1, 1, 0.5));
 * assert.deepEqual(Array.from(groups.of), [0, 1, 0, 2]);
 * ```
 */
export function bayesNetGroups(model: BayesNetModel, alpha: Float64Array | null): BayesNetGroups {
  if (alpha !== null && alpha.length !== model.n) {
    throw new RangeError(`Invalid alpha: must have n=${model.n} entries: length=${alpha.length}`);
  }
  const columns = model.order.map((j) => model.file.columns[j].codes);
  const index = new Map<string, number>();
  const of = new Int32Array(model.n);
  const record: number[] = [];
  for (let i = 0; i < model.n; i++) {
    const key = `${alpha === null ? 1 : alpha[i]}|${columns.map((codes) => codes[i]).join()}`;
    let g = index.get(key);
    if (g === undefined) {
      g = record.length;
      index.set(key, g);
      record.push(i);
    }
    of[i] = g;
  }
  return {
    of,
    record: Int32Array.from(record),
    alpha: Float64Array.from(record, (i) => alpha === null ? 1 : alpha[i]),
  };
}

/** The kernel's inputs: the groups and draws it evaluates, and what stays on the CPU. */
export interface PackedBayesNet extends PackedTermDraws {
  /** A draw's length. */
  readonly dim: number;
  /** Distinct (column, parent set) tables of the kernel's draws. */
  readonly keys: number;
  /** Their cells, groups × keys. */
  readonly cells: Uint32Array<ArrayBuffer>;
  /** Their α in f32. */
  readonly alpha: Float32Array<ArrayBuffer>;
  /** The kernel's draws in f32, row by row (dim floats each). */
  readonly draws: Float32Array<ArrayBuffer>;
  /** Per kernel draw: the T table offsets, then the T table keys. */
  readonly structure: Uint32Array<ArrayBuffer>;
}

/**
 * Packs the kernel's inputs (see the module). An invalid parent-set index throws, as in
 * termMaxima.
 *
 * @param model The network bound to the file.
 * @param draws S×dim draws.
 * @param dim A draw's length.
 * @param groups The model's `bayesNetGroups(α)`.
 * @returns The packed inputs.
 */
export function packBayesNet(
  model: BayesNetModel,
  draws: Float64Array,
  dim: number,
  groups: BayesNetGroups,
): PackedBayesNet {
  const T = model.order.length;
  const keyOf = new Map<string, number>();
  const tables: Int32Array[] = [];
  const structure: number[] = [];
  // A draw with a table entry outside [−2¹⁰⁰, 0] or not finite stays on the CPU.
  const { drawIndex, cpuDraws } = splitDraws(draws, dim, (row) => {
    const offsets = model.tableOffsets(row);
    for (let c = T; c < offsets[T]; c++) if (!(row[c] <= 0 && row[c] >= LOG_FLOOR)) return false;
    const keys = model.order.map((_, t) => {
      const name = `${t}:${row[t]}`;
      let k = keyOf.get(name);
      if (k === undefined) {
        k = tables.length;
        keyOf.set(name, k);
        tables.push(model.cellIndex(t, row[t]));
      }
      return k;
    });
    structure.push(...offsets.subarray(0, T), ...keys);
    return true;
  });
  const kept = kernelGroups(groups.alpha);
  const K = tables.length;
  const cells = new Uint32Array(kept.length * K);
  kept.forEach((g, h) => {
    tables.forEach((cell, k) => cells[h * K + k] = cell[groups.record[g]]);
  });
  const packedDraws = new Float32Array(drawIndex.length * dim);
  drawIndex.forEach((s, p) => packedDraws.set(draws.subarray(s * dim, (s + 1) * dim), p * dim));
  return {
    groups: kept,
    dim,
    keys: K,
    cells,
    alpha: Float32Array.from(kept, (g) => groups.alpha[g]),
    draws: packedDraws,
    structure: Uint32Array.from(structure),
    drawIndex,
    cpuDraws,
  };
}

/**
 * Runs shaders/lipschitz_bayes_net.wgsl over the packed groups × draws (at least one of each),
 * tiled by `runTermKernel`.
 *
 * @param gpu The GPU.
 * @param model The network (T).
 * @param packed The packed inputs.
 * @param limits The tiling limits (at most the device's).
 * @returns The f32 maxima and minima and their bounds E_g.
 */
export async function runBayesNetKernel(
  gpu: GpuContext,
  model: BayesNetModel,
  packed: PackedBayesNet,
  limits: TilingLimits = gpu.limits,
): Promise<TermKernelExtremes> {
  const T = model.order.length;
  const { dim } = packed;
  const constants = new ArrayBuffer(PARAMS_BYTES);
  new Uint32Array(constants).set([T, packed.keys, dim, 2 * T]);
  new Float32Array(constants).set([weightedSumBound(T), (2 * T + 2) * 2 ** -126], 4);
  return await runTermKernel(gpu, {
    label: "lipschitz_bayes_net",
    source: shader,
    groups: packed.groups.length,
    draws: packed.drawIndex.length,
    constants,
    perGroup: [{ data: packed.cells, stride: packed.keys }, { data: packed.alpha, stride: 1 }],
    perDraw: [{ data: packed.draws, stride: dim }, { data: packed.structure, stride: 2 * T }],
    loopsPerDraw: T + 2,
    boundFactor: BAYES_NET_BOUND_FACTOR,
  }, limits);
}

/** Options of {@linkcode gpuBayesNetMaxima}. */
export type GpuBayesNetMaximaOptions = TermKernelOptions;

/**
 * `model.termMaxima(draws, dim, alpha)` computed by the WebGPU kernel and confirmed in f64 (see
 * the module): the same per-record maxima and minima and their first draws, bit for bit.
 *
 * @param gpu The GPU context from `acquireGpu`.
 * @param model The network bound to the confidential file.
 * @param draws S×dim draws, row-major (a fit's, padded to its longest).
 * @param dim A draw's length.
 * @param alpha α (null: all 1).
 * @param options Lower tiling limits (tests).
 * @returns The extremes and what the confirmation recomputed; device failures throw `GpuError`.
 */
export async function gpuBayesNetMaxima(
  gpu: GpuContext,
  model: BayesNetModel,
  draws: Float64Array,
  dim: number,
  alpha: Float64Array | null,
  options: GpuBayesNetMaximaOptions = {},
): Promise<{ maxima: TermMaxima; stats: TermConfirmation }> {
  if (!Number.isInteger(dim) || dim < model.order.length || draws.length % dim !== 0) {
    throw new RangeError(
      `Invalid draws: length must be a multiple of dim ≥ T=${model.order.length}: ` +
        `length=${draws.length}, dim=${dim}`,
    );
  }
  const groups = bayesNetGroups(model, alpha);
  const packed = packBayesNet(model, draws, dim, groups);
  return await confirmedTermMaxima(
    groups,
    packed,
    draws.length / dim,
    () => runBayesNetKernel(gpu, model, packed, tilingLimits(gpu, options.limits)),
    (ids) => (s, out) => {
      const theta = draws.subarray(s * dim, (s + 1) * dim);
      ids.forEach((g, h) => {
        out[h] = model.recordTerm(theta, groups.record[g], groups.alpha[g]);
      });
    },
  );
}
