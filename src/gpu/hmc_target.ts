/**
 * The log target of the SPEC §5 regression models on the GPU, packed for the many-chain
 * kernels: the per-record data and prior constants the kernels need (from the model's registry
 * entry), the assembled WGSL and the static part of the parameter block. The device side (buffers,
 * pipelines, dispatches) is `hmc_resources.ts`.
 *
 * Everything on the device is f32. Per-record constants (log Γ(y+1), log y, log(1 − y)) are
 * computed in f64 here and rounded once; sums over records are tree reductions
 * (`shaders/hmc_target.wgsl`).
 *
 * @module
 */
import special from "../../shaders/special.wgsl" with { type: "text" };
import philox from "../../shaders/philox.wgsl" with { type: "text" };
import common from "../../shaders/hmc_common.wgsl" with { type: "text" };
import models from "../../shaders/hmc_models.wgsl" with { type: "text" };
import targetKernels from "../../shaders/hmc_target.wgsl" with { type: "text" };
import adaptKernel from "../../shaders/hmc_adapt.wgsl" with { type: "text" };
import { censorBound } from "../models/_glm.ts";
import { COEFFICIENT_SCALE_PRIOR, type HalfStudentT } from "../models/glm_prior.ts";
import type { GpuKernelName, Model, Weighting } from "../models/model.ts";
import { GPU_HMC_MODEL_NAMES, gpuSpec } from "../models/registry.ts";
import { type HmcParams, MAX_DISPATCH, MAX_K, MODE_EVAL, TILE } from "./hmc_layout.ts";

/** Constants of a half-Student-t prior as `half_t_log`/`half_t_grad` take them. */
interface HalfTConstants {
  readonly nu: number;
  readonly invNuS2: number;
  readonly logNorm: number;
}

/** What the kernels need to know about a model bound to its data and a weighting. */
export interface GpuTarget {
  readonly kernel: GpuKernelName;
  /** Records n, coefficients K, dimension D = 2K (+1 with the extra parameter). */
  readonly n: number;
  readonly k: number;
  readonly d: number;
  /** Evaluation tiles ⌈n/TILE⌉ (at least 1). */
  readonly tiles: number;
  /** f32 words per record: two model values, α_i, the K − 1 covariates. */
  readonly recordStride: number;
  readonly records: Float32Array<ArrayBuffer>;
  /** The censoring bound C, +∞ for none. */
  readonly censor: number;
  readonly hasExtra: boolean;
  readonly coefficientScale: HalfTConstants;
  readonly extra: HalfTConstants;
}

/**
 * The constants of a half-Student-t(ν, 0, s) prior: ν, 1/(νs²) and its log normaliser
 * log 2 + log Γ((ν+1)/2) − log Γ(ν/2) − ½·log(νπ) − log s, recovered from the prior's own
 * density at u = 0: logDensity(0) + (ν+1)/2·log1p(1/(νs²)).
 */
function halfT(prior: HalfStudentT): HalfTConstants {
  const invNuS2 = 1 / (prior.nu * prior.scale * prior.scale);
  return {
    nu: prior.nu,
    invNuS2,
    logNorm: prior.logDensity(0) + 0.5 * (prior.nu + 1) * Math.log1p(invNuS2),
  };
}

/** The models with HMC kernels, as a list in words ("a, b and c"). */
const HMC_MODELS = `${GPU_HMC_MODEL_NAMES.slice(0, -1).join(", ")} and ${
  GPU_HMC_MODEL_NAMES.at(-1)
}`;

/**
 * Packs a model's data for the kernels (the model's registry entry gives the kernel, the
 * per-record values and the extra parameter's prior). The two per-record values are (y, log Γ(y+1)) for the
 * Poisson and negative binomial models, (log y, log(1 − y)) for beta regression, (y, −½·log 2π)
 * for the normal and (log y, −½·log 2π − log y) for the lognormal model.
 *
 * @param model a model whose registry entry has GPU HMC kernels.
 * @param weighting record weights α (null for all ones) and the optional censoring bound.
 * @returns the model's GPU description.
 * @throws TypeError for any other model; RangeError for K > 16 or a bad weighting.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PoissonModel } from "../models/poisson.ts";
 * import { gpuTarget } from "./hmc_target.ts";
 * const m = new PoissonModel({
 *   n: 2, k: 1, y: Float64Array.of(0, 2), x: Float64Array.of(1, 1), coefficientNames: ["intercept"],
 * });
 * const t = gpuTarget(m, { alpha: null });
 * // Per record: y, log Γ(y + 1), α (here 1); no covariates besides the intercept.
 * assert.equal(t.recordStride, 3);
 * const second = [...t.records.subarray(3)];
 * assert.deepEqual(second.map((v) => Math.round(v * 1e6) / 1e6), [2, 0.693147, 1]);
 * ```
 */
export function gpuTarget(model: Model, weighting: Weighting): GpuTarget {
  const { n, k, y, x } = model.design;
  const gpu = gpuSpec(model.name);
  if (gpu === null || !gpu.hmc) {
    throw new TypeError(
      `Cannot run ${model.name} on the GPU as only the ${HMC_MODELS} models have GPU kernels: ` +
        `model=${model.name}`,
    );
  }
  const { kernel, extraPrior: extra } = gpu;
  const [first, second] = gpu.record;
  if (k > MAX_K) {
    throw new RangeError(`Cannot run on the GPU with more than ${MAX_K} coefficients: k=${k}`);
  }
  const censor = censorBound(weighting, n);
  const alpha = weighting.alpha;
  const recordStride = k + 2;
  const records = new Float32Array(n * recordStride);
  for (let i = 0; i < n; i++) {
    const o = i * recordStride;
    records[o] = first(y[i]);
    records[o + 1] = second(y[i]);
    records[o + 2] = alpha === null ? 1 : alpha[i];
    for (let j = 1; j < k; j++) records[o + 2 + j] = x[i * k + j];
  }
  const tiles = Math.max(1, Math.ceil(n / TILE));
  if (tiles > MAX_DISPATCH) {
    throw new RangeError(
      `Cannot run on the GPU with more than ${MAX_DISPATCH * TILE} records: n=${n}`,
    );
  }
  return {
    kernel,
    n,
    k,
    d: model.dim,
    tiles,
    recordStride,
    records,
    censor,
    hasExtra: extra !== null,
    coefficientScale: halfT(COEFFICIENT_SCALE_PRIOR),
    extra: halfT(extra ?? COEFFICIENT_SCALE_PRIOR),
  };
}

/**
 * The WGSL of the HMC kernels for one model: special functions, Philox, the shared layout, the
 * record functions with `model_chain`/`model_record` bound to `kernel`, the evaluation and
 * leapfrog kernels and the adaptation kernel.
 *
 * @param kernel which record function the kernels call.
 * @returns the shader source.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hmcShaderSource } from "./hmc_target.ts";
 * assert.ok(hmcShaderSource("negbin").includes("return negbin_record(eta, r, kc);"));
 * ```
 */
export function hmcShaderSource(kernel: GpuKernelName): string {
  const bind = `
fn model_chain(ue: f32) -> vec4<f32> {
  return ${kernel}_chain(ue);
}
fn model_record(eta: f32, r: vec2<f32>, kc: vec4<f32>) -> vec3<f32> {
  return ${kernel}_record(eta, r, kc);
}
`;
  return [special, philox, common, models, bind, targetKernels, adaptKernel].join("\n");
}

/**
 * The static part of `Params` for a target: sizes and prior constants, in MODE_EVAL; the
 * sampler's settings are left neutral for the caller to fill in.
 *
 * @param target the model's GPU description.
 * @param chains the number of chains (or points evaluated).
 * @returns the parameter block.
 */
export function baseParams(target: GpuTarget, chains: number): HmcParams {
  return {
    n: target.n,
    k: target.k,
    d: target.d,
    chains,
    tiles: target.tiles,
    recordStride: target.recordStride,
    mode: MODE_EVAL,
    maxSteps: 1,
    warmup: 0,
    adaptEnd: 0,
    drawBase: 0,
    batchDraws: 0,
    key0: 0,
    key1: 0,
    totalIters: 0,
    censor: target.censor,
    hasExtra: target.hasExtra,
    coefNu: target.coefficientScale.nu,
    coefInvNuS2: target.coefficientScale.invNuS2,
    coefLogNorm: target.coefficientScale.logNorm,
    extraNu: target.extra.nu,
    extraInvNuS2: target.extra.invNuS2,
    extraLogNorm: target.extra.logNorm,
    targetAccept: 0,
    daGamma: 1,
    daT0: 0,
    daKappa: 0,
    trajRate: 0,
    emaFactor: 1,
    divergence: 0,
  };
}
