/**
 * The f32 inputs of the GPU Lipschitz kernels (SPEC §1, §5) and the screens that keep every
 * kernel intermediate finite.
 *
 * Per record, `k + 2` floats: x_1 … x_{k−1} (the intercept's 1 is implied), α, and two model
 * constants computed here in f64 and rounded once (log Γ(y+1), log y, s = 2y − 1, the survey
 * models' log w or log π = −log w, …). Per draw, β_0 … β_{k−1} (the categorical model's
 * (L − 1)·K coefficients, level by level, the hurdle model's γ then β, FBS's β_y then β_w, FBP's
 * β, κ_y, κ_x) and the model's per-draw constants (log φ, log Γ(φ), 1/σ, …), also computed in
 * f64.
 *
 * WGSL may treat Inf and NaN as indeterminate, so the kernels must never meet one. A record
 * (with α_i ≠ 0) or a draw whose values fall outside the ranges below is left to the CPU, which
 * evaluates it in f64 with the model itself: the record is packed with α = 0 (the kernel skips
 * it) and listed in `cpuRecords`; the draw is left out of `draws` and listed in `cpuDraws`.
 * Inside the ranges no f32 intermediate or error bound can overflow (see the shaders' headers).
 *
 * @module
 */
import type { GpuKernelName, Model, ModelGpu } from "../models/model.ts";
import { gpuSpec } from "../models/registry.ts";
import { HALF_LOG_2PI, lgamma } from "../stats/special.ts";

/** The factor on a kernel's first-order bound (units of 2⁻²⁴) giving E_i. */
export const BOUND_FACTOR = 2 * 2 ** -24;

/** Bound on |x_ij| and |β_j| for the kernels (products stay below 2⁴⁸). */
export const COEFFICIENT_MAX = 2 ** 24;

/** Per-draw constants after β, per kernel. */
const DRAW_CONSTANTS: Readonly<Record<GpuKernelName, number>> = {
  poisson: 0,
  negbin: 4,
  beta: 4,
  gaussian: 2,
  logistic: 0,
  categorical: 0,
  hurdle: 2,
  fbs: 5,
  fbp: 3,
};

/** Allowed range of the model's extra parameter (φ or σ) per kernel; see the shaders. */
const EXTRA_RANGE: Readonly<Record<GpuKernelName, readonly [number, number]>> = {
  poisson: [0, 0],
  negbin: [2 ** -30, 2 ** 33],
  beta: [2 ** -20, 2 ** 40],
  gaussian: [2 ** -20, 2 ** 20],
  logistic: [0, 0],
  categorical: [0, 0],
  hurdle: [2 ** -20, 2 ** 20],
  fbs: [2 ** -20, 2 ** 20],
  fbp: [2 ** -20, 2 ** 20],
};

/**
 * Whether a record's outcome y (and z and c, its per-record constants) is inside the kernel's
 * range, given the outcome's number of levels L (2 where it has none); see the shaders.
 */
const RECORD_RANGE: Readonly<
  Record<GpuKernelName, (y: number, z: number, levels: number, c: number) => boolean>
> = {
  poisson: (y) => y >= 0 && y <= 2 ** 30,
  negbin: (y) => y >= 0 && y <= 2 ** 30,
  beta: (y) => y > 0 && y < 1,
  gaussian: (_, z) => within(z, 2 ** 40),
  logistic: (y) => y === 0 || y === 1,
  categorical: (y, _, levels) => Number.isInteger(y) && y >= 0 && y < levels,
  hurdle: (y, z) => y === 0 || (y > 0 && within(z, 2 ** 40)),
  fbs: (_, z, __, c) => within(z, 2 ** 40) && within(c, 2 ** 40),
  fbp: (_, z, __, c) => within(z, 2 ** 40) && within(c, 2 ** 40),
};

/** Packed kernel inputs for one model, S draws and weights α. */
export interface PackedLipschitz {
  readonly kernel: GpuKernelName;
  /** Number of coefficients K. */
  readonly k: number;
  /** Number of records n. */
  readonly n: number;
  /** Floats per record: k + 2. */
  readonly recStride: number;
  /** Floats per draw. */
  readonly drawStride: number;
  /** n × recStride; records left to the CPU carry α = 0. */
  readonly records: Float32Array<ArrayBuffer>;
  /** The kernel's draws only, in order, × drawStride. */
  readonly draws: Float32Array<ArrayBuffer>;
  /** For each packed draw, its index in the caller's draws. */
  readonly drawIndex: Int32Array;
  /** Records with α_i ≠ 0 that the kernel must not evaluate. */
  readonly cpuRecords: Int32Array;
  /** Draws that the kernel must not evaluate, in increasing order. */
  readonly cpuDraws: Int32Array;
}

/**
 * Stirling's remainder δ(x) = log Γ(x) − [(x − ½)·log x − x + ½·log 2π]
 * = Σ_k B_2k / (2k(2k−1)·x^(2k−1)) through x⁻¹³, for x ≥ 8 (error below 1e-15).
 *
 * @param x the argument, at least 8.
 * @returns δ(x).
 * @example δ(x) ≈ 1/(12x)
 * ```ts
 * import assert from "node:assert/strict";
 * import { stirlingRemainder } from "./lipschitz_pack.ts";
 * assert.ok(Math.abs(stirlingRemainder(1e6) - 1 / 12e6) < 1e-20);
 * ```
 */
export function stirlingRemainder(x: number): number {
  const r = 1 / (x * x);
  return (1 / 12 -
    r * (1 / 360 -
        r * (1 / 1260 - r * (1 / 1680 - r * (1 / 1188 - r * (691 / 360360 - r / 156)))))) / x;
}

/** True for a finite number with |v| ≤ max. */
function within(v: number, max: number): boolean {
  return Math.abs(v) <= max;
}

/**
 * Writes record i's two model constants into out[at], out[at + 1], or returns false when the
 * outcome (or survey weight w) is outside the kernel's range (then the CPU evaluates the record).
 */
function recordConstants(
  gpu: ModelGpu,
  levels: number,
  y: number,
  w: number,
  out: Float32Array,
  at: number,
): boolean {
  const z = gpu.record[0](y, w);
  const c = gpu.record[1](y, w);
  if (!RECORD_RANGE[gpu.kernel](y, z, levels, c)) return false;
  out[at] = z;
  out[at + 1] = c;
  return true;
}

/** −log 2π, the survey models' bivariate normal constant (fbs.ts, fbp.ts). */
const LOG_2PI_NEG = -2 * HALF_LOG_2PI;

/** The smallest 1 − ρ² the FBS kernel takes (so 1/(1 − ρ²) ≤ 2²⁰); see lipschitz_fbs.wgsl. */
const FBS_MIN_ONE_MINUS_RHO2 = 2 ** -20;

/**
 * Writes a survey model's per-draw constants from its constrained θ (`theta`, the draw's row)
 * into out[at…], or returns false when a scale or ρ is outside the kernel's range:
 *
 * - FBS, θ = (β_y, β_w, σ_y, σ_w, ρ): 1/σ_y, 1/σ_w, ρ, 1/(1 − ρ²) and fbs.ts's
 *   −log 2π − log σ_y − log σ_w − ½·log(1 − ρ²), with 1 − ρ² = (1 − ρ)(1 + ρ) ≥ 2⁻²⁰;
 * - FBP, θ = (β, κ_y, κ_x, σ_y, σ_π): 1/σ_y, 1/σ_π and fbp.ts's
 *   −log 2π − log σ_y − log σ_π − ½σ_π² − ½κ_y²σ_y².
 *
 * Both scales lie in the range [2⁻²⁰, 2²⁰] of the Gaussian kernel.
 */
function surveyDrawConstants(
  kernel: "fbs" | "fbp",
  theta: Float64Array,
  k: number,
  out: Float32Array,
  at: number,
): boolean {
  const [lo, hi] = EXTRA_RANGE[kernel];
  const scales = kernel === "fbs" ? 2 * k : 2 * k + 1;
  const sy = theta[scales];
  const s2 = theta[scales + 1];
  if (!(sy >= lo && sy <= hi && s2 >= lo && s2 <= hi)) return false;
  out[at] = 1 / sy;
  out[at + 1] = 1 / s2;
  if (kernel === "fbp") {
    const kappaY = theta[k];
    out[at + 2] = LOG_2PI_NEG - Math.log(sy) - Math.log(s2) - 0.5 * s2 * s2 -
      0.5 * kappaY * kappaY * sy * sy;
    return true;
  }
  const rho = theta[scales + 2];
  const s = (1 - rho) * (1 + rho);
  if (!(s >= FBS_MIN_ONE_MINUS_RHO2 && s <= 1)) return false;
  out[at + 2] = rho;
  out[at + 3] = 1 / s;
  out[at + 4] = LOG_2PI_NEG - Math.log(sy) - Math.log(s2) - 0.5 * Math.log(s);
  return true;
}

/**
 * Writes a draw's per-draw constants from its extra parameter (φ or σ) into out[at…], or
 * returns false when the parameter is outside the kernel's range.
 */
function drawConstants(
  kernel: GpuKernelName,
  extra: number,
  out: Float32Array,
  at: number,
): boolean {
  if (DRAW_CONSTANTS[kernel] === 0) return true;
  const [lo, hi] = EXTRA_RANGE[kernel];
  if (!(extra >= lo && extra <= hi)) return false;
  if (kernel === "gaussian" || kernel === "hurdle") {
    out[at] = 1 / extra;
    out[at + 1] = Math.log(extra);
    return true;
  }
  out[at] = extra;
  out[at + 1] = Math.log(extra);
  out[at + 2] = lgamma(extra);
  out[at + 3] = extra >= 8 ? stirlingRemainder(extra) : 0;
  return true;
}

/**
 * Packs a model's records and draws for its kernel, screening both into the kernel's ranges.
 *
 * @param model one of the models of SPEC §5 (its name picks the kernel).
 * @param draws S×dim constrained draws, row-major (dim = model.dim).
 * @param alpha record weights (null: all 1).
 * @returns the packed inputs and the records and draws left to the CPU.
 */
export function packLipschitz(
  model: Model,
  draws: Float64Array,
  alpha: Float64Array | null,
): PackedLipschitz {
  const gpu = gpuSpec(model.name);
  if (gpu === null) {
    throw new TypeError(`No GPU Lipschitz kernel for this model: name=${model.name}`);
  }
  const kernel = gpu.kernel;
  const { n, k, y, x } = model.design;
  const dim = model.dim;
  // The categorical model's θ leads with (L − 1)·K coefficients, level by level; the hurdle
  // model's with γ then β (K each), and σ follows their 2K prior scales. FBS's leads with β_y
  // and β_w, FBP's with β, κ_y and κ_x, and their scales follow at once (no prior scales).
  const levels = model.design.outcomeLevels?.length ?? 2;
  const survey = kernel === "fbs" || kernel === "fbp";
  const coefficients = kernel === "categorical"
    ? (levels - 1) * k
    : kernel === "hurdle" || kernel === "fbs"
    ? 2 * k
    : kernel === "fbp"
    ? 2 * k + 1
    : k;
  const weight = model.design.weight;
  const recStride = k + 2;
  const records = new Float32Array(n * recStride);
  const cpuRecords: number[] = [];
  for (let i = 0; i < n; i++) {
    const at = i * recStride;
    const a = alpha === null ? 1 : alpha[i];
    if (a === 0) continue;
    const w = weight?.[i] ?? NaN;
    let ok = a > 0 && a <= 1 && recordConstants(gpu, levels, y[i], w, records, at + k);
    for (let j = 1; ok && j < k; j++) {
      const v = x[i * k + j];
      ok = within(v, COEFFICIENT_MAX);
      records[at + j - 1] = v;
    }
    if (ok) {
      records[at + k - 1] = a;
    } else {
      records.fill(0, at, at + recStride);
      cpuRecords.push(i);
    }
  }
  const drawStride = coefficients + DRAW_CONSTANTS[kernel];
  const total = draws.length / dim;
  const packed = new Float32Array(total * drawStride);
  const drawIndex: number[] = [];
  const cpuDraws: number[] = [];
  for (let s = 0; s < total; s++) {
    const at = drawIndex.length * drawStride;
    const theta = s * dim;
    let ok: boolean;
    if (survey) {
      const row = draws.subarray(theta, theta + dim);
      ok = surveyDrawConstants(kernel, row, k, packed, at + coefficients);
    } else {
      const extra = dim > 2 * coefficients ? draws[theta + 2 * coefficients] : NaN;
      ok = drawConstants(kernel, extra, packed, at + coefficients);
    }
    for (let j = 0; ok && j < coefficients; j++) {
      const v = draws[theta + j];
      ok = within(v, COEFFICIENT_MAX);
      packed[at + j] = v;
    }
    if (ok) drawIndex.push(s);
    else cpuDraws.push(s);
  }
  return {
    kernel,
    k,
    n,
    recStride,
    drawStride,
    records,
    draws: packed.slice(0, drawIndex.length * drawStride),
    drawIndex: Int32Array.from(drawIndex),
    cpuRecords: Int32Array.from(cpuRecords),
    cpuDraws: Int32Array.from(cpuDraws),
  };
}
