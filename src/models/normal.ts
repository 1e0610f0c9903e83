/**
 * Normal regression (SPEC §5): y_i ~ N(η_i, σ²), η_i = x_iᵀβ, with the coefficient prior of
 * `glm_prior.ts` and σ ~ half-Student-t(3, 0, 10), sampled on u = log σ.
 *
 * {@link GaussianRegression} holds the likelihood shared with the lognormal model: for a
 * response z_i on the normal scale and a per-record constant c_i,
 *
 *     ℓ_i = c_i − log σ − (z_i − η_i)²/(2σ²),
 *     ∂ℓ_i/∂η_i = (z_i − η_i)/σ²,   ∂ℓ_i/∂log σ = (z_i − η_i)²/σ² − 1.
 *
 * Uncensored, the log density is quadratic in β, so a weighting's sums ({@link GaussianSums})
 * replace the record loop: with weights a_i, A = Σ a_i, means z̄ = Σ a_i z_i / A and
 * x̄_j = Σ a_i x_ij / A, the centred columns x̃_i = (1, x_i1 − x̄_1, …), e_i = z_i − z̄ and
 * γ = (β_0 + Σ_j β_j x̄_j − z̄, β_1, …), every residual is r_i = e_i − x̃_iᵀγ and
 *
 *     Σ a_i r_i² = Σ a_i e_i² − 2γᵀv + γᵀMγ,   v = Σ a_i x̃_i e_i,   M = Σ a_i x̃_i x̃_iᵀ,
 *
 * O(K²) per gradient instead of O(nK). Centring keeps the three terms of the size of the residuals'
 * spread rather than of the raw columns' means.
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { sampleNormal } from "../random/distributions.ts";
import {
  addCovariates,
  clampTerm,
  GlmModel,
  linearPredictor,
  meanVariance,
  singleBlock,
  unclamped,
} from "./_glm.ts";
import { type PredictorScale, SIGMA_PRIOR } from "./glm_prior.ts";
import { describeModel, type Design, hmcKernels, type Weighting } from "./model.ts";
import { HALF_LOG_2PI } from "../stats/special.ts";

/**
 * A Gaussian regression on a transformed response z (z = y for the normal model, log y for the
 * lognormal); θ = (β, σ_β, σ), u = (β, log σ_β, log σ).
 */
export abstract class GaussianRegression extends GlmModel {
  /** The outcome on the normal scale. */
  protected readonly z: Float64Array;
  /** The per-record constant c_i of ℓ_i. */
  readonly #c: Float64Array;
  /** The covariates, n×K row-major. */
  protected readonly x: Float64Array;
  /** Whether uncensored densities use a weighting's sums instead of the record loop. */
  readonly #useSums: boolean;
  /** The sums of each weighting's α seen so far (α = null under {@link UNWEIGHTED_KEY}). */
  readonly #sums = new WeakMap<object, GaussianSums | null>();

  /**
   * Binds a Gaussian regression to a dataset through its normal-scale response.
   * @param name the model's name.
   * @param design outcome and covariates.
   * @param z the response on the normal scale, length n.
   * @param c the per-record constant of ℓ_i, length n.
   * @param scale "identity" when z is the outcome itself (normal), "log" for its logarithm.
   * @param options `sums: false` keeps the record loop for every density (the reference the sums
   *   are tested against).
   */
  constructor(
    name: string,
    design: Design,
    z: Float64Array,
    c: Float64Array,
    scale: PredictorScale,
    options: GaussianOptions = {},
  ) {
    super(name, design, { name: "sigma", sign: 1, prior: SIGMA_PRIOR }, singleBlock(scale));
    this.z = z;
    this.#c = c;
    this.x = design.x;
    this.#useSums = options.sums ?? true;
  }

  /**
   * The sums of an uncensored weighting's α (read once per α array, which such a weighting never
   * changes: `Weighting`), or
   * null when a record of positive weight has a non-finite z_i or c_i (the loop then gives the
   * density its −∞ or NaN).
   */
  #sumsOf(alpha: Float64Array | null): GaussianSums | null {
    const key = alpha ?? UNWEIGHTED_KEY;
    let sums = this.#sums.get(key);
    if (sums === undefined) {
      sums = gaussianSums(this.x, this.n, this.k, this.z, this.#c, alpha);
      this.#sums.set(key, sums);
    }
    return sums;
  }

  /** β_1 = mean of z, other coefficients 0, σ_β = 1, σ = standard deviation of z (1 if none). */
  initialPoint(): Float64Array {
    const { mean, variance } = meanVariance(this.z, Number.isFinite);
    return this.startAt(mean, variance > 0 ? Math.sqrt(variance) : 1);
  }

  /** Σ_i clamp(α_i·ℓ_i, ±C) plus the priors, with the gradient of the module doc. */
  logDensity(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number {
    const n = this.n;
    const k = this.k;
    const censor = this.densityArguments(u, grad, weighting);
    const alpha = weighting.alpha;
    const x = this.x;
    const z = this.z;
    const cst = this.#c;
    let total = this.logPrior(u, grad);
    const logSigma = u[2 * k];
    const invVar = Math.exp(-2 * logSigma);
    const sums = weighting.censor === undefined && this.#useSums ? this.#sumsOf(alpha) : null;
    if (sums !== null) return total + sumsDensity(sums, u, k, logSigma, invVar, grad);
    let g0 = 0;
    let gSigma = 0;
    for (let i = 0; i < n; i++) {
      const a = alpha === null ? 1 : alpha[i];
      if (a === 0) continue;
      const eta = linearPredictor(x, k, u, i, 0);
      const r = z[i] - eta;
      const q = r * r * invVar;
      const c = a * (cst[i] - logSigma - 0.5 * q);
      total += clampTerm(c, censor);
      if (grad !== null && unclamped(c, censor)) {
        const g = a * r * invVar;
        g0 += g;
        addCovariates(grad, 0, g, x, i, k);
        gSigma += a * (q - 1);
      }
    }
    if (grad !== null) {
      grad[0] += g0;
      grad[2 * k] += gSigma;
    }
    return total;
  }

  /** ℓ_i = c_i − log σ − (z_i − η_i)²/(2σ²). */
  logLik(theta: Float64Array, out: Float64Array): Float64Array {
    this.checkRecordOutput(theta, out);
    const k = this.k;
    const x = this.x;
    const z = this.z;
    const cst = this.#c;
    const sigma = theta[2 * k];
    const logSigma = Math.log(sigma);
    const halfInvVar = 0.5 / (sigma * sigma);
    for (let i = 0; i < this.n; i++) {
      const eta = linearPredictor(x, k, theta, i, 0);
      const r = z[i] - eta;
      out[i] = cst[i] - logSigma - r * r * halfInvVar;
    }
    return out;
  }

  /** y*_i = g(z*_i) with z*_i ~ N(η_i, σ²) and g {@link GaussianRegression.fromNormalScale}. */
  protected drawRecord(theta: Float64Array, rng: Rng, i: number): number {
    const eta = linearPredictor(this.x, this.k, theta, i, 0);
    return this.fromNormalScale(sampleNormal(rng, eta, theta[2 * this.k]));
  }

  /** The outcome of a response z on the normal scale (the inverse of the outcome's transform). */
  protected abstract fromNormalScale(z: number): number;
}

/** Options of a Gaussian regression. */
export interface GaussianOptions {
  /** Uncensored densities from the weighting's sums (default true) or the record loop. */
  readonly sums?: boolean;
}

/** The cache key of the unweighted α (null cannot key a WeakMap). */
const UNWEIGHTED_KEY = {};

/** A weighting's sums of the module doc, over the records of positive weight. */
export interface GaussianSums {
  /** A = Σ a_i. */
  readonly total: number;
  /** Σ a_i c_i. */
  readonly constant: number;
  /** z̄. */
  readonly zMean: number;
  /** x̄_1..x̄_{K−1} at indices 1..K−1 (index 0 unused). */
  readonly xMean: Float64Array;
  /** Σ a_i e_i². */
  readonly ee: number;
  /** v = Σ a_i x̃_i e_i (K). */
  readonly v: Float64Array;
  /** M = Σ a_i x̃_i x̃_iᵀ, K×K row-major. */
  readonly m: Float64Array;
}

/**
 * The sums of the module doc for weights α (null: all 1), records of zero weight left out; null
 * when a record of positive weight has a non-finite z_i or c_i.
 *
 * @param x The design, n×K row-major, column 0 the intercept.
 * @param n Records.
 * @param k Columns.
 * @param z The response on the normal scale.
 * @param c The per-record constants of ℓ_i.
 * @param alpha The weights, or null.
 * @returns The sums, or null.
 */
export function gaussianSums(
  x: Float64Array,
  n: number,
  k: number,
  z: Float64Array,
  c: Float64Array,
  alpha: Float64Array | null,
): GaussianSums | null {
  let total = 0;
  let constant = 0;
  let zSum = 0;
  const xSum = new Float64Array(k);
  for (let i = 0, off = 0; i < n; i++, off += k) {
    const a = alpha === null ? 1 : alpha[i];
    if (a === 0) continue;
    if (!Number.isFinite(z[i]) || !Number.isFinite(c[i])) return null;
    total += a;
    constant += a * c[i];
    zSum += a * z[i];
    for (let j = 1; j < k; j++) xSum[j] += a * x[off + j];
  }
  const zMean = total > 0 ? zSum / total : 0;
  const xMean = xSum.map((s) => total > 0 ? s / total : 0);
  let ee = 0;
  const v = new Float64Array(k);
  const m = new Float64Array(k * k);
  const row = new Float64Array(k);
  row[0] = 1;
  for (let i = 0, off = 0; i < n; i++, off += k) {
    const a = alpha === null ? 1 : alpha[i];
    if (a === 0) continue;
    for (let j = 1; j < k; j++) row[j] = x[off + j] - xMean[j];
    const e = z[i] - zMean;
    ee += a * e * e;
    for (let j = 0; j < k; j++) {
      const w = a * row[j];
      v[j] += w * e;
      for (let l = 0; l <= j; l++) m[j * k + l] += w * row[l];
    }
  }
  for (let j = 0; j < k; j++) for (let l = 0; l < j; l++) m[l * k + j] = m[j * k + l];
  return { total, constant, zMean, xMean, ee, v, m };
}

/**
 * Σ_i a_i·ℓ_i from a weighting's sums at β = u[b..b+K) and log σ = u[s], adding its gradient
 * into `grad`'s β and log σ entries: with γ of the module doc and g = (v − Mγ)/σ²,
 * ∂/∂β_0 = g_0, ∂/∂β_j = g_j + x̄_j·g_0 and ∂/∂log σ = Σ a_i r_i²/σ² − A. By default
 * u = (β, …, log σ) with log σ at 2K (the Gaussian regressions); the hurdle model's amount part
 * passes its own offsets.
 */
export function sumsDensity(
  sums: GaussianSums,
  u: Float64Array,
  k: number,
  logSigma: number,
  invVar: number,
  grad: Float64Array | null,
  b: number = 0,
  s: number = 2 * k,
): number {
  const { v, m, xMean } = sums;
  const gamma = new Float64Array(k);
  gamma[0] = u[b] - sums.zMean;
  for (let j = 1; j < k; j++) {
    gamma[j] = u[b + j];
    gamma[0] += u[b + j] * xMean[j];
  }
  let rss = sums.ee;
  const g = new Float64Array(k);
  for (let j = 0; j < k; j++) {
    let mg = 0;
    for (let l = 0; l < k; l++) mg += m[j * k + l] * gamma[l];
    rss += gamma[j] * (mg - 2 * v[j]);
    g[j] = (v[j] - mg) * invVar;
  }
  if (rss < 0) rss = 0; // Σ a_i r_i² ≥ 0; rounding of the three terms can only cross it by ulps
  if (grad !== null) {
    grad[b] += g[0];
    for (let j = 1; j < k; j++) grad[b + j] += g[j] + xMean[j] * g[0];
    grad[s] += rss * invVar - sums.total;
  }
  return sums.constant - sums.total * logSigma - 0.5 * invVar * rss;
}

/**
 * The normal regression model: z = y, c_i = −½·log(2π).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NormalModel } from "./normal.ts";
 * const m = new NormalModel({
 *   n: 1, k: 1, y: new Float64Array([1]), x: new Float64Array([1]), coefficientNames: ["intercept"],
 * });
 * const l = m.logLik(new Float64Array([0, 1, 1]), new Float64Array(1));
 * assert.ok(Math.abs(l[0] - (-0.5 * Math.log(2 * Math.PI) - 0.5)) < 1e-15);
 * ```
 */
export class NormalModel extends GaussianRegression {
  /**
   * Binds the model to a dataset.
   * @param design outcome and covariates.
   * @param options `sums: false` keeps the record loop (see {@link GaussianRegression}).
   */
  constructor(design: Design, options: GaussianOptions = {}) {
    super(
      "normal",
      design,
      design.y,
      new Float64Array(design.n).fill(-HALF_LOG_2PI),
      "identity",
      options,
    );
  }

  /** y = z. */
  protected fromNormalScale(z: number): number {
    return z;
  }
}

/** The normal model's registry entry: any real outcome, the Gaussian GPU kernels on y. */
export const NORMAL = describeModel("normal", "real", (design) => new NormalModel(design), {
  gpu: hmcKernels("gaussian", [(y) => y, () => -HALF_LOG_2PI], SIGMA_PRIOR),
});
