/**
 * FBP, the fully Bayes model for the population (survey paper §2.2, eq. 4–6, Appendix D; Leon-Novelo
 * & Savitsky 2019; SPEC §5). With ỹ = log y and inclusion probability π = 1/w, the population
 * model is ỹ | x ~ N(xβ, σ_y²) and π | ỹ, x ~ LogNormal(κ_y ỹ + xκ_x, σ_π²); the likelihood of
 * the observed sample (eq. 6, taken as a density of (log y, log π)), with η = xβ, ξ = xκ_x,
 * r_y = ỹ − η, r_π = log π − κ_y ỹ − ξ, is
 *
 *     ℓ_i = log N(log π_i | κ_y ỹ_i + ξ_i, σ_π²) − (ξ_i + σ_π²/2 + κ_y η_i + κ_y²σ_y²/2)
 *           + log N(ỹ_i | η_i, σ_y²) + log π_i,
 *     ∂ℓ/∂η = r_y/σ_y² − κ_y,    ∂ℓ/∂ξ = r_π/σ_π² − 1,    ∂ℓ/∂κ_y = r_π ỹ/σ_π² − η − κ_y σ_y²,
 *     ∂ℓ/∂log σ_y = r_y²/σ_y² − 1 − κ_y²σ_y²,    ∂ℓ/∂log σ_π = r_π²/σ_π² − 1 − σ_π².
 *
 * ℓ_i is the sample density of (ỹ_i, log π_i): the population's bivariate normal tilted by
 * e^{log π}, i.e. ỹ ~ N(η + κ_yσ_y², σ_y²), log π | ỹ ~ N(κ_y ỹ + ξ + σ_π², σ_π²). Eq. (6) as
 * printed is the density of (ỹ, π), which is ours less log π_i: the same posterior, but a Δ that
 * moves by |log c| when every weight is multiplied by c. On the log scale (as FBS's (log y, log w))
 * rescaling the weights only shifts κ_x's intercept, so Δ and ε do not depend on the weights'
 * units (docs/decisions.md).
 *
 * Priors (Appendix D): β ~ N(0, 100 I), (κ_y, κ_x) ~ N(0, 100 I), σ_y, σ_π ~ half-Cauchy(0, 1),
 * the scales sampled on the log scale.
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { clampTerm, linearPredictor, unclamped } from "./_glm.ts";
import { HalfStudentT } from "./glm_prior.ts";
import { describeModel, lipschitzKernel } from "./model.ts";
import type { Design, MetricKind, Weighting } from "./model.ts";
import { HALF_LOG_2PI } from "../stats/special.ts";
import {
  leastSquares,
  normaliseToTotal,
  residualSd,
  type SurveyDraw,
  type WeightLaw,
} from "./survey_model.ts";
import { SURVEY_COEFFICIENT_SD, SurveyRegression } from "./survey_regression.ts";

/** The prior standard deviation 10 of β, κ_y and κ_x (Appendix D: N(0, 100 I)). */
export const FBP_COEFFICIENT_SD = SURVEY_COEFFICIENT_SD;

/** The prior σ_y, σ_π ~ half-Cauchy(0, 1) (Appendix D, eq. 19). */
export const FBP_SCALE_PRIOR: HalfStudentT = new HalfStudentT(1, 1);

/**
 * The FBP model; with K coefficients, dim = 2K + 3:
 *
 *     θ = (β[K], κ_y, κ_x[K], σ_y, σ_π),   u = (β, κ_y, κ_x, log σ_y, log σ_π).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FbpModel } from "./fbp.ts";
 * const m = new FbpModel({
 *   n: 1, k: 1, y: new Float64Array([1]), x: new Float64Array([1]),
 *   coefficientNames: ["intercept"], weight: new Float64Array([1]),
 * });
 * // ỹ = log π = 0 at β = κ = 0, σ_y = σ_π = 1: ℓ = −log 2π − ½.
 * const l = m.logLik(new Float64Array([0, 0, 0, 1, 1]), new Float64Array(1));
 * assert.ok(Math.abs(l[0] + Math.log(2 * Math.PI) + 0.5) < 1e-15);
 * ```
 */
export class FbpModel extends SurveyRegression {
  readonly name = "fbp";
  /** Dense: β, κ_y and κ_x are strongly correlated; on an n = 1000 study sample it needs about
   * 40% of the gradients of `diag` for a larger bulk ESS (docs/decisions.md). */
  readonly metric: MetricKind = FBP.metric;
  /** log π_i = −log w_i. */
  readonly #logPi: Float64Array;

  /**
   * Binds the model to a dataset with survey weights, precomputing log y and log π = −log w.
   * @param design outcome (positive), covariates and `weight` (positive).
   */
  constructor(design: Design) {
    const c = design.coefficientNames;
    super(design, {
      model: "fbp",
      paramNames: [
        ...c.map((name) => `beta_${name}`),
        "kappa_y",
        ...c.map((name) => `kappa_x_${name}`),
        "sigma_y",
        "sigma_pi",
      ],
      firstScale: 2 * design.k + 1,
      scalePrior: FBP_SCALE_PRIOR,
    });
    this.#logPi = this.logW.map((v) => -v);
  }

  /**
   * Moment estimates under the tilted sample model of the module doc: least squares of ỹ on x
   * gives β (its intercept minus κ_y σ_y²) and σ_y; least squares of log π on (ỹ, x) gives κ_y,
   * κ_x (its intercept minus σ_π²) and σ_π.
   */
  initialPoint(): Float64Array {
    const n = this.n;
    const k = this.k;
    const fy = leastSquares(this.x, k, this.logY);
    const sy = residualSd(fy.residual, k, 1);
    const a = new Float64Array(n * (k + 1));
    for (let i = 0; i < n; i++) {
      a[i * (k + 1)] = this.logY[i];
      for (let j = 0; j < k; j++) a[i * (k + 1) + 1 + j] = this.x[i * k + j];
    }
    const fp = leastSquares(a, k + 1, this.#logPi);
    const sp = residualSd(fp.residual, k + 1, 1);
    const u = new Float64Array(this.dim);
    for (let j = 0; j <= k; j++) u[k + j] = fp.coef[j];
    for (let j = 0; j < k; j++) u[j] = fy.coef[j];
    u[0] -= u[k] * sy * sy;
    u[k + 1] -= sp * sp;
    u[2 * k + 1] = Math.log(sy);
    u[2 * k + 2] = Math.log(sp);
    for (let j = 0; j < this.dim; j++) if (!Number.isFinite(u[j])) u[j] = 0;
    return u;
  }

  /** Σ_i clamp(α_i·ℓ_i, ±C) plus the priors, with the gradient of the module doc. */
  logDensity(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number {
    const censor = this.densityCensor(u, grad, weighting);
    const alpha = weighting.alpha;
    const n = this.n;
    const k = this.k;
    const x = this.x;
    const ly = this.logY;
    const lp = this.#logPi;
    let total = this.logPrior(u, grad);
    const kappaY = u[k];
    const logSy = u[2 * k + 1];
    const logSp = u[2 * k + 2];
    const varY = Math.exp(2 * logSy);
    const varP = Math.exp(2 * logSp);
    const invVarY = 1 / varY;
    const invVarP = 1 / varP;
    const kappa2VarY = kappaY * kappaY * varY;
    const c0 = -2 * HALF_LOG_2PI - logSy - logSp - 0.5 * varP - 0.5 * kappa2VarY;
    let gEta0 = 0;
    let gXi0 = 0;
    let gKappaY = 0;
    let gSy = 0;
    let gSp = 0;
    for (let i = 0, off = 0; i < n; i++, off += k) {
      const a = alpha === null ? 1 : alpha[i];
      if (a === 0) continue;
      let eta = u[0];
      let xi = u[k + 1];
      for (let j = 1; j < k; j++) {
        eta += x[off + j] * u[j];
        xi += x[off + j] * u[k + 1 + j];
      }
      const yi = ly[i];
      const ry = yi - eta;
      const rp = lp[i] - kappaY * yi - xi;
      const qy = ry * ry * invVarY;
      const qp = rp * rp * invVarP;
      const c = a * (c0 - 0.5 * (qy + qp) - xi - kappaY * eta + lp[i]);
      total += clampTerm(c, censor);
      if (grad !== null && unclamped(c, censor)) {
        const gEta = a * (ry * invVarY - kappaY);
        const gXi = a * (rp * invVarP - 1);
        gEta0 += gEta;
        gXi0 += gXi;
        for (let j = 1; j < k; j++) {
          grad[j] += gEta * x[off + j];
          grad[k + 1 + j] += gXi * x[off + j];
        }
        gKappaY += a * (rp * yi * invVarP - eta - kappaY * varY);
        gSy += a * (qy - 1 - kappa2VarY);
        gSp += a * (qp - 1 - varP);
      }
    }
    if (grad !== null) {
      grad[0] += gEta0;
      grad[k] += gKappaY;
      grad[k + 1] += gXi0;
      grad[2 * k + 1] += gSy;
      grad[2 * k + 2] += gSp;
    }
    return total;
  }

  /** ℓ_i of eq. (6) on the (log y, log π) scale, as in the module doc. */
  logLik(theta: Float64Array, out: Float64Array): Float64Array {
    this.checkPerRecord(theta, out);
    const k = this.k;
    const kappaY = theta[k];
    const sy = theta[2 * k + 1];
    const sp = theta[2 * k + 2];
    const c0 = -2 * HALF_LOG_2PI - Math.log(sy) - Math.log(sp) - 0.5 * sp * sp -
      0.5 * kappaY * kappaY * sy * sy;
    for (let i = 0; i < this.n; i++) {
      const eta = linearPredictor(this.x, this.k, theta, i, 0);
      const xi = linearPredictor(this.x, this.k, theta, i, k + 1);
      const yi = this.logY[i];
      const ry = (yi - eta) / sy;
      const rp = (this.#logPi[i] - kappaY * yi - xi) / sp;
      out[i] = c0 - 0.5 * (ry * ry + rp * rp) - xi - kappaY * eta + this.#logPi[i];
    }
    return out;
  }

  /**
   * y*_i as {@link FbpModel.simulate} (the same draws from the same `rng` state) and smoothed
   * weights from only the κ_y ỹ* component of eq. (5)'s mean: π*_i ∝ e^{κ_y ỹ*_i}, so
   * w*_i ∝ e^{−κ_y ỹ*_i}, scaled so Σ w*_i = `weightTotal` ({@link normaliseToTotal}). It
   * should be PUBLIC; without it the total is the confidential Σ_i w_i, which discloses it.
   */
  simulateSurvey(
    theta: Float64Array,
    rng: Rng,
    out: SurveyDraw,
    weightTotal?: number,
  ): SurveyDraw {
    this.checkSurveyDraw(theta, out);
    const kappaY = theta[this.k];
    const sy = theta[2 * this.k + 1];
    for (let i = 0; i < this.n; i++) {
      const ly = linearPredictor(this.x, this.k, theta, i, 0) + sy * rng.normal();
      out.y[i] = Math.exp(ly);
      out.w[i] = -kappaY * ly;
    }
    normaliseToTotal(out.w, weightTotal ?? this.weight.reduce((s, w) => s + w, 0), out.w);
    return out;
  }

  /**
   * log π*_i ~ N(κ_y log y*_i + x_iᵀκ_x, σ_π²) (eq. 5, every component of the mean), so
   * log w*_i = −log π*_i = −(κ_y log y*_i + x_iᵀκ_x) − σ_π z_i.
   */
  weightLaw(theta: Float64Array, y: Float64Array): WeightLaw {
    const [k, x] = [this.k, this.x];
    return {
      mean: (i) => -theta[k] * Math.log(y[i]) - linearPredictor(x, k, theta, i, k + 1),
      scale: -theta[2 * k + 2],
    };
  }
}

/**
 * The FBP model's registry entry: positive outcomes with survey weights; the GPU Lipschitz kernel
 * (shaders/lipschitz_fbp.wgsl, record constants log y and log π = −log w), no GPU HMC.
 */
export const FBP = describeModel("fbp", "positive", (design) => new FbpModel(design), {
  metric: "dense",
  gpu: lipschitzKernel("fbp", [(y) => Math.log(y), (_, w) => -Math.log(w)]),
});
