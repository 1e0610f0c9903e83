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
import sumsSingle from "../../shaders/hmc_sums_single.wgsl" with { type: "text" };
import sumsLevels from "../../shaders/hmc_sums_levels.wgsl" with { type: "text" };
import adaptKernel from "../../shaders/hmc_adapt.wgsl" with { type: "text" };
import { censorBound } from "../models/_glm.ts";
import {
  COEFFICIENT_SCALE_PRIOR,
  type HalfStudentT,
  StudentTCoefficientPrior,
} from "../models/glm_prior.ts";
import type {
  ExactCoordinates,
  GpuKernelName,
  Model,
  ModelGpu,
  Weighting,
} from "../models/model.ts";
import { GPU_HMC_MODEL_NAMES, gpuSpec } from "../models/registry.ts";
import {
  type HmcParams,
  MAX_DISPATCH,
  MAX_K,
  MODE_EVAL,
  PRIOR_PAPER,
  PRIOR_STUDENT_T,
  TILE,
} from "./hmc_layout.ts";

/** Constants of a half-Student-t prior as `half_t_log`/`half_t_grad` take them. */
interface HalfTConstants {
  readonly nu: number;
  readonly invNuS2: number;
  readonly logNorm: number;
}

/**
 * The coefficient prior as the kernels take it: the papers' (`PRIOR_PAPER`, over θ with its log
 * scales) or the `student-t` prior's marginal β_j ~ Student-t(ν, 0, s_j) over the free
 * coordinates (`PRIOR_STUDENT_T`), with ν·s² of each block's intercept and of the covariates'
 * coefficients.
 */
export interface GpuCoefficientPrior {
  readonly kind: typeof PRIOR_PAPER | typeof PRIOR_STUDENT_T;
  readonly nu: number;
  readonly interceptSpread: number;
  readonly coefSpread: number;
}

/** What the kernels need to know about a model bound to its data and a weighting. */
export interface GpuTarget {
  readonly kernel: GpuKernelName;
  /** Whether the record has one linear predictor per non-reference outcome level (`ModelGpu`). */
  readonly perLevel: boolean;
  /**
   * Records n, covariates K, linear predictors P per record (1, or L − 1 per level), and the
   * dimension D the kernels sample: 2PK (+1 with the extra parameter) under the papers' prior,
   * PK (+1) under `student-t`, whose scale coordinates are drawn exactly instead (`exact`).
   */
  readonly n: number;
  readonly k: number;
  readonly predictors: number;
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
  readonly prior: GpuCoefficientPrior;
  /** Where each of the kernels' D coordinates sits in the model's u (increasing). */
  readonly free: readonly number[];
  /**
   * The model's coordinates the kernels do not sample, drawn exactly on the host (the
   * `student-t` prior's scale coordinates), or null when the kernels sample all of u.
   */
  readonly exact: ExactCoordinates | null;
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
 * The linear predictors per record P = (dim − extra)/(2K) of a model with GPU HMC kernels: 1, or
 * L − 1 for the categorical model. The model's u carries a scale coordinate per coefficient
 * under either prior; what the kernels sample is {@linkcode gpuCoefficientPrior}'s business.
 */
function predictorCount(model: Model, gpu: ModelGpu): number {
  return (model.dim - (gpu.extraPrior === null ? 0 : 1)) / (2 * model.design.k);
}

/** The paper prior's constants: ν, the spreads and the kind as the kernels ignore them. */
const PAPER: GpuCoefficientPrior = { kind: PRIOR_PAPER, nu: 0, interceptSpread: 1, coefSpread: 1 };

/**
 * The model's coefficient prior as the kernels take it, or a string saying why they cannot:
 * under `student-t`, every block's intercept must share one scale and every covariate's
 * coefficient another (as `coefficientPrior` in `glm_prior.ts` gives the GPU models), and the
 * exact coordinates must be the scale block that follows the coefficients.
 */
function gpuCoefficientPrior(model: Model, coefficients: number): GpuCoefficientPrior | string {
  const prior = model.coefficientPrior;
  if (!(prior instanceof StudentTCoefficientPrior)) return PAPER;
  const { k } = model.design;
  const { nu, scales } = prior;
  const intercept = scales[0];
  // With K = 1 there is no covariate: its spread is never read.
  const covariate = k > 1 ? scales[1] : intercept;
  const uniform = scales.length === coefficients &&
    scales.every((s, j) => s === (j % k === 0 ? intercept : covariate));
  const indices = prior.exact.indices;
  const scaleBlock = indices.length === coefficients &&
    indices.every((index, j) => index === coefficients + j);
  if (!uniform || !scaleBlock) {
    return `Cannot run the ${model.name} model on the GPU as its student-t prior's scales ` +
      `differ between its linear predictors: scales=[${scales.join(", ")}]`;
  }
  return {
    kind: PRIOR_STUDENT_T,
    nu,
    interceptSpread: nu * intercept * intercept,
    coefSpread: nu * covariate * covariate,
  };
}

/**
 * Why the HMC kernels cannot hold a model that has them, or null when they can: more than
 * `MAX_K` regression coefficients P·K (the kernels' workgroup memory), more records than one
 * dispatch's tiles take, or a `student-t` prior with a scale per linear predictor (none of the
 * GPU models has one).
 *
 * @param model a model whose registry entry has GPU HMC kernels.
 * @returns the reason, worded as the RangeError {@linkcode gpuTarget} throws, or null.
 * @throws TypeError for any other model.
 */
export function gpuHmcRefusal(model: Model): string | null {
  const { n, k } = model.design;
  const predictors = predictorCount(model, hmcSpec(model));
  if (predictors * k > MAX_K) {
    return `Cannot run the ${model.name} model on the GPU with more than ${MAX_K} regression ` +
      `coefficients (linear predictors × covariates): coefficients=${predictors * k}, ` +
      `predictors=${predictors}, k=${k}`;
  }
  if (Math.ceil(n / TILE) > MAX_DISPATCH) {
    return `Cannot run the ${model.name} model on the GPU with more than ${
      MAX_DISPATCH * TILE
    } records: n=${n}`;
  }
  const prior = gpuCoefficientPrior(model, predictors * k);
  return typeof prior === "string" ? prior : null;
}

/** The model's GPU description when it has HMC kernels; a TypeError naming the models that do. */
function hmcSpec(model: Model): ModelGpu {
  const gpu = gpuSpec(model.name);
  if (gpu === null || !gpu.hmc) {
    throw new TypeError(
      `Cannot run ${model.name} on the GPU as only the ${HMC_MODELS} models have GPU kernels: ` +
        `model=${model.name}`,
    );
  }
  return gpu;
}

/**
 * Packs a model's data for the kernels (the model's registry entry gives the kernel, the
 * per-record values and the extra parameter's prior). The two per-record values are (y, log Γ(y+1)) for the
 * Poisson and negative binomial models, (log y, log(1 − y)) for beta regression, (y, −½·log 2π)
 * for the normal, (log y, −½·log 2π − log y) for the lognormal and (y's level code, 0) for the
 * categorical model.
 *
 * @param model a model whose registry entry has GPU HMC kernels.
 * @param weighting record weights α (null for all ones) and the optional censoring bound.
 * @returns the model's GPU description.
 * @throws TypeError for any other model; RangeError where the kernels cannot hold it
 *   ({@linkcode gpuHmcRefusal}) or for a bad weighting.
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
  const gpu = hmcSpec(model);
  const refusal = gpuHmcRefusal(model);
  if (refusal !== null) throw new RangeError(refusal);
  const { kernel, perLevel, extraPrior: extra } = gpu;
  const [first, second] = gpu.record;
  const censor = censorBound(weighting, n);
  const alpha = weighting.alpha;
  const recordStride = k + 2;
  const records = new Float32Array(n * recordStride);
  for (let i = 0; i < n; i++) {
    const o = i * recordStride;
    const w = model.design.weight?.[i] ?? NaN;
    records[o] = first(y[i], w);
    records[o + 1] = second(y[i], w);
    records[o + 2] = alpha === null ? 1 : alpha[i];
    for (let j = 1; j < k; j++) records[o + 2 + j] = x[i * k + j];
  }
  const tiles = Math.max(1, Math.ceil(n / TILE));
  const predictors = predictorCount(model, gpu);
  const prior = gpuCoefficientPrior(model, predictors * k) as GpuCoefficientPrior;
  const exact = prior.kind === PRIOR_STUDENT_T ? model.exactCoordinates ?? null : null;
  const drawn = new Set(exact?.indices ?? []);
  const free = Array.from({ length: model.dim }, (_, j) => j).filter((j) => !drawn.has(j));
  return {
    kernel,
    perLevel,
    n,
    k,
    predictors,
    d: free.length,
    tiles,
    recordStride,
    records,
    censor,
    hasExtra: extra !== null,
    coefficientScale: halfT(COEFFICIENT_SCALE_PRIOR),
    extra: halfT(extra ?? COEFFICIENT_SCALE_PRIOR),
    prior,
    free,
    exact,
  };
}

/**
 * The WGSL of the HMC kernels for one model: special functions, Philox, the shared layout, the
 * record functions with `model_chain`/`model_record` (one linear predictor per record) or
 * `model_levels` (one per non-reference level) bound to `kernel`, the per-thread record sums
 * that call them, the evaluation and leapfrog kernels and the adaptation kernel.
 *
 * @param kernel which record function the kernels call.
 * @param perLevel whether the model has one linear predictor per non-reference level.
 * @returns the shader source.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hmcShaderSource } from "./hmc_target.ts";
 * assert.ok(hmcShaderSource("negbin").includes("return negbin_record(eta, r, kc);"));
 * assert.ok(hmcShaderSource("categorical", true).includes("return categorical_levels("));
 * ```
 */
export function hmcShaderSource(kernel: GpuKernelName, perLevel = false): string {
  const bind = perLevel
    ? `
fn model_levels(eta: ptr<function, array<f32, MAX_K>>, predictors: u32, r: vec2<f32>) -> f32 {
  return ${kernel}_levels(eta, predictors, r);
}
`
    : `
fn model_chain(ue: f32) -> vec4<f32> {
  return ${kernel}_chain(ue);
}
fn model_record(eta: f32, r: vec2<f32>, kc: vec4<f32>) -> vec3<f32> {
  return ${kernel}_record(eta, r, kc);
}
`;
  const sums = perLevel ? sumsLevels : sumsSingle;
  return [special, philox, common, models, bind, sums, targetKernels, adaptKernel].join("\n");
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
    predictors: target.predictors,
    priorKind: target.prior.kind,
    tNu: target.prior.nu,
    tInterceptSpread: target.prior.interceptSpread,
    tCoefSpread: target.prior.coefSpread,
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
