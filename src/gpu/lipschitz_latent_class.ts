/**
 * The latent class model's Lipschitz pass on the GPU (SPEC §1, §13): max_s |u_i(θ_s)| and
 * min_s |u_i(θ_s)|, u_i(θ) = log (1/K) Σ_k (π_k f_k(x_i))^{α_i} ≤ 0 (the release's Δ_i is half
 * their difference, half the range of u_i over the draws), the same answers as the one-thread
 * f64 `LatentClassModel.termMaxima`, bit for bit (per-record maxima and minima with their first
 * draws).
 *
 * Records with equal codes and α form one group (`termGroups`); groups with α = 0 have u = 0 and
 * stay here. shaders/lipschitz_latent_class.wgsl evaluates u_g(θ_s) in f32 for every other group
 * g and every draw s whose θ lies in (0, 1] entry by entry, from log θ computed here in f64 and
 * rounded to f32, and keeps per group the largest |u|, its first draw and the runner-up over the
 * other draws, the same for the smallest |u| (its first draw, the smallest over the other draws)
 * and the largest error bound. Draws with an entry outside (0, 1] (a zero, a NaN) are evaluated
 * here in f64 for every group.
 *
 * Error bound of one (g, s), u = 2⁻²⁴, γ_n = n·u/(1 − n·u) (Higham 2002, §3.1 and §4.2: the
 * recursive sum of n + 1 terms in any order is within γ_n·Σ|terms| of the exact sum):
 * 1. Inputs. ℓ_c = log θ_c ≤ 0 is rounded to f32 within u·|ℓ_c|, α within u·α.
 * 2. Class sums. t_k = log π_k + Σ_j log φ_kj[x_j] is a sum of J + 1 non-positive terms, so
 *    Σ|terms| = |t_k| and, with the inputs' rounding, |t̂_k − t_k| ≤ γ_{J+1}·|t_k| whatever order
 *    the compiler sums in. v̂_k = α̂·t̂_k adds α's and the product's rounding: |v̂_k − v_k| ≤
 *    γ_{J+3}·|v_k| ≤ r·|v̂_k| with r = γ_{J+3}/(1 − γ_{J+3}), and every v̂_k ≤ 0.
 * 3. Log-sum-exp is 1-Lipschitz in the maximum norm, so those errors move it by at most
 *    r·max_k |v̂_k| = r·|min_k v̂_k|.
 * 4. Its f32 evaluation at the v̂: m = max_k v̂_k is exact; d_k = v̂_k − m ≤ 0 rounds within
 *    u·|d_k|; WGSL's exp is within (3 + 2|d|) ULP ≤ (6 + 4|d|)·u relative, and the argument's
 *    rounding adds 1.01·u·|d| relative, so each term is off by ≤ u·(6.01·e^{d} + 5.02·|d|·e^{d})
 *    ≤ u·(6.01·e^{d} + 1.85) (|d|·e^{d} ≤ 1/e). Terms with d < −87 are left out, under K·e^{−87}
 *    < u in all. The sum of K positive terms rounds within γ_{K−1} relative, and the exact sum
 *    is at least 1 (the top term), so the computed sum is within ρ ≤ (3K + 7)·u relative.
 * 5. log of the sum: ≤ 1.01·ρ from the sum's error, plus WGSL's log (8u absolute on [0.5, 2],
 *    6u relative outside) ≤ (9 + 6·log K)·u.
 * 6. m + log Σ − log K: log K rounded to f32 and two additions, ≤ u·(2|m| + 4·log K + 3).
 * With 3.03K + 7.1 + 9 + 3 ≤ 4K + 20, the kernel's bound on |û − u|, hence on ||û| − |u||, is
 *
 *     e_{g,s} = r·|min_k v̂_k| + u·(4K + 20 + 10·log K) + 2u·|m|,
 *
 * and its maximum over a group's draws bounds |û − u| at every draw, hence both |A_g −
 * max_s |u_g(θ_s)|| and |L_g − min_s |u_g(θ_s)|| (max and min are 1-Lipschitz in the maximum
 * norm), A_g and L_g being the f32 extremes over the kernel's draws. The host multiplies it by
 * {@linkcode LATENT_CLASS_BOUND_FACTOR} = 2: for the f32 evaluation of the bound itself, the
 * second-order terms dropped above, and the f64 reference's own rounding (the same steps with
 * 2⁻⁵³ for 2⁻²⁴, below 2⁻²⁸ of the bound), so E_g = 2·max_s e_{g,s}.
 *
 * Confirmation in f64 (`term_extremes.ts`'s, for both extremes): a group whose f32 maximum
 * (or minimum) is apart from its runner-up by more than 2E_g is evaluated in f64 at that draw
 * only, joined with the f64 extremes over the draws the kernel skipped; every other group (a
 * near tie, or one the kernel flagged as non-finite) is recomputed in f64 over all draws. Groups
 * with α = 0 have u = 0 at every draw: maximum and minimum 0, both at draw 0, as in termMaxima.
 * The f64 values come from `LatentClassModel.groupTerms`, bit for bit `termMaxima`'s. So every
 * per-record extreme, its draw, hence every Δ_i and the overall Δ, are the CPU's exactly: a
 * GPU-backed release publishes the same ε and weights.
 *
 * @module
 */
import shader from "../../shaders/lipschitz_latent_class.wgsl" with { type: "text" };
import type { LatentClassModel, TermGroups, TermMaxima } from "../models/latent_class.ts";
import { type GpuContext, GpuError } from "./device.ts";
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

/** The most classes the kernel keeps per thread (`MAX_CLASSES` in the shader). */
export const LATENT_CLASS_MAX_CLASSES = 64;

/** E_g = this × the kernel's first-order bound (see the module). */
export const LATENT_CLASS_BOUND_FACTOR = 2;

/** Bytes of the kernel's `Params`. */
const PARAMS_BYTES = 32;

const U = 2 ** -24;

/**
 * The kernel's bound constants for J columns and K classes (see the module): r =
 * γ_{J+3}/(1 − γ_{J+3}) (`weightedSumBound` of the J + 1 logs of a class sum) and the fixed part
 * u·(4K + 20 + 10·log K).
 *
 * @param columns J.
 * @param classes K.
 * @returns r and the fixed part.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { latentClassBoundConstants } from "./lipschitz_latent_class.ts";
 * const { rel, fixed } = latentClassBoundConstants(24, 30);
 * assert.ok(rel > 27 * 2 ** -24 && rel < 27.001 * 2 ** -24);
 * assert.ok(Math.abs(fixed - (140 + 10 * Math.log(30)) * 2 ** -24) < 1e-20);
 * ```
 */
export function latentClassBoundConstants(
  columns: number,
  classes: number,
): { rel: number; fixed: number } {
  return {
    rel: weightedSumBound(columns + 1),
    fixed: U * (4 * classes + 20 + 10 * Math.log(classes)),
  };
}
/**
 * Loop iterations one kernel thread runs per draw (exit tests included): the draw loop, K class
 * sums of J + 1 steps each, and the K + 1 of the log-sum-exp (see `LOOP_BUDGET`).
 *
 * @param columns J.
 * @param classes K.
 * @returns Iterations per draw.
 */
export function latentClassLoopsPerDraw(columns: number, classes: number): number {
  return 2 + classes * (columns + 3);
}

/** The kernel's inputs: the groups and draws it evaluates, and what stays on the CPU. */
export interface PackedLatentClass extends PackedTermDraws {
  /** Their cells, groups×J (level index within one class's φ block). */
  readonly cells: Uint32Array<ArrayBuffer>;
  /** Their α in f32. */
  readonly alpha: Float32Array<ArrayBuffer>;
  /** log θ in f32 of the kernel's draws, row by row (dim floats each). */
  readonly logDraws: Float32Array<ArrayBuffer>;
}

/**
 * Packs the kernel's inputs: the groups with α > 0, and the log of every draw whose θ lies in
 * (0, 1] entry by entry (others go to the CPU).
 *
 * @param model The latent class model.
 * @param draws S×dim draws.
 * @param groups The model's `termGroups(α)`.
 * @returns The packed inputs.
 */
export function packLatentClass(
  model: LatentClassModel,
  draws: Float64Array,
  groups: TermGroups,
): PackedLatentClass {
  const J = model.levels.length;
  const { dim } = model;
  const kept = kernelGroups(groups.alpha);
  const cells = new Uint32Array(kept.length * J);
  const alpha = new Float32Array(kept.length);
  kept.forEach((g, h) => {
    cells.set(
      model.patternCells.subarray(groups.pattern[g] * J, (groups.pattern[g] + 1) * J),
      h * J,
    );
    alpha[h] = groups.alpha[g];
  });
  const logDraws = new Float32Array(draws.length);
  // A draw with an entry outside (0, 1] (a zero, a NaN) stays on the CPU.
  const { drawIndex, cpuDraws } = splitDraws(draws, dim, (row, p) => {
    for (let c = 0; c < dim; c++) if (!(row[c] > 0 && row[c] <= 1)) return false;
    for (let c = 0; c < dim; c++) logDraws[p * dim + c] = Math.log(row[c]);
    return true;
  });
  return {
    groups: kept,
    cells,
    alpha,
    logDraws: logDraws.slice(0, drawIndex.length * dim),
    drawIndex,
    cpuDraws,
  };
}

/**
 * Runs shaders/lipschitz_latent_class.wgsl over the packed groups × draws (at least one of each),
 * tiled by `runTermKernel`.
 *
 * @param gpu The GPU.
 * @param model The latent class model (J, K, θ's layout).
 * @param packed The packed inputs.
 * @param limits The tiling limits (at most the device's).
 * @returns The f32 maxima and minima and their bounds E_g.
 */
export async function runLatentClassKernel(
  gpu: GpuContext,
  model: LatentClassModel,
  packed: PackedLatentClass,
  limits: TilingLimits = gpu.limits,
): Promise<TermKernelExtremes> {
  const J = model.levels.length;
  const { K, dim, width } = model;
  if (K > LATENT_CLASS_MAX_CLASSES) {
    throw new GpuError(
      `lipschitz_latent_class: K=${K} classes, more than a thread keeps ` +
        `(${LATENT_CLASS_MAX_CLASSES})`,
    );
  }
  const { rel, fixed } = latentClassBoundConstants(J, K);
  const constants = new ArrayBuffer(PARAMS_BYTES);
  new Uint32Array(constants).set([J, K, width, dim]);
  new Float32Array(constants).set([rel, fixed, Math.log(K)], 4);
  return await runTermKernel(gpu, {
    label: "lipschitz_latent_class",
    source: shader,
    groups: packed.groups.length,
    draws: packed.drawIndex.length,
    constants,
    perGroup: [{ data: packed.cells, stride: J }, { data: packed.alpha, stride: 1 }],
    perDraw: [{ data: packed.logDraws, stride: dim }],
    loopsPerDraw: latentClassLoopsPerDraw(J, K),
    boundFactor: LATENT_CLASS_BOUND_FACTOR,
  }, limits);
}

/** Options of {@linkcode gpuTermMaxima}. */
export type GpuTermMaximaOptions = TermKernelOptions;

/** The listed groups' patterns and α. */
function subsetOf(
  groups: TermGroups,
  ids: readonly number[],
): Pick<TermGroups, "pattern" | "alpha"> {
  return {
    pattern: Int32Array.from(ids, (g) => groups.pattern[g]),
    alpha: Float64Array.from(ids, (g) => groups.alpha[g]),
  };
}

/**
 * `model.termMaxima(draws, alpha)` computed by the WebGPU kernel and confirmed in f64 (see the
 * module): the same per-record maxima and minima and their first draws, bit for bit.
 *
 * @param gpu The GPU context from `acquireGpu`.
 * @param model The latent class model bound to the confidential file.
 * @param draws S×dim draws, row-major.
 * @param alpha α (null: all 1).
 * @param options Lower tiling limits (tests).
 * @returns The extremes and what the confirmation recomputed; device failures throw `GpuError`.
 */
export async function gpuTermMaxima(
  gpu: GpuContext,
  model: LatentClassModel,
  draws: Float64Array,
  alpha: Float64Array | null,
  options: GpuTermMaximaOptions = {},
): Promise<{ maxima: TermMaxima; stats: TermConfirmation }> {
  const { dim } = model;
  if (draws.length === 0 || draws.length % dim !== 0) {
    model.termMaxima(draws, alpha); // refuses them
  }
  const groups = model.termGroups(alpha);
  const packed = packLatentClass(model, draws, groups);
  return await confirmedTermMaxima(
    groups,
    packed,
    draws.length / dim,
    () => runLatentClassKernel(gpu, model, packed, tilingLimits(gpu, options.limits)),
    (ids) => {
      const subset = subsetOf(groups, ids);
      return (s, out) => model.groupTerms(draws.subarray(s * dim, (s + 1) * dim), subset, out);
    },
  );
}
