/**
 * What the survey models FBS and FBP (`fbs.ts`, `fbp.ts`) share besides their record terms: both
 * regress the log outcome and a log weight (FBS's log w, FBP's log π = −log w) on the same x with
 * two coefficient blocks and two scales sampled on the log scale, so
 *
 *     u = (coefficients[s], log σ_1, log σ_2, extra…),   s = the first scale's index,
 *
 * with the coefficients ~ N(0, 10²) independently and each scale σ ~ a half-Student-t
 * ({@linkcode HalfStudentT}). This base holds the data (log y, log w, w), the checks, the
 * transforms of the coefficients and scales, the coefficient and scale priors, the log density's
 * checks and censoring bound, and the outcome draw
 * y*_i = exp(x_iβ_y + σ_1 z_i) both models simulate. The record loops stay in each model, one
 * fused loop each (docs/decisions.md "The models' record loops call the clamp").
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { HALF_LOG_2PI } from "../stats/special.ts";
import { censorBound, checkLength, checkRecords, linearPredictor, logPositive } from "./_glm.ts";
import type { HalfStudentT } from "./glm_prior.ts";
import type { Design, MetricKind, Weighting } from "./model.ts";
import { type SurveyDraw, surveyLogs, type SurveyModel, type WeightLaw } from "./survey_model.ts";

/** The prior standard deviation 10 of both survey models' coefficients (N(0, 100 I)). */
export const SURVEY_COEFFICIENT_SD = 10;

/** −½·log(2π·10²), the coefficient prior's normalising constant. */
const COEF_LOG_NORM = -HALF_LOG_2PI - Math.log(SURVEY_COEFFICIENT_SD);
/** 1/10², the coefficient prior's precision. */
const COEF_INV_VAR = 1 / (SURVEY_COEFFICIENT_SD * SURVEY_COEFFICIENT_SD);

/** How a survey model lays out u: where its two scales start and their prior. */
export interface SurveyLayout {
  /** The model's name, for the messages. */
  readonly model: string;
  /** Names of θ's entries, in order. */
  readonly paramNames: readonly string[];
  /** Index of the first scale (σ_y); every entry before it is a coefficient. */
  readonly firstScale: number;
  /** The prior of both scales. */
  readonly scalePrior: HalfStudentT;
}

/**
 * The base of FBS and FBP (see the module); dim = 2K + 3 for K coefficients.
 */
export abstract class SurveyRegression implements SurveyModel {
  abstract readonly name: string;
  abstract readonly metric: MetricKind;
  readonly design: Design;
  readonly dim: number;
  readonly paramNames: readonly string[];
  /** Records n. */
  protected readonly n: number;
  /** Coefficients per block K (column 0 the intercept). */
  protected readonly k: number;
  /** The covariates, n×K row-major. */
  protected readonly x: Float64Array;
  /** log y_i. */
  protected readonly logY: Float64Array;
  /** log w_i. */
  protected readonly logW: Float64Array;
  /** w_i. */
  protected readonly weight: Float64Array;
  /** Index of the first scale σ_y. */
  protected readonly firstScale: number;
  readonly #scalePrior: HalfStudentT;

  /**
   * Binds the model to a dataset with survey weights, precomputing log y and log w.
   * @param design outcome (positive), covariates and `weight` (positive).
   * @param layout the model's parameters.
   */
  constructor(design: Design, layout: SurveyLayout) {
    const { logY, logW, weight } = surveyLogs(layout.model, design);
    this.design = design;
    this.n = design.n;
    this.k = design.k;
    this.x = design.x;
    this.logY = logY;
    this.logW = logW;
    this.weight = weight;
    this.dim = 2 * design.k + 3;
    this.paramNames = Object.freeze([...layout.paramNames]);
    this.firstScale = layout.firstScale;
    this.#scalePrior = layout.scalePrior;
  }

  /** θ_j = u_j for the coefficients, exp(u_j) for the two scales (the rest: the model's). */
  constrain(u: Float64Array, out: Float64Array = new Float64Array(this.dim)): Float64Array {
    checkLength("u", u, this.dim);
    checkLength("out", out, this.dim);
    const s = this.firstScale;
    for (let j = 0; j < s; j++) out[j] = u[j];
    out[s] = Math.exp(u[s]);
    out[s + 1] = Math.exp(u[s + 1]);
    return out;
  }

  /** The inverse of `constrain` for the coefficients and scales (positive); the rest: the model's. */
  unconstrain(theta: Float64Array, out: Float64Array = new Float64Array(this.dim)): Float64Array {
    checkLength("theta", theta, this.dim);
    checkLength("out", out, this.dim);
    const s = this.firstScale;
    for (let j = 0; j < s; j++) out[j] = theta[j];
    logPositive(theta, out, s, s + 2, this.paramNames);
    return out;
  }

  abstract initialPoint(): Float64Array;

  /**
   * The log prior with its log-Jacobian at u; writes (not adds) the gradient into `grad`:
   * Σ log N(· | 0, 10²) over the coefficients, −½·log(2π·100) − β²/200 each (gradient −β/100),
   * then the scales' half-Student-t terms (the rest: the model's).
   */
  protected logPrior(u: Float64Array, grad: Float64Array | null): number {
    const s = this.firstScale;
    const prior = this.#scalePrior;
    let total = 0;
    for (let j = 0; j < s; j++) {
      total += COEF_LOG_NORM - 0.5 * u[j] * u[j] * COEF_INV_VAR;
      if (grad !== null) grad[j] = -u[j] * COEF_INV_VAR;
    }
    for (let j = s; j < s + 2; j++) {
      total += prior.logDensity(u[j]);
      if (grad !== null) grad[j] = prior.gradient(u[j]);
    }
    return total;
  }

  /**
   * The start of `logDensity`: checks u (and `grad`) and returns the clamp C of the weighting
   * (Infinity: none). The model's `logDensity` then adds the log prior ({@link logPrior}) and its
   * records' terms in one fused loop.
   *
   * @param u the unconstrained point.
   * @param grad the gradient (null: none).
   * @param weighting α and the clamp.
   * @returns C.
   */
  protected densityCensor(
    u: Float64Array,
    grad: Float64Array | null,
    weighting: Weighting,
  ): number {
    checkLength("u", u, this.dim);
    if (grad !== null) checkLength("grad", grad, this.dim);
    return censorBound(weighting, this.n);
  }

  abstract logDensity(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number;

  abstract logLik(theta: Float64Array, out: Float64Array): Float64Array;

  /** y*_i = exp(ỹ*_i), ỹ*_i ~ N(x_iβ_y, σ_y²): the outcome's law in both models. */
  simulate(theta: Float64Array, rng: Rng, out: Float64Array): Float64Array {
    this.checkPerRecord(theta, out);
    const sy = theta[this.firstScale];
    for (let i = 0; i < this.n; i++) {
      out[i] = Math.exp(linearPredictor(this.x, this.k, theta, i, 0) + sy * rng.normal());
    }
    return out;
  }

  abstract simulateSurvey(
    theta: Float64Array,
    rng: Rng,
    out: SurveyDraw,
    weightTotal?: number,
  ): SurveyDraw;

  abstract weightLaw(theta: Float64Array, y: Float64Array): WeightLaw;

  /** Throws unless θ has length dim and `out` length n (`logLik`, `simulate`). */
  protected checkPerRecord(theta: Float64Array, out: Float64Array): void {
    checkLength("theta", theta, this.dim);
    checkRecords("out", out, this.n);
  }

  /** Throws unless θ has length dim and both of `out`'s arrays length n. */
  protected checkSurveyDraw(theta: Float64Array, out: SurveyDraw): void {
    checkLength("theta", theta, this.dim);
    checkRecords("out.y", out.y, this.n);
    checkRecords("out.w", out.w, this.n);
  }
}
