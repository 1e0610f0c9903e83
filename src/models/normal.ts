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
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { sampleNormal } from "../random/distributions.ts";
import { censorBound, GlmModel, linearPredictor, meanVariance } from "./_glm.ts";
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

  /**
   * Binds a Gaussian regression to a dataset through its normal-scale response.
   * @param name the model's name.
   * @param design outcome and covariates.
   * @param z the response on the normal scale, length n.
   * @param c the per-record constant of ℓ_i, length n.
   * @param scale "identity" when z is the outcome itself (normal), "log" for its logarithm.
   */
  constructor(
    name: string,
    design: Design,
    z: Float64Array,
    c: Float64Array,
    scale: PredictorScale,
  ) {
    super(name, design, { name: "sigma", sign: 1, prior: SIGMA_PRIOR }, scale);
    this.z = z;
    this.#c = c;
    this.x = design.x;
  }

  /** β_1 = mean of z, other coefficients 0, σ_β = 1, σ = standard deviation of z (1 if none). */
  initialPoint(): Float64Array {
    const { mean, variance } = meanVariance(this.z, Number.isFinite);
    return this.startAt(mean, variance > 0 ? Math.sqrt(variance) : 1);
  }

  /** Σ_i clamp(α_i·ℓ_i, ±C) plus the priors, with the gradient of the module doc. */
  logDensity(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number {
    this.checkLength("u", u);
    if (grad !== null) this.checkLength("grad", grad);
    const n = this.n;
    const k = this.k;
    const censor = censorBound(weighting, n);
    const alpha = weighting.alpha;
    const x = this.x;
    const z = this.z;
    const cst = this.#c;
    let total = this.logPrior(u, grad);
    const logSigma = u[2 * k];
    const invVar = Math.exp(-2 * logSigma);
    const b0 = u[0];
    let g0 = 0;
    let gSigma = 0;
    for (let i = 0, off = 0; i < n; i++, off += k) {
      const a = alpha === null ? 1 : alpha[i];
      if (a === 0) continue;
      let eta = b0;
      for (let j = 1; j < k; j++) eta += x[off + j] * u[j];
      const r = z[i] - eta;
      const q = r * r * invVar;
      const c = a * (cst[i] - logSigma - 0.5 * q);
      if (c > censor || c < -censor) {
        total += c > 0 ? censor : -censor;
      } else {
        total += c;
        if (grad !== null) {
          const g = a * r * invVar;
          g0 += g;
          for (let j = 1; j < k; j++) grad[j] += g * x[off + j];
          gSigma += a * (q - 1);
        }
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
    this.checkLength("theta", theta);
    this.checkRecords("out", out);
    const k = this.k;
    const x = this.x;
    const z = this.z;
    const cst = this.#c;
    const sigma = theta[2 * k];
    const logSigma = Math.log(sigma);
    const halfInvVar = 0.5 / (sigma * sigma);
    for (let i = 0, off = 0; i < this.n; i++, off += k) {
      let eta = theta[0];
      for (let j = 1; j < k; j++) eta += x[off + j] * theta[j];
      const r = z[i] - eta;
      out[i] = cst[i] - logSigma - r * r * halfInvVar;
    }
    return out;
  }

  /** The linear predictor η_i = x_iᵀβ of record i at θ. */
  protected eta(theta: Float64Array, i: number): number {
    return linearPredictor(this.x, this.k, theta, i, 0);
  }
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
   */
  constructor(design: Design) {
    super("normal", design, design.y, new Float64Array(design.n).fill(-HALF_LOG_2PI), "identity");
  }

  /** y*_i ~ N(η_i, σ²). */
  simulate(theta: Float64Array, rng: Rng, out: Float64Array): Float64Array {
    this.checkLength("theta", theta);
    this.checkRecords("out", out);
    const sigma = theta[2 * this.k];
    for (let i = 0; i < this.n; i++) out[i] = sampleNormal(rng, this.eta(theta, i), sigma);
    return out;
  }
}

/** The normal model's registry entry: any real outcome, the Gaussian GPU kernels on y. */
export const NORMAL = describeModel("normal", "real", (design) => new NormalModel(design), {
  gpu: hmcKernels("gaussian", [(y) => y, () => -HALF_LOG_2PI], SIGMA_PRIOR),
});
