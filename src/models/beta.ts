/**
 * Beta regression (SPEC §5) for y ∈ (0, 1): μ = logit⁻¹(η), y ~ Beta(μφ, (1−μ)φ), with the
 * coefficient prior of `glm_prior.ts` and 1/φ ~ half-Cauchy(0, 5) (the negative binomial's
 * prior on its reciprocal dispersion), sampled on u = log(1/φ).
 *
 *     ℓ = log Γ(φ) − log Γ(μφ) − log Γ((1−μ)φ) + (μφ − 1)·log y + ((1−μ)φ − 1)·log(1 − y),
 *     ∂ℓ/∂η = φ·μ(1−μ)·[ψ((1−μ)φ) − ψ(μφ) + log y − log(1 − y)],
 *     ∂ℓ/∂φ = ψ(φ) − μ·ψ(μφ) − (1−μ)·ψ((1−μ)φ) + μ·log y + (1−μ)·log(1 − y),  ∂ℓ/∂u = −φ·∂ℓ/∂φ.
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { sampleBeta } from "../random/distributions.ts";
import {
  addCovariates,
  clampTerm,
  GlmModel,
  linearPredictor,
  meanVariance,
  singleBlock,
  unclamped,
} from "./_glm.ts";
import { RECIPROCAL_PHI_PRIOR } from "./glm_prior.ts";
import { describeModel, type Design, hmcKernels, type Weighting } from "./model.ts";
import { digamma, lgamma, sigmoid } from "../stats/special.ts";

/**
 * The beta regression model; θ = (β, σ_β, φ), u = (β, log σ_β, log(1/φ)).
 *
 * @example Beta(1, 1) is uniform: ℓ = 0 at μ = ½, φ = 2
 * ```ts
 * import assert from "node:assert/strict";
 * import { BetaModel } from "./beta.ts";
 * const m = new BetaModel({
 *   n: 1, k: 1, y: new Float64Array([0.3]), x: new Float64Array([1]), coefficientNames: ["intercept"],
 * });
 * const l = m.logLik(new Float64Array([0, 1, 2]), new Float64Array(1));
 * assert.ok(Math.abs(l[0]) < 1e-14);
 * ```
 */
export class BetaModel extends GlmModel {
  readonly #y: Float64Array;
  readonly #x: Float64Array;
  /** log y_i per record. */
  readonly #logY: Float64Array;
  /** log(1 − y_i) per record. */
  readonly #log1mY: Float64Array;

  /**
   * Binds the model to a dataset and precomputes log y_i and log(1 − y_i).
   * @param design outcome (in (0, 1)) and covariates.
   */
  constructor(design: Design) {
    super(
      "beta",
      design,
      { name: "phi", sign: -1, prior: RECIPROCAL_PHI_PRIOR },
      singleBlock("logit"),
    );
    this.#y = design.y;
    this.#x = design.x;
    this.#logY = design.y.map(Math.log);
    this.#log1mY = design.y.map((v) => Math.log1p(-v));
  }

  /** β_1 = logit(mean), σ_β = 1, φ = mean(1 − mean)/variance − 1 (the moment estimate; 1 if none). */
  initialPoint(): Float64Array {
    const { mean, variance } = meanVariance(this.#y, (v) => v > 0 && v < 1);
    const phi = (mean * (1 - mean)) / variance - 1;
    return this.startAt(Math.log(mean / (1 - mean)), phi > 0 ? phi : 1);
  }

  /** Σ_i clamp(α_i·ℓ_i, ±C) plus the priors, with the gradient of the module doc. */
  logDensity(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number {
    const n = this.n;
    const k = this.k;
    const censor = this.densityArguments(u, grad, weighting);
    const alpha = weighting.alpha;
    const x = this.#x;
    const logY = this.#logY;
    const log1mY = this.#log1mY;
    const withGrad = grad !== null;
    let total = this.logPrior(u, grad);
    const phi = Math.exp(-u[2 * k]);
    const lgPhi = lgamma(phi);
    const psiPhi = withGrad ? digamma(phi) : 0;
    let g0 = 0;
    let gPhi = 0;
    let lastEta = NaN;
    let mu = NaN;
    let nu = NaN;
    let a1 = NaN;
    let b1 = NaN;
    let lConst = NaN;
    let etaScale = NaN;
    let psiGap = NaN;
    let phiConst = NaN;
    for (let i = 0; i < n; i++) {
      const a = alpha === null ? 1 : alpha[i];
      if (a === 0) continue;
      const eta = linearPredictor(x, k, u, i, 0);
      if (eta !== lastEta) {
        lastEta = eta;
        mu = sigmoid(eta);
        nu = sigmoid(-eta);
        const p = mu * phi;
        const q = nu * phi;
        a1 = p - 1;
        b1 = q - 1;
        lConst = lgPhi - lgamma(p) - lgamma(q);
        if (withGrad) {
          const psiP = digamma(p);
          const psiQ = digamma(q);
          etaScale = phi * mu * nu;
          psiGap = psiQ - psiP;
          phiConst = psiPhi - mu * psiP - nu * psiQ;
        }
      }
      const ly = logY[i];
      const l1y = log1mY[i];
      const c = a * (lConst + a1 * ly + b1 * l1y);
      total += clampTerm(c, censor);
      if (withGrad && unclamped(c, censor)) {
        const g = a * etaScale * (psiGap + ly - l1y);
        g0 += g;
        addCovariates(grad, 0, g, x, i, k);
        gPhi -= a * phi * (phiConst + mu * ly + nu * l1y);
      }
    }
    if (withGrad) {
      grad[0] += g0;
      grad[2 * k] += gPhi;
    }
    return total;
  }

  /** ℓ_i = log Γ(φ) − log Γ(μφ) − log Γ((1−μ)φ) + (μφ − 1)·log y + ((1−μ)φ − 1)·log(1 − y). */
  logLik(theta: Float64Array, out: Float64Array): Float64Array {
    this.checkRecordOutput(theta, out);
    const n = this.n;
    const k = this.k;
    const x = this.#x;
    const logY = this.#logY;
    const log1mY = this.#log1mY;
    const phi = theta[2 * k];
    const lgPhi = lgamma(phi);
    let lastEta = NaN;
    let a1 = NaN;
    let b1 = NaN;
    let lConst = NaN;
    for (let i = 0; i < n; i++) {
      const eta = linearPredictor(x, k, theta, i, 0);
      if (eta !== lastEta) {
        lastEta = eta;
        const p = sigmoid(eta) * phi;
        const q = sigmoid(-eta) * phi;
        a1 = p - 1;
        b1 = q - 1;
        lConst = lgPhi - lgamma(p) - lgamma(q);
      }
      out[i] = lConst + a1 * logY[i] + b1 * log1mY[i];
    }
    return out;
  }

  /** y*_i ~ Beta(μ_iφ, (1−μ_i)φ). */
  protected drawRecord(theta: Float64Array, rng: Rng, i: number): number {
    const eta = linearPredictor(this.#x, this.k, theta, i, 0);
    const phi = theta[2 * this.k];
    return sampleBeta(rng, sigmoid(eta) * phi, sigmoid(-eta) * phi);
  }
}

/** Beta regression's registry entry: values in (0, 1), the `beta` GPU kernels. */
export const BETA = describeModel("beta", "unit-interval", (design) => new BetaModel(design), {
  gpu: hmcKernels("beta", [Math.log, (y) => Math.log1p(-y)], RECIPROCAL_PHI_PRIOR),
});
