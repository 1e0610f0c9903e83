/**
 * Hurdle lognormal regression for non-negative amounts with exact zeros (issue 15: a salary that
 * is $0 for some records): a logistic part for whether y_i is positive and a lognormal part for
 * its amount when it is,
 *
 *     P(y_i > 0 | x_i) = p_i = logit⁻¹(x_iᵀγ),   log y_i | y_i > 0, x_i ~ N(x_iᵀβ, σ²),
 *
 *     ℓ_i = log(1 − p_i)                                              if y_i = 0,
 *     ℓ_i = log p_i − ½·log(2π) − log y_i − log σ − (log y_i − x_iᵀβ)²/(2σ²)   if y_i > 0,
 *
 * the lognormal part being the lognormal model's density of y_i (Jacobian −log y_i included).
 * log p_i and log(1 − p_i) are computed as in the logistic model (`logistic.ts`), exactly at any
 * |x_iᵀγ|. A negative or non-finite outcome has ℓ_i = −∞ (the data reader never produces one).
 *
 * Priors: every coefficient of γ and β has the other regressions' prior (`glm_prior.ts`),
 * β_k | σ_k ~ Normal(0, σ_k²) with σ_k ~ half-Student-t(3, 0, 1), and σ ~ half-Student-t(3, 0, 10)
 * as in the lognormal model, sampled on u = log σ. The two parts share no parameter, so their
 * posteriors are independent (and so are their weighted pseudo posteriors, both weighted by the
 * same α_i).
 *
 * Uncensored, the two parts of the log density separate record by record,
 *
 *     Σ_i α_i·ℓ_i = Σ_i α_i·log logit⁻¹(s_i·x_iᵀγ) + Σ_{i: y_i > 0} α_i·(lognormal ℓ of y_i),
 *
 * with s_i = ±1 for y_i > 0 and y_i = 0, so the first sum is the logistic model's record sum on
 * the outcome 1[y_i > 0] (`logistic.ts`: grouped rows or WebAssembly SIMD) and the second the
 * Gaussian sums of `normal.ts` over the positive records (O(K²) per gradient once a weighting's
 * sums are made), the same values as the record loop up to the order of the additions. A
 * censored weighting clamps each record's whole ℓ_i and keeps the record loop.
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { sampleLognormal } from "../random/distributions.ts";
import {
  addCovariates,
  clampTerm,
  GlmModel,
  linearPredictor,
  meanVariance,
  unclamped,
} from "./_glm.ts";
import { SIGMA_PRIOR } from "./glm_prior.ts";
import { LogisticModel, logSigmoidFrom, sigmoidNegFrom, smoothedLogOdds } from "./logistic.ts";
import { type GaussianSums, gaussianSums, sumsDensity } from "./normal.ts";
import { describeModel, type Design, lipschitzKernel, type Weighting } from "./model.ts";
import { HALF_LOG_2PI, sigmoid } from "../stats/special.ts";

/**
 * The hurdle lognormal model; θ = (γ, β, σ_γ, σ_β, σ) with γ named `nonzero:<coefficient>`, β
 * named `amount:<coefficient>`, their prior scales `sigma_beta_nonzero:…` and
 * `sigma_beta_amount:…`, and `sigma`; u = (γ, β, log σ_γ, log σ_β, log σ).
 *
 * @example A zero has ℓ = log(1 − p), a positive amount log p plus the lognormal density
 * ```ts
 * import assert from "node:assert/strict";
 * import { HurdleModel } from "./hurdle.ts";
 * const m = new HurdleModel({
 *   n: 2, k: 1, y: Float64Array.of(0, 1), x: Float64Array.of(1, 1), coefficientNames: ["intercept"],
 * });
 * const l = m.logLik(Float64Array.of(0, 0, 1, 1, 1), new Float64Array(2));
 * assert.ok(Math.abs(l[0] - Math.log(0.5)) < 1e-15);
 * assert.ok(Math.abs(l[1] - (Math.log(0.5) - 0.5 * Math.log(2 * Math.PI))) < 1e-15);
 * ```
 */
export class HurdleModel extends GlmModel {
  readonly metric = "diag";
  readonly #x: Float64Array;
  /** 1 for a positive outcome, −1 for a zero, NaN for a negative or non-finite one. */
  readonly #s: Float64Array;
  /** log y_i for a positive outcome (0 otherwise). */
  readonly #z: Float64Array;
  /** −½·log(2π) − log y_i for a positive outcome (0 otherwise). */
  readonly #c: Float64Array;
  /** Whether uncensored densities use the two parts' fast paths instead of the record loop. */
  readonly #fast: boolean;
  /** The logistic model of 1[y_i > 0] on the same covariates, made on first use. */
  #nonzero: LogisticModel | null = null;
  /** The positive records' Gaussian sums per α array seen so far (null α: UNWEIGHTED_KEY). */
  readonly #sums = new WeakMap<object, GaussianSums | null>();

  /**
   * Binds the model to a dataset and precomputes log y_i of the positive outcomes.
   * @param design outcome (y ≥ 0) and covariates.
   * @param options `fast: false` keeps the record loop for every density (the reference the fast
   *   path is tested against); by default uncensored densities take the fast path of the module
   *   doc.
   */
  constructor(design: Design, options: HurdleOptions = {}) {
    // The first block is the logistic part's, the second the lognormal amount's.
    super("hurdle", design, { name: "sigma", sign: 1, prior: SIGMA_PRIOR }, [
      { prefix: "nonzero:", scale: "logit" },
      { prefix: "amount:", scale: "log" },
    ]);
    this.#x = design.x;
    this.#s = design.y.map((y) => y > 0 && y < Infinity ? 1 : y === 0 ? -1 : NaN);
    this.#z = design.y.map((y) => y > 0 && y < Infinity ? Math.log(y) : 0);
    this.#c = this.#z.map((z, i) => this.#s[i] === 1 ? -HALF_LOG_2PI - z : 0);
    this.#fast = options.fast ?? true;
  }

  /**
   * γ_1 = the log-odds of a positive outcome (½ added to both counts), β_1 and σ the mean and
   * standard deviation of the positive outcomes' log (σ = 1 without two distinct ones), the
   * other coefficients 0, every prior scale 1.
   */
  initialPoint(): Float64Array {
    const logs = this.#z.filter((_, i) => this.#s[i] === 1);
    const { mean, variance } = meanVariance(logs, Number.isFinite);
    const u = new Float64Array(this.dim);
    u[0] = smoothedLogOdds(this.#s);
    u[this.k] = Number.isFinite(mean) ? mean : 0;
    u[4 * this.k] = variance > 0 ? 0.5 * Math.log(variance) : 0;
    return u;
  }

  /** Σ_i clamp(α_i·ℓ_i, ±C) plus the priors, with the gradients of the two parts. */
  logDensity(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number {
    const n = this.n;
    const k = this.k;
    const censor = this.densityArguments(u, grad, weighting);
    const alpha = weighting.alpha;
    const x = this.#x;
    const sign = this.#s;
    const z = this.#z;
    const cst = this.#c;
    let total = this.logPrior(u, grad);
    const logSigma = u[4 * k];
    const invVar = Math.exp(-2 * logSigma);
    const sums = weighting.censor === undefined && this.#fast ? this.#sumsOf(alpha) : null;
    if (sums !== null) {
      total += this.#nonzeroModel().logLikelihood(u, grad, weighting);
      // The amount part: the lognormal ℓ of the positive records from their sums, β = u[K..2K).
      return total + sumsDensity(sums, u, k, logSigma, invVar, grad, k, 4 * k);
    }
    let gSigma = 0;
    for (let i = 0; i < n; i++) {
      const a = alpha === null ? 1 : alpha[i];
      if (a === 0) continue;
      const s = sign[i];
      if (s !== s) {
        total += clampTerm(-Infinity, censor); // ℓ_i = −∞
        continue;
      }
      const etaG = linearPredictor(x, k, u, i, 0);
      const t = s * etaG;
      const e = Math.exp(-Math.abs(t));
      let l = logSigmoidFrom(t, e);
      let r = 0;
      let q = 0;
      if (s > 0) {
        const etaB = linearPredictor(x, k, u, i, k);
        r = z[i] - etaB;
        q = r * r * invVar;
        l += cst[i] - logSigma - 0.5 * q;
      }
      const c = a * l;
      total += clampTerm(c, censor);
      if (grad !== null && unclamped(c, censor)) {
        const g = a * s * sigmoidNegFrom(t, e);
        grad[0] += g;
        addCovariates(grad, 0, g, x, i, k);
        if (s > 0) {
          const gb = a * r * invVar;
          grad[k] += gb;
          addCovariates(grad, k, gb, x, i, k);
          gSigma += a * (q - 1);
        }
      }
    }
    if (grad !== null) grad[4 * k] += gSigma;
    return total;
  }

  /** The logistic model of 1[y_i > 0] (NaN, so ℓ_i = −∞, for a negative or non-finite y_i). */
  #nonzeroModel(): LogisticModel {
    this.#nonzero ??= new LogisticModel({
      n: this.n,
      k: this.k,
      x: this.#x,
      y: this.#s.map((s) => s === 1 ? 1 : s === -1 ? 0 : NaN),
      coefficientNames: this.design.coefficientNames,
    });
    return this.#nonzero;
  }

  /**
   * The Gaussian sums (`normal.ts`) of the positive records with weights α_i (null: all 1), read
   * once per α array, which an uncensored weighting never changes (`Weighting`).
   */
  #sumsOf(alpha: Float64Array | null): GaussianSums | null {
    const key = alpha ?? UNWEIGHTED_KEY;
    let sums = this.#sums.get(key);
    if (sums === undefined) {
      const sign = this.#s;
      const weights = sign.map((s, i) => s === 1 ? (alpha === null ? 1 : alpha[i]) : 0);
      sums = gaussianSums(this.#x, this.n, this.k, this.#z, this.#c, weights);
      this.#sums.set(key, sums);
    }
    return sums;
  }

  /** ℓ_i of the module doc (−∞ for a negative or non-finite outcome). */
  logLik(theta: Float64Array, out: Float64Array): Float64Array {
    this.checkRecordOutput(theta, out);
    const k = this.k;
    const x = this.#x;
    const sign = this.#s;
    const z = this.#z;
    const cst = this.#c;
    const sigma = theta[4 * k];
    const logSigma = Math.log(sigma);
    const halfInvVar = 0.5 / (sigma * sigma);
    for (let i = 0; i < this.n; i++) {
      const s = sign[i];
      if (s !== s) {
        out[i] = -Infinity;
        continue;
      }
      const t = s * linearPredictor(x, k, theta, i, 0);
      let l = logSigmoidFrom(t, Math.exp(-Math.abs(t)));
      if (s > 0) {
        const r = z[i] - linearPredictor(x, k, theta, i, k);
        l += cst[i] - logSigma - r * r * halfInvVar;
      }
      out[i] = l;
    }
    return out;
  }

  /** y*_i = 0 with probability 1 − p_i, else a draw from LogNormal(x_iᵀβ, σ²). */
  protected drawRecord(theta: Float64Array, rng: Rng, i: number): number {
    const p = sigmoid(linearPredictor(this.#x, this.k, theta, i, 0));
    return rng.uniform() < p
      ? sampleLognormal(rng, linearPredictor(this.#x, this.k, theta, i, this.k), theta[4 * this.k])
      : 0;
  }
}

/** Options of the hurdle model. */
export interface HurdleOptions {
  /** Uncensored densities from the two parts' fast paths (default true) or the record loop. */
  readonly fast?: boolean;
}

/** The cache key of the unweighted α (null cannot key a WeakMap). */
const UNWEIGHTED_KEY = {};

/**
 * The mark a zero outcome carries in the GPU Lipschitz kernel's second record constant
 * (shaders/lipschitz_hurdle.wgsl): a positive amount's −½·log 2π − log y is below 750 in size.
 */
const GPU_ZERO_MARK = 2 ** 64;

/**
 * The hurdle model's registry entry: non-negative outcomes; the GPU Lipschitz kernel (record
 * constants log y and −½·log 2π − log y for a positive amount, 0 and the zero mark for a zero).
 */
export const HURDLE = describeModel(
  "hurdle",
  "non-negative",
  (design) => new HurdleModel(design),
  {
    gpu: lipschitzKernel("hurdle", [
      (y) => y > 0 ? Math.log(y) : 0,
      (y) => y > 0 ? -HALF_LOG_2PI - Math.log(y) : GPU_ZERO_MARK,
    ]),
  },
);
