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
 * Confirmation in f64 (the argument of `lipschitz_confirm.ts`, group by group, for each extreme):
 * a group whose f32 maximum A_g exceeds its runner-up R_g by more than 2E_g has its exact maximum
 * over the kernel's draws at the same draw (every other is at most R_g + E_g < A_g − E_g), and
 * symmetrically a group whose f32 minimum L_g is below its runner-up R'_g (the smallest |u| over
 * the other kernel draws; +∞ with one draw) by more than 2E_g has its exact minimum over the
 * kernel's draws at the same draw (every other is at least R'_g − E_g > L_g + E_g), since E_g
 * bounds every draw's error. Either draw is then the unique exact extreme over the kernel's
 * draws, so it is also the first one; its f64 value there, joined with the f64 extreme over the
 * draws the kernel skipped (the earlier draw on an exact tie), is termMaxima's extreme with
 * termMaxima's first draw (its maximum starts at 0 and its minimum at +∞, each replaced only by
 * a strictly more extreme value). Every other group (a near tie of either extreme, or one the
 * kernel flagged as non-finite) is recomputed in f64 over all draws, both extremes at once.
 * Groups with α = 0 have u = 0 at every draw: maximum and minimum 0, both at draw 0, as in
 * termMaxima. The f64 values come from `LatentClassModel.groupTerms`, bit for bit `termMaxima`'s.
 * So every per-record extreme, its draw, hence every Δ_i and the overall Δ, are the CPU's
 * exactly: a GPU-backed release publishes the same ε and weights.
 *
 * @module
 */
import shader from "../../shaders/lipschitz_latent_class.wgsl" with { type: "text" };
import type { LatentClassModel, TermGroups, TermMaxima } from "../models/latent_class.ts";
import { bufferPool } from "./buffers.ts";
import { cachedPipeline, type GpuContext, GpuError, withErrorScopes } from "./device.ts";
import {
  LOOP_BUDGET,
  planTiles,
  type TilingLimits,
  tilingLimits,
  WORKGROUP_SIZE,
} from "./lipschitz_gpu.ts";

/** The most classes the kernel keeps per thread (`MAX_CLASSES` in the shader). */
export const LATENT_CLASS_MAX_CLASSES = 64;

/** E_g = this × the kernel's first-order bound (see the module). */
export const LATENT_CLASS_BOUND_FACTOR = 2;

/** Bytes of one `Best` (v, e, arg, flag, v2, lo, lo_arg, lo2), passed to planTiles. */
const BEST_BYTES = 32;

/** 32-bit words of one `Best`. */
const BEST_WORDS = BEST_BYTES / 4;

/** Bytes of the kernel's `Params`. */
const PARAMS_BYTES = 64;

const U = 2 ** -24;

/** γ_n = n·u/(1 − n·u) of f32. */
function gamma(n: number): number {
  return (n * U) / (1 - n * U);
}

/**
 * The kernel's bound constants for J columns and K classes (see the module): r =
 * γ_{J+3}/(1 − γ_{J+3}) and the fixed part u·(4K + 20 + 10·log K).
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
  const g = gamma(columns + 3);
  return { rel: g / (1 - g), fixed: U * (4 * classes + 20 + 10 * Math.log(classes)) };
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
export interface PackedLatentClass {
  /** Indices (into the `termGroups` groups) of the groups with α > 0. */
  readonly groups: Int32Array;
  /** Their cells, groups×J (level index within one class's φ block). */
  readonly cells: Uint32Array<ArrayBuffer>;
  /** Their α in f32. */
  readonly alpha: Float32Array<ArrayBuffer>;
  /** log θ in f32 of the kernel's draws, row by row (dim floats each). */
  readonly logDraws: Float32Array<ArrayBuffer>;
  /** The draw (0-based in the caller's draws) of each kernel row, increasing. */
  readonly drawIndex: Int32Array;
  /** Draws with an entry outside (0, 1] (evaluated in f64 for every group), increasing. */
  readonly cpuDraws: Int32Array;
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
  const kept: number[] = [];
  groups.alpha.forEach((a, g) => {
    if (a > 0) kept.push(g);
  });
  const cells = new Uint32Array(kept.length * J);
  const alpha = new Float32Array(kept.length);
  kept.forEach((g, h) => {
    cells.set(
      model.patternCells.subarray(groups.pattern[g] * J, (groups.pattern[g] + 1) * J),
      h * J,
    );
    alpha[h] = groups.alpha[g];
  });
  const S = draws.length / dim;
  const logDraws = new Float32Array(S * dim);
  const drawIndex: number[] = [];
  const cpuDraws: number[] = [];
  for (let s = 0; s < S; s++) {
    const row = draws.subarray(s * dim, (s + 1) * dim);
    let ok = true;
    for (let c = 0; c < dim && ok; c++) ok = row[c] > 0 && row[c] <= 1;
    if (!ok) {
      cpuDraws.push(s);
      continue;
    }
    const at = drawIndex.length * dim;
    for (let c = 0; c < dim; c++) logDraws[at + c] = Math.log(row[c]);
    drawIndex.push(s);
  }
  return {
    groups: Int32Array.from(kept),
    cells,
    alpha,
    logDraws: logDraws.slice(0, drawIndex.length * dim),
    drawIndex: Int32Array.from(drawIndex),
    cpuDraws: Int32Array.from(cpuDraws),
  };
}

/** The kernel's per-group output (packed groups), before the f64 confirmation. */
export interface LatentClassKernelMaxima {
  /** A_g: the f32 max of |u_g| over the kernel's draws. */
  readonly value: Float32Array;
  /** The kernel row (index into `drawIndex`) of A_g, first on ties. */
  readonly draw: Int32Array;
  /** R_g: the f32 max over the other kernel draws (−1 with one draw). */
  readonly runnerUp: Float32Array;
  /** L_g: the f32 min of |u_g| over the kernel's draws (+∞ if none was finite). */
  readonly minValue: Float32Array;
  /** The kernel row (index into `drawIndex`) of L_g, first on ties. */
  readonly minDraw: Int32Array;
  /** R'_g: the f32 min over the other kernel draws (+∞ with one draw). */
  readonly minRunnerUp: Float32Array;
  /**
   * E_g: the bound on |A_g − the exact max| and on |L_g − the exact min| over the kernel's draws
   * (factor included).
   */
  readonly bound: Float64Array;
  /** 1 where a value or bound was not finite (the group is recomputed in f64). */
  readonly flag: Uint8Array;
}

/**
 * Runs shaders/lipschitz_latent_class.wgsl over the packed groups × draws (at least one of each),
 * tiled so that no binding exceeds maxStorageBufferBindingSize, no dispatch
 * maxComputeWorkgroupsPerDimension, and no thread the loop budget.
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
): Promise<LatentClassKernelMaxima> {
  const { device } = gpu;
  const J = model.levels.length;
  const { K, dim, width } = model;
  if (K > LATENT_CLASS_MAX_CLASSES) {
    throw new GpuError(
      `lipschitz_latent_class: K=${K} classes, more than a thread keeps ` +
        `(${LATENT_CLASS_MAX_CLASSES})`,
    );
  }
  const perDraw = latentClassLoopsPerDraw(J, K);
  if (perDraw > LOOP_BUDGET) {
    throw new GpuError(
      `lipschitz_latent_class: one draw needs ${perDraw} loop iterations, more than a software ` +
        `adapter runs per thread (${LOOP_BUDGET})`,
    );
  }
  const G = packed.groups.length;
  const total = packed.drawIndex.length;
  const plan = planTiles(
    G,
    total,
    J,
    dim,
    false,
    limits,
    Math.floor(LOOP_BUDGET / perDraw),
    BEST_BYTES,
  );
  const gT = plan.recordsPerTile;
  const sT = plan.drawsPerTile;
  const { rel, fixed } = latentClassBoundConstants(J, K);
  const label = "lipschitz_latent_class";
  const pool = bufferPool(device);
  return await pool.exclusive(() =>
    withErrorScopes(device, label, async () => {
      const evaluate = cachedPipeline(device, label, shader, "evaluate");
      const reduce = cachedPipeline(device, label, shader, "reduce");
      const STORAGE = GPUBufferUsage.STORAGE;
      const COPY_DST = GPUBufferUsage.COPY_DST;
      const params = pool.acquire(`${label}.params`, GPUBufferUsage.UNIFORM | COPY_DST, 64);
      const cells = pool.acquire(`${label}.cells`, STORAGE | COPY_DST, gT * J * 4);
      const alpha = pool.acquire(`${label}.alpha`, STORAGE | COPY_DST, gT * 4);
      const draws = pool.acquire(`${label}.draws`, STORAGE | COPY_DST, sT * dim * 4);
      const partial = pool.acquire(`${label}.partial`, STORAGE, plan.groups * gT * BEST_BYTES);
      const result = pool.acquire(
        `${label}.result`,
        STORAGE | GPUBufferUsage.COPY_SRC,
        gT * BEST_BYTES,
      );
      const readResult = pool.acquire(
        `${label}.read_result`,
        GPUBufferUsage.MAP_READ | COPY_DST,
        gT * BEST_BYTES,
      );
      const bind = (buffer: GPUBuffer, size: number) => ({ buffer, offset: 0, size });
      const evaluateGroup = device.createBindGroup({
        label: `${label}.evaluate`,
        layout: evaluate.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: bind(params, PARAMS_BYTES) },
          { binding: 1, resource: bind(cells, gT * J * 4) },
          { binding: 2, resource: bind(alpha, gT * 4) },
          { binding: 3, resource: bind(draws, sT * dim * 4) },
          { binding: 4, resource: bind(partial, plan.groups * gT * BEST_BYTES) },
        ],
      });
      const reduceGroup = device.createBindGroup({
        label: `${label}.reduce`,
        layout: reduce.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: bind(params, PARAMS_BYTES) },
          { binding: 4, resource: bind(partial, plan.groups * gT * BEST_BYTES) },
          { binding: 5, resource: bind(result, gT * BEST_BYTES) },
        ],
      });
      const value = new Float32Array(G);
      const draw = new Int32Array(G);
      const runnerUp = new Float32Array(G);
      const minValue = new Float32Array(G);
      const minDraw = new Int32Array(G);
      const minRunnerUp = new Float32Array(G);
      const bound = new Float64Array(G);
      const flag = new Uint8Array(G);
      const raw = new ArrayBuffer(PARAMS_BYTES);
      const words = new Uint32Array(raw);
      const floats = new Float32Array(raw);
      for (let g0 = 0; g0 < G; g0 += gT) {
        const gTile = Math.min(gT, G - g0);
        device.queue.writeBuffer(cells, 0, packed.cells, g0 * J, gTile * J);
        device.queue.writeBuffer(alpha, 0, packed.alpha, g0, gTile);
        for (let p0 = 0; p0 < total; p0 += sT) {
          const sTile = Math.min(sT, total - p0);
          const chunks = Math.ceil(sTile / plan.drawsPerGroup);
          device.queue.writeBuffer(draws, 0, packed.logDraws, p0 * dim, sTile * dim);
          words.set([
            gTile,
            sTile,
            plan.drawsPerGroup,
            chunks,
            J,
            K,
            width,
            dim,
            p0,
            p0 === 0 ? 1 : 0,
          ]);
          floats.set([rel, fixed, Math.log(K)], 10);
          device.queue.writeBuffer(params, 0, raw);
          const encoder = device.createCommandEncoder({ label });
          const pass = encoder.beginComputePass({ label });
          pass.setPipeline(evaluate);
          pass.setBindGroup(0, evaluateGroup);
          pass.dispatchWorkgroups(Math.ceil(gTile / WORKGROUP_SIZE), chunks);
          pass.setPipeline(reduce);
          pass.setBindGroup(0, reduceGroup);
          pass.dispatchWorkgroups(Math.ceil(gTile / WORKGROUP_SIZE));
          pass.end();
          device.queue.submit([encoder.finish()]);
        }
        const encoder = device.createCommandEncoder({ label });
        encoder.copyBufferToBuffer(result, 0, readResult, 0, gTile * BEST_BYTES);
        device.queue.submit([encoder.finish()]);
        await readResult.mapAsync(GPUMapMode.READ, 0, gTile * BEST_BYTES);
        try {
          const mapped = readResult.getMappedRange(0, gTile * BEST_BYTES);
          const f = new Float32Array(mapped);
          const u = new Uint32Array(mapped);
          for (let h = 0; h < gTile; h++) {
            const at = BEST_WORDS * h;
            value[g0 + h] = f[at];
            bound[g0 + h] = LATENT_CLASS_BOUND_FACTOR * f[at + 1];
            draw[g0 + h] = u[at + 2];
            flag[g0 + h] = u[at + 3] === 0 ? 0 : 1;
            runnerUp[g0 + h] = f[at + 4];
            // −1 (none) stands for +∞ in the minimum's fields.
            minValue[g0 + h] = f[at + 5] < 0 ? Infinity : f[at + 5];
            minDraw[g0 + h] = u[at + 6];
            minRunnerUp[g0 + h] = f[at + 7] < 0 ? Infinity : f[at + 7];
          }
        } finally {
          readResult.unmap();
        }
      }
      return { value, draw, runnerUp, minValue, minDraw, minRunnerUp, bound, flag };
    })
  );
}

/** How much f64 work the confirmation did. */
export interface LatentClassConfirmation {
  /** Groups with α > 0 (the kernel's). */
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

/** Options of {@linkcode gpuTermMaxima}. */
export interface GpuTermMaximaOptions {
  /** Tiling limits below the device's (tests). */
  readonly limits?: Partial<TilingLimits>;
}

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

/** Per-group extremes of |u| with their first draws, indexed by `termGroups` group. */
interface GroupExtremes {
  readonly max: Float64Array;
  readonly arg: Int32Array;
  readonly min: Float64Array;
  readonly argMin: Int32Array;
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
 * (first draw on ties, NaN as +∞), merged into `into` at those groups, which hold termMaxima's
 * start values or the extremes over earlier draws.
 */
function exactExtremes(
  model: LatentClassModel,
  draws: Float64Array,
  drawList: Iterable<number>,
  groups: TermGroups,
  ids: number[],
  into: GroupExtremes,
): void {
  if (ids.length === 0) return;
  const dim = model.dim;
  const subset = subsetOf(groups, ids);
  const out = new Float64Array(ids.length);
  const { max, arg, min, argMin } = into;
  for (const s of drawList) {
    model.groupTerms(draws.subarray(s * dim, (s + 1) * dim), subset, out);
    for (let h = 0; h < ids.length; h++) {
      const g = ids[h];
      const v = Math.abs(out[h]);
      const bounded = Number.isNaN(v) ? Infinity : v;
      if (bounded > max[g]) {
        max[g] = bounded;
        arg[g] = s;
      }
      if (bounded < min[g]) {
        min[g] = bounded;
        argMin[g] = s;
      }
    }
  }
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
): Promise<{ maxima: TermMaxima; stats: LatentClassConfirmation }> {
  const { dim } = model;
  if (draws.length === 0 || draws.length % dim !== 0) {
    model.termMaxima(draws, alpha); // refuses them
  }
  const S = draws.length / dim;
  const groups = model.termGroups(alpha);
  const G = groups.alpha.length;
  const packed = packLatentClass(model, draws, groups);
  const ids = Array.from(packed.groups);
  // Groups with α = 0 have u = 0 at every draw: termMaxima gives them 0 at draw 0 both ways.
  const result = emptyExtremes(G);
  result.min.fill(0);
  for (const g of ids) result.min[g] = Infinity;
  const { max, arg, min, argMin } = result;
  let recomputed = 0;
  let nearTies = 0;
  let minNearTies = 0;
  if (packed.drawIndex.length === 0 || ids.length === 0) {
    exactExtremes(model, draws, packed.cpuDraws, groups, ids, result);
  } else {
    const limits = tilingLimits(gpu, options.limits);
    const kernel = await runLatentClassKernel(gpu, model, packed, limits).catch((error) => {
      // Device failures (a lost device, a shape the limits cannot hold) as GpuError.
      if (error instanceof GpuError) throw error;
      const { name, message } = error as Error;
      throw new GpuError(`lipschitz_latent_class: ${name}: ${message}`);
    });
    // The skipped draws' f64 extremes (termMaxima over those draws only).
    const skip = emptyExtremes(G);
    exactExtremes(model, draws, packed.cpuDraws, groups, ids, skip);
    const again: number[] = [];
    // The draws where a group's maximum (or minimum) is confirmed, and the groups at each.
    const maxDraw = new Int32Array(G).fill(-1);
    const minDraw = new Int32Array(G).fill(-1);
    const byDraw = new Map<number, Set<number>>();
    const confirmAt = (s: number, g: number) => {
      let set = byDraw.get(s);
      if (set === undefined) byDraw.set(s, set = new Set());
      set.add(g);
    };
    ids.forEach((g, h) => {
      const E2 = 2 * kernel.bound[h];
      const maxTie = !(kernel.value[h] - kernel.runnerUp[h] > E2);
      const minTie = !(kernel.minRunnerUp[h] - kernel.minValue[h] > E2);
      if (kernel.flag[h] === 1 || maxTie || minTie) {
        again.push(g);
        if (kernel.flag[h] === 0) {
          nearTies++;
          if (minTie) minNearTies++;
        }
        return;
      }
      maxDraw[g] = packed.drawIndex[kernel.draw[h]];
      minDraw[g] = packed.drawIndex[kernel.minDraw[h]];
      confirmAt(maxDraw[g], g);
      confirmAt(minDraw[g], g);
    });
    recomputed = again.length;
    exactExtremes(model, draws, Array.from({ length: S }, (_, s) => s), groups, again, result);
    for (const [s, set] of byDraw) {
      const list = Array.from(set);
      const values = model.groupTerms(
        draws.subarray(s * dim, (s + 1) * dim),
        subsetOf(groups, list),
        new Float64Array(list.length),
      );
      list.forEach((g, h) => {
        // The kernel's draw is the unique extreme over its draws (θ in (0, 1]: u is finite):
        // join the skipped draws, the earlier draw on exact ties. termMaxima's maximum starts at
        // 0 at draw 0, so a maximum of 0 stays at draw 0; its minimum starts at +∞, so a
        // minimum of 0 (or any value) is at the first draw attaining it.
        const v = Math.abs(values[h]);
        if (maxDraw[g] === s) {
          const better = v > skip.max[g] || (v === skip.max[g] && v > 0 && s < skip.arg[g]);
          max[g] = better ? v : skip.max[g];
          arg[g] = better ? s : skip.arg[g];
        }
        if (minDraw[g] === s) {
          const better = v < skip.min[g] || (v === skip.min[g] && s < skip.argMin[g]);
          min[g] = better ? v : skip.min[g];
          argMin[g] = better ? s : skip.argMin[g];
        }
      });
    }
  }
  const perRecord = new Float64Array(model.n);
  const argDraw = new Int32Array(model.n);
  const minimum = new Float64Array(model.n);
  const argMinDraw = new Int32Array(model.n);
  for (let i = 0; i < model.n; i++) {
    const g = groups.of[i];
    perRecord[i] = max[g];
    argDraw[i] = arg[g];
    minimum[i] = min[g];
    argMinDraw[i] = argMin[g];
  }
  return {
    maxima: { perRecord, argDraw, minimum, argMinDraw },
    stats: {
      groups: ids.length,
      recomputed,
      nearTies,
      minNearTies,
      skippedDraws: packed.cpuDraws.length,
    },
  };
}
