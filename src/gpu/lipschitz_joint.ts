/**
 * The joint-record Lipschitz pass on the GPU (SPEC §10; issue 27): for a {@linkcode JointModel}
 * with J conditionals, Δ = max_{i,s} |α_i·Σ_j ℓ_ij(θ_{j,s})|, the same answers as the f64 CPU loop
 * over the joint model's `logLik`.
 *
 * Each conditional's kernel (shaders/lipschitz_<kernel>.wgsl) runs with every weight 1 (0 where
 * α_i = 0) and writes the signed f32 ℓ_ij(θ_{j,s}) of every (draw, record), with e_ij, its bound
 * (units of 2⁻²⁴) over the draws, and a flag for records it leaves to the CPU. Here, per draw
 * chunk, the J values are summed in f64, A_i = max_s α_i·|Σ_j ℓ̃_ij| is taken with its first arg-max
 * and the runner-up, and the bound
 *
 *     E_i = α_i·(Σ_j 2·2⁻²⁴·e_ij + 2⁻⁴⁹·max_s Σ_j |ℓ̃_ij|)
 *
 * covers each conditional's error and the f64 sum's and product's roundings (at most J + 1 ≤ 2⁴
 * roundings of 2⁻⁵³ relative). A record any conditional leaves to the CPU (outside its kernel's
 * range, or flagged) is marked exact, and a draw any conditional skips is evaluated in f64 for
 * every record. `confirmLipschitz` then makes Δ, its arg-max and every Δ_i the CPU loop's, bit
 * for bit, evaluating records with the joint model's own `logLik` (on sub-models rebuilt as the
 * parent's conditionals are).
 *
 * The signed S×n values are summed on the CPU, one chunk of draws at a time (at most 2²² entries
 * per conditional), so memory stays bounded; the kernels' evaluations, the O(S·n·K) part, run on
 * the GPU.
 *
 * @module
 */
import type { LipschitzOptions, LipschitzResult } from "../mechanisms/lipschitz.ts";
import { isJointModel, type JointModel } from "../models/joint.ts";
import type { Model } from "../models/model.ts";
import { gpuSpec } from "../models/registry.ts";
import { type ConfirmationStats, confirmLipschitz } from "./lipschitz_confirm.ts";
import { GpuError } from "./device.ts";
import { BOUND_FACTOR, type PackedLipschitz, packLipschitz } from "./lipschitz_pack.ts";

/** Relative bound on the f64 sum of J ≤ 15 f32 values and the product by α. */
const SUM_ROUNDING = 2 ** -49;

/** Entries (draws × records) per conditional and chunk. */
export const JOINT_CHUNK_ENTRIES = 2 ** 22;

/**
 * Whether the GPU computes a model's Lipschitz bound: a registry model with a kernel, or a
 * joint model every one of whose conditionals has one.
 *
 * @param model the model.
 * @returns true when `createGpuLipschitz` runs a kernel for it.
 */
export function hasLipschitzKernel(model: Model): boolean {
  if (isJointModel(model)) {
    return model.components.every((c) => gpuSpec(c.model.name) !== null);
  }
  return gpuSpec(model.name) !== null;
}

/** Runs one conditional's kernel over packed inputs (lipschitz_gpu.ts's runLipschitzKernel). */
export type KernelRunner = (
  packed: PackedLipschitz,
) => Promise<
  { err: Float32Array; flag: Uint8Array; matrix?: Float32Array }
>;

/**
 * The joint pass: the kernels' sums, their bounds, and the f64 confirmation.
 *
 * @param model the joint model (every conditional with a kernel).
 * @param draws S×dim constrained draws of the joint θ.
 * @param opts α and whether the matrix is wanted.
 * @param run runs one conditional's kernel with the signed matrix.
 * @param chunkEntries draws × records summed at a time, per conditional (tests lower it).
 * @returns the result, exact as the CPU loop's, and the confirmation's statistics.
 */
export async function jointGpuLipschitz(
  model: JointModel,
  draws: Float64Array,
  opts: LipschitzOptions,
  run: KernelRunner,
  chunkEntries = JOINT_CHUNK_ENTRIES,
): Promise<{ result: LipschitzResult; stats: ConfirmationStats }> {
  const { n } = model.design;
  const dim = model.dim;
  const total = draws.length / dim;
  const alpha = opts.alpha ?? null;
  const weight = (i: number) => alpha === null ? 1 : alpha[i];
  // Every packed weight is 1 (0 where α_i = 0), so the kernels' bounds are bounds on ℓ_ij.
  const ones = Float64Array.from({ length: n }, (_, i) => weight(i) === 0 ? 0 : 1);
  const J = model.components.length;
  const value = new Float64Array(n);
  const runnerUp = new Float64Array(n).fill(-1);
  const drawOf = new Int32Array(n);
  const has = new Uint8Array(n);
  const errSum = new Float64Array(n);
  const absMax = new Float64Array(n);
  const exact = new Uint8Array(n);
  const skippedDraws: number[] = [];
  const matrix = opts.matrix === true ? new Float64Array(total * n) : undefined;
  const chunk = Math.max(1, Math.floor(chunkEntries / Math.max(1, n)));
  const componentErr = model.components.map(() => new Float64Array(n));
  for (let s0 = 0; s0 < total; s0 += chunk) {
    const m = Math.min(chunk, total - s0);
    const sum = new Float64Array(m * n);
    const abs = new Float64Array(m * n);
    const skipped = new Uint8Array(m);
    for (let j = 0; j < J; j++) {
      const c = model.components[j].model;
      const lo = model.offsets[j];
      const dj = c.dim;
      const sub = new Float64Array(m * dj);
      for (let d = 0; d < m; d++) {
        const at = (s0 + d) * dim + lo;
        sub.set(draws.subarray(at, at + dj), d * dj);
      }
      let packed: PackedLipschitz;
      try {
        packed = packLipschitz(c, sub, ones);
      } catch (error) {
        throw new GpuError((error as Error).message);
      }
      for (const i of packed.cpuRecords) exact[i] = 1;
      for (const d of packed.cpuDraws) skipped[d] = 1;
      if (packed.drawIndex.length === 0) continue;
      const maxima = await run(packed);
      const values = maxima.matrix!;
      const err = componentErr[j];
      for (let i = 0; i < n; i++) {
        if (maxima.flag[i] === 1) exact[i] = 1;
        err[i] = Math.max(err[i], BOUND_FACTOR * maxima.err[i]);
      }
      for (let p = 0; p < packed.drawIndex.length; p++) {
        const row = packed.drawIndex[p] * n;
        for (let i = 0; i < n; i++) {
          const v = values[p * n + i];
          sum[row + i] += v;
          abs[row + i] += Math.abs(v);
        }
      }
    }
    for (let d = 0; d < m; d++) {
      if (skipped[d] === 1) {
        skippedDraws.push(s0 + d);
        continue;
      }
      const s = s0 + d;
      for (let i = 0; i < n; i++) {
        const a = weight(i);
        if (a === 0) continue;
        const v = Math.abs(a * sum[d * n + i]);
        if (matrix !== undefined) matrix[s * n + i] = v;
        if (abs[d * n + i] > absMax[i]) absMax[i] = abs[d * n + i];
        if (has[i] === 0) {
          value[i] = v;
          drawOf[i] = s;
          has[i] = 1;
        } else if (v > value[i]) {
          runnerUp[i] = value[i];
          value[i] = v;
          drawOf[i] = s;
        } else if (v > runnerUp[i]) {
          runnerUp[i] = v;
        }
      }
    }
  }
  for (const err of componentErr) {
    for (let i = 0; i < n; i++) errSum[i] += err[i];
  }
  const bound = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    bound[i] = weight(i) * (errSum[i] + SUM_ROUNDING * absMax[i]);
  }
  return confirmLipschitz(model, draws, alpha, {
    value,
    draw: drawOf,
    runnerUp,
    bound,
    exact,
    skippedDraws: Int32Array.from(skippedDraws),
  }, matrix);
}
