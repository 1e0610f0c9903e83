/**
 * Poisson regression (SPEC §5): y_i ~ Poisson(e^{η_i}), η_i = x_iᵀβ,
 * ℓ_i = y_i·η_i − e^{η_i} − log Γ(y_i + 1), with the coefficient prior of `glm_prior.ts`.
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { samplePoisson } from "../random/distributions.ts";
import {
  addCovariates,
  clampTerm,
  COUNT_RECORD,
  GlmModel,
  linearPredictor,
  meanVariance,
  singleBlock,
  unclamped,
} from "./_glm.ts";
import { describeModel, type Design, hmcKernels, type Weighting } from "./model.ts";
import { lgamma } from "../stats/special.ts";

/**
 * The Poisson regression model; θ = (β, σ_β).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PoissonModel } from "./poisson.ts";
 * const m = new PoissonModel({
 *   n: 1, k: 1, y: new Float64Array([2]), x: new Float64Array([1]), coefficientNames: ["intercept"],
 * });
 * const l = m.logLik(new Float64Array([0, 1]), new Float64Array(1));
 * assert.ok(Math.abs(l[0] - (-1 - Math.log(2))) < 1e-15);
 * ```
 */
export class PoissonModel extends GlmModel {
  readonly #y: Float64Array;
  readonly #x: Float64Array;
  /** log Γ(y_i + 1) per record. */
  readonly #lgy1: Float64Array;

  /**
   * Binds the model to a dataset and precomputes log Γ(y_i + 1).
   * @param design outcome (counts) and covariates.
   */
  constructor(design: Design) {
    super("poisson", design, null, singleBlock("log"));
    this.#y = design.y;
    this.#x = design.x;
    this.#lgy1 = design.y.map((y) => lgamma(y + 1));
  }

  /** β_1 = log(mean count), other coefficients 0, σ_β = 1. */
  initialPoint(): Float64Array {
    const { mean } = meanVariance(this.#y, (v) => v >= 0 && Number.isFinite(v));
    return this.startAt(Math.log(mean), NaN);
  }

  /** Σ_i c_i with c_i = clamp(α_i·ℓ_i, ±C), plus the prior; ∂ℓ_i/∂η_i = y_i − e^{η_i}. */
  logDensity(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number {
    const n = this.n;
    const k = this.k;
    const censor = this.densityArguments(u, grad, weighting);
    const alpha = weighting.alpha;
    const x = this.#x;
    const y = this.#y;
    const lgy1 = this.#lgy1;
    let total = this.logPrior(u, grad);
    let g0 = 0;
    let lastEta = NaN;
    let mu = NaN;
    for (let i = 0; i < n; i++) {
      const a = alpha === null ? 1 : alpha[i];
      if (a === 0) continue;
      const eta = linearPredictor(x, k, u, i, 0);
      if (eta !== lastEta) {
        lastEta = eta;
        mu = Math.exp(eta);
      }
      const yi = y[i];
      const c = a * (yi * eta - mu - lgy1[i]);
      total += clampTerm(c, censor);
      if (grad !== null && unclamped(c, censor)) {
        const g = a * (yi - mu);
        g0 += g;
        addCovariates(grad, 0, g, x, i, k);
      }
    }
    if (grad !== null) grad[0] += g0;
    return total;
  }

  /** ℓ_i = y_i·η_i − e^{η_i} − log Γ(y_i + 1). */
  logLik(theta: Float64Array, out: Float64Array): Float64Array {
    this.checkRecordOutput(theta, out);
    const n = this.n;
    const k = this.k;
    const x = this.#x;
    const y = this.#y;
    const lgy1 = this.#lgy1;
    let lastEta = NaN;
    let mu = NaN;
    for (let i = 0; i < n; i++) {
      const eta = linearPredictor(x, k, theta, i, 0);
      if (eta !== lastEta) {
        lastEta = eta;
        mu = Math.exp(eta);
      }
      out[i] = y[i] * eta - mu - lgy1[i];
    }
    return out;
  }

  /** y*_i ~ Poisson(e^{η_i}). */
  protected drawRecord(theta: Float64Array, rng: Rng, i: number): number {
    return samplePoisson(rng, Math.exp(linearPredictor(this.#x, this.k, theta, i, 0)));
  }
}

/** The Poisson model's registry entry: counts, the `poisson` GPU kernels. */
export const POISSON = describeModel("poisson", "count", (design) => new PoissonModel(design), {
  gpu: hmcKernels("poisson", COUNT_RECORD, null),
});
