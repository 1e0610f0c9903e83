/**
 * FBS, the fully Bayes model for the observed sample (survey paper §2.1, Appendix C; SPEC §5):
 * the log outcome and log weight of record i are bivariate normal,
 *
 *     (ỹ_i, w̃_i) = (log y_i, log w_i) ~ MVN₂((x_iβ_y, x_iβ_w), Σ),
 *     Σ = diag(σ_y, σ_w)·[[1, ρ], [ρ, 1]]·diag(σ_y, σ_w),
 *
 * with z₁ = (ỹ − x β_y)/σ_y, z₂ = (w̃ − x β_w)/σ_w, s = 1 − ρ², Q = z₁² − 2ρz₁z₂ + z₂²:
 *
 *     ℓ_i = −log 2π − log σ_y − log σ_w − ½·log s − Q/(2s),
 *     ∂ℓ/∂(xβ_y) = (z₁ − ρz₂)/(σ_y s),        ∂ℓ/∂(xβ_w) = (z₂ − ρz₁)/(σ_w s),
 *     ∂ℓ/∂log σ_y = z₁(z₁ − ρz₂)/s − 1,       ∂ℓ/∂log σ_w = z₂(z₂ − ρz₁)/s − 1,
 *     ∂ℓ/∂atanh ρ = ρ + z₁z₂ − ρQ/s.
 *
 * ℓ_i is the density of (log y_i, log w_i), as in the paper's Stan model: it leaves out the
 * Jacobian −log y_i − log w_i of the log transform. That term does not depend on θ, so the
 * posterior is the same; the Lipschitz bound changes by a data-dependent constant per record and
 * either version is a valid bound — this one matches the paper's.
 *
 * Priors: σ_y, σ_w ~ half-Student-t(3, 0, 10) and the correlation matrix ~ LKJ(6) (Appendix C),
 * for 2×2 a density ∝ (1 − ρ²)⁵ on ρ; the coefficients β_y,k, β_w,k ~ N(0, 10²) independently, the
 * prior of FBP (Appendix D), in place of Appendix C's per-coefficient scales σ_β,k ~ half-t(3, 0,
 * 10), each of which only one coefficient informs (a funnel NUTS cannot cross; docs/decisions.md
 * "FBS coefficients ~ N(0, 10²)"). Sampling on atanh ρ with Jacobian 1 − ρ² is, for 2×2, exactly
 * Stan's `cholesky_factor_corr` transform with `lkj_corr_cholesky(6)` (one canonical partial
 * correlation, ρ = tanh of it).
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { clampTerm, linearPredictor, unclamped } from "./_glm.ts";
import { SIGMA_PRIOR } from "./glm_prior.ts";
import { describeModel, lipschitzKernel } from "./model.ts";
import type { Design, MetricKind, Weighting } from "./model.ts";
import { HALF_LOG_2PI, lgamma } from "../stats/special.ts";
import {
  leastSquares,
  normaliseToTotal,
  residualSd,
  type SurveyDraw,
  type WeightLaw,
} from "./survey_model.ts";
import { SURVEY_COEFFICIENT_SD, SurveyRegression } from "./survey_regression.ts";

/** −log 2π, the bivariate normal's constant. */
const LOG_2PI_NEG = -2 * HALF_LOG_2PI;

/**
 * The prior standard deviation 10 of β_y and β_w: FBP's N(0, 100 I) of Appendix D
 * (docs/decisions.md "FBS coefficients ~ N(0, 10²)").
 */
export const FBS_COEFFICIENT_SD = SURVEY_COEFFICIENT_SD;

/** The LKJ shape η of the residual correlation (Appendix C: "a Cholesky factor of 6"). */
export const LKJ_ETA = 6;

/**
 * log(1 − tanh²v) = 2·(log 2 − |v| − log1p(e^{−2|v|})), exact where 1 − tanh²v rounds to 0.
 *
 * @param v the unconstrained correlation, ρ = tanh v.
 * @returns log(1 − ρ²).
 */
export function logOneMinusTanhSquared(v: number): number {
  const a = Math.abs(v);
  return 2 * (Math.LN2 - a - Math.log1p(Math.exp(-2 * a)));
}

/**
 * The 2×2 LKJ(η) prior on ρ = tanh v with its Jacobian dρ/dv = 1 − ρ², on the unconstrained v:
 *
 *     log p(ρ) + log(1 − ρ²) = log c_η + η·log(1 − ρ²),
 *     c_η = Γ(2η)/(Γ(η)²·2^{2η−1})   ((1 + ρ)/2 ~ Beta(η, η)),
 *
 * with derivative −2ηρ.
 *
 * @param v the unconstrained correlation.
 * @param eta the LKJ shape η > 0.
 * @returns the log density of v.
 * @example η = 6 at ρ = 0: c₆ = Γ(12)/(Γ(6)²·2¹¹) = 2772/2048
 * ```ts
 * import assert from "node:assert/strict";
 * import { lkj2LogDensity } from "./fbs.ts";
 * assert.ok(Math.abs(lkj2LogDensity(0, 6) - Math.log(2772 / 2048)) < 1e-14);
 * ```
 */
export function lkj2LogDensity(v: number, eta: number): number {
  const logC = lgamma(2 * eta) - 2 * lgamma(eta) - (2 * eta - 1) * Math.LN2;
  return logC + eta * logOneMinusTanhSquared(v);
}

/**
 * The FBS model; with K coefficients, dim = 2K + 3:
 *
 *     θ = (β_y[K], β_w[K], σ_y, σ_w, ρ),
 *     u = (β_y, β_w, log σ_y, log σ_w, atanh ρ).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FbsModel } from "./fbs.ts";
 * const m = new FbsModel({
 *   n: 1, k: 1, y: new Float64Array([1]), x: new Float64Array([1]),
 *   coefficientNames: ["intercept"], weight: new Float64Array([1]),
 * });
 * // At the means with ρ = 0 and unit scales: ℓ = −log 2π.
 * const l = m.logLik(new Float64Array([0, 0, 1, 1, 0]), new Float64Array(1));
 * assert.ok(Math.abs(l[0] + Math.log(2 * Math.PI)) < 1e-15);
 * ```
 */
export class FbsModel extends SurveyRegression {
  readonly name = "fbs";
  /** Dense: the two outcomes' coefficients are correlated; on an n = 1000 study sample it needs
   * about half the gradients of `diag` for a larger bulk ESS (docs/decisions.md). */
  readonly metric: MetricKind = FBS.metric;

  /**
   * Binds the model to a dataset with survey weights, precomputing log y and log w.
   * @param design outcome (positive), covariates and `weight` (positive).
   */
  constructor(design: Design) {
    const c = design.coefficientNames;
    super(design, {
      model: "fbs",
      paramNames: [
        ...c.map((name) => `beta_y_${name}`),
        ...c.map((name) => `beta_w_${name}`),
        "sigma_y",
        "sigma_w",
        "rho",
      ],
      firstScale: 2 * design.k,
      scalePrior: SIGMA_PRIOR,
    });
  }

  /** θ_j = u_j for β, exp(u_j) for σ_y and σ_w, tanh(u) for ρ. */
  override constrain(
    u: Float64Array,
    out: Float64Array = new Float64Array(this.dim),
  ): Float64Array {
    super.constrain(u, out);
    out[this.dim - 1] = Math.tanh(u[this.dim - 1]);
    return out;
  }

  /** The inverse of {@link FbsModel.constrain}; σ_y and σ_w must be positive and |ρ| < 1. */
  override unconstrain(
    theta: Float64Array,
    out: Float64Array = new Float64Array(this.dim),
  ): Float64Array {
    super.unconstrain(theta, out);
    const last = this.dim - 1;
    if (!(Math.abs(theta[last]) < 1)) {
      throw new RangeError(`Invalid rho: must lie in (−1, 1): rho=${theta[last]}`);
    }
    out[last] = Math.atanh(theta[last]);
    return out;
  }

  /**
   * Least squares of log y and log w on x for β_y and β_w, σ_y and σ_w the residual standard
   * deviations and ρ their correlation (clipped to ±0.9).
   */
  initialPoint(): Float64Array {
    const k = this.k;
    const fy = leastSquares(this.x, k, this.logY);
    const fw = leastSquares(this.x, k, this.logW);
    const sy = residualSd(fy.residual, k, 1);
    const sw = residualSd(fw.residual, k, 1);
    let cross = 0;
    let m = 0;
    for (let i = 0; i < this.n; i++) {
      const p = fy.residual[i] * fw.residual[i];
      if (Number.isFinite(p)) {
        cross += p;
        m++;
      }
    }
    const rho = m > k ? Math.max(-0.9, Math.min(0.9, cross / (m - k) / (sy * sw))) : 0;
    const u = new Float64Array(this.dim);
    u.set(fy.coef, 0);
    u.set(fw.coef, k);
    u[2 * k] = Math.log(sy);
    u[2 * k + 1] = Math.log(sw);
    u[2 * k + 2] = Math.atanh(Number.isFinite(rho) ? rho : 0);
    return u;
  }

  /**
   * The log prior with its log-Jacobian at u; writes (not adds) the gradient into `grad`: the
   * coefficients' N(0, 10²) and σ_y's and σ_w's half-t(3, 0, 10) terms (`SurveyRegression`), then
   * the LKJ(6) term of {@link lkj2LogDensity}.
   */
  protected override logPrior(u: Float64Array, grad: Float64Array | null): number {
    let total = super.logPrior(u, grad);
    const last = this.dim - 1;
    const v = u[last];
    total += lkj2LogDensity(v, LKJ_ETA);
    if (grad !== null) grad[last] = -2 * LKJ_ETA * Math.tanh(v);
    return total;
  }

  /** Σ_i clamp(α_i·ℓ_i, ±C) plus the priors, with the gradient of the module doc. */
  logDensity(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number {
    const censor = this.densityCensor(u, grad, weighting);
    const alpha = weighting.alpha;
    const n = this.n;
    const k = this.k;
    const x = this.x;
    const ly = this.logY;
    const lw = this.logW;
    let total = this.logPrior(u, grad);
    const logSy = u[2 * k];
    const logSw = u[2 * k + 1];
    const v = u[2 * k + 2];
    const rho = Math.tanh(v);
    const logS = logOneMinusTanhSquared(v);
    const invS = Math.exp(-logS);
    const invSy = Math.exp(-logSy);
    const invSw = Math.exp(-logSw);
    const c0 = LOG_2PI_NEG - logSy - logSw - 0.5 * logS;
    let gy0 = 0;
    let gw0 = 0;
    let gSy = 0;
    let gSw = 0;
    let gV = 0;
    for (let i = 0, off = 0; i < n; i++, off += k) {
      const a = alpha === null ? 1 : alpha[i];
      if (a === 0) continue;
      let my = u[0];
      let mw = u[k];
      for (let j = 1; j < k; j++) {
        my += x[off + j] * u[j];
        mw += x[off + j] * u[k + j];
      }
      const z1 = (ly[i] - my) * invSy;
      const z2 = (lw[i] - mw) * invSw;
      const d1 = z1 - rho * z2;
      const d2 = z2 - rho * z1;
      const q = z1 * d1 + z2 * d2;
      const c = a * (c0 - 0.5 * q * invS);
      total += clampTerm(c, censor);
      if (grad !== null && unclamped(c, censor)) {
        const gy = a * d1 * invS * invSy;
        const gw = a * d2 * invS * invSw;
        gy0 += gy;
        gw0 += gw;
        for (let j = 1; j < k; j++) {
          grad[j] += gy * x[off + j];
          grad[k + j] += gw * x[off + j];
        }
        gSy += a * (z1 * d1 * invS - 1);
        gSw += a * (z2 * d2 * invS - 1);
        gV += a * (rho + z1 * z2 - rho * q * invS);
      }
    }
    if (grad !== null) {
      grad[0] += gy0;
      grad[k] += gw0;
      grad[2 * k] += gSy;
      grad[2 * k + 1] += gSw;
      grad[2 * k + 2] += gV;
    }
    return total;
  }

  /** ℓ_i = −log 2π − log σ_y − log σ_w − ½·log(1 − ρ²) − Q_i/(2(1 − ρ²)). */
  logLik(theta: Float64Array, out: Float64Array): Float64Array {
    this.checkPerRecord(theta, out);
    const k = this.k;
    const x = this.x;
    const sy = theta[2 * k];
    const sw = theta[2 * k + 1];
    const rho = theta[2 * k + 2];
    const s = (1 - rho) * (1 + rho);
    const c0 = LOG_2PI_NEG - Math.log(sy) - Math.log(sw) - 0.5 * Math.log(s);
    for (let i = 0, off = 0; i < this.n; i++, off += k) {
      let my = theta[0];
      let mw = theta[k];
      for (let j = 1; j < k; j++) {
        my += x[off + j] * theta[j];
        mw += x[off + j] * theta[k + j];
      }
      const z1 = (this.logY[i] - my) / sy;
      const z2 = (this.logW[i] - mw) / sw;
      out[i] = c0 - (z1 * z1 - 2 * rho * z1 * z2 + z2 * z2) / (2 * s);
    }
    return out;
  }

  /**
   * y*_i as {@link FbsModel.simulate} (the same draws from the same `rng` state) and the smoothed
   * weight w*_i = exp(E(w̃ | ỹ*_i)) = exp(x_iβ_w + ρ(ỹ*_i − x_iβ_y)σ_w/σ_y) (SPEC §5), scaled so
   * Σ w*_i = `weightTotal` when one is given ({@link normaliseToTotal}; the paper's Table 2).
   * exp(E(w̃ | ỹ)) is the lognormal's median, so unscaled Σ w* falls short of Σ w by about
   * e^{−σ²_{w|y}/2}.
   */
  simulateSurvey(theta: Float64Array, rng: Rng, out: SurveyDraw, weightTotal?: number): SurveyDraw {
    this.checkSurveyDraw(theta, out);
    const k = this.k;
    const sy = theta[2 * k];
    const slope = theta[2 * k + 2] * theta[2 * k + 1];
    for (let i = 0; i < this.n; i++) {
      const z = rng.normal();
      out.y[i] = Math.exp(linearPredictor(this.x, this.k, theta, i, 0) + sy * z);
      out.w[i] = linearPredictor(this.x, this.k, theta, i, k) + slope * z;
    }
    if (weightTotal !== undefined) normaliseToTotal(out.w, weightTotal, out.w);
    else for (let i = 0; i < this.n; i++) out.w[i] = Math.exp(out.w[i]);
    return out;
  }

  /**
   * w̃*_i | ỹ*_i ~ N(x_iβ_w + ρσ_w(log y*_i − x_iβ_y)/σ_y, σ_w²(1 − ρ²)), the bivariate normal's
   * conditional law of the log weight.
   */
  weightLaw(theta: Float64Array, y: Float64Array): WeightLaw {
    const [k, x] = [this.k, this.x];
    const [sy, sw, rho] = [theta[2 * k], theta[2 * k + 1], theta[2 * k + 2]];
    return {
      mean: (i) =>
        linearPredictor(x, k, theta, i, k) +
        rho * sw * ((Math.log(y[i]) - linearPredictor(x, k, theta, i, 0)) / sy),
      scale: sw * Math.sqrt(1 - rho * rho),
    };
  }
}

/**
 * The FBS model's registry entry: positive outcomes with survey weights; the GPU Lipschitz kernel
 * (shaders/lipschitz_fbs.wgsl, record constants log y and log w), no GPU HMC.
 */
export const FBS = describeModel("fbs", "positive", (design) => new FbsModel(design), {
  metric: "dense",
  gpu: lipschitzKernel("fbs", [(y) => Math.log(y), (_, w) => Math.log(w)]),
});
