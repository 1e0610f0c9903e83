/**
 * The contract of the survey models FBS and FBP (SPEC §5, survey paper §2.1–2.3), which model an
 * outcome jointly with the survey weights and synthesise both, and the pieces both share: the
 * design check (a `weight` column is required) and the least-squares fits their starting points
 * come from.
 *
 * @module
 */
import { validateDesign } from "./_glm.ts";
import type { Rng } from "../random/rng.ts";
import { choleskyKeeping, choleskySolve } from "../stats/cholesky.ts";
import type { Design, Model } from "./model.ts";

/** One synthetic survey sample: outcomes y*_i and smoothed weights w*_i, each of length n. */
export interface SurveyDraw {
  readonly y: Float64Array;
  readonly w: Float64Array;
}

/** A model of an outcome and its survey weights that synthesises both (survey paper §2.1, §2.2). */
export interface SurveyModel extends Model {
  /**
   * Draws a synthetic outcome y*_i and a smoothed weight w*_i for every record at constrained θ,
   * writing `out.y` and `out.w` (length n each) and returning `out`. With `weightTotal` the
   * weights are scaled so Σ w*_i = weightTotal (the survey paper's normalisation, §2.2: "w* ∝
   * 1/π*, the ∝ is used to account for normalization"; its Table 2 prints FBS's and FBP's
   * all-fields totals equal to the sample's Σ w_i). It must be PUBLIC (the owner's declared
   * population size) wherever the release is private.
   */
  simulateSurvey(theta: Float64Array, rng: Rng, out: SurveyDraw, weightTotal?: number): SurveyDraw;
  /**
   * The model's conditional law of the log weight given a synthetic outcome y*_i and x_i at
   * constrained θ (the survey paper's synthesised weights, Figures 8–9, beside the smoothed
   * ones): log w*_i = mean(i) + scale·z_i, z_i ~ N(0, 1) ({@linkcode synthesizeWeights}).
   *
   * @param theta constrained θ.
   * @param y the synthetic outcomes y*_i (length n, positive).
   */
  weightLaw(theta: Float64Array, y: Float64Array): WeightLaw;
}

/** A conditional law of the log weights: a mean per record and one scale. */
export interface WeightLaw {
  readonly mean: (i: number) => number;
  /** The standard deviation, negative where the model draws −(log w − mean) (FBP's π = 1/w). */
  readonly scale: number;
}

/**
 * Synthesised weights for synthetic outcomes y*: w*_i = e^{a_i}, a_i = mean(i) + scale·z_i with
 * z_i ~ N(0, 1) independently from the model's {@linkcode SurveyModel.weightLaw}, scaled so
 * Σ w*_i = `total` ({@linkcode normaliseToTotal}).
 *
 * @param model the survey model.
 * @param theta constrained θ.
 * @param y the synthetic outcomes y*_i (length n, positive).
 * @param rng the stream of the draws.
 * @param total the total the weights are scaled to.
 * @param out where w* goes (length n).
 * @returns `out`.
 */
export function synthesizeWeights(
  model: SurveyModel,
  theta: Float64Array,
  y: Float64Array,
  rng: Rng,
  total: number,
  out: Float64Array,
): Float64Array {
  const n = model.design.n;
  if (theta.length !== model.dim) {
    throw new RangeError(`Invalid theta: must have length ${model.dim}: length=${theta.length}`);
  }
  if (y.length !== n || out.length !== n) {
    throw new RangeError(`Invalid y or out: must have length n=${n}: ${y.length}, ${out.length}`);
  }
  const { mean, scale } = model.weightLaw(theta, y);
  for (let i = 0; i < n; i++) out[i] = mean(i) + scale * rng.normal();
  return normaliseToTotal(out, total, out);
}

/**
 * Scales the weights e^{a_i} so they sum to `total`, exactly for any spread of the a_i:
 *
 *     w_i = total · e^{a_i − a_max} / Σ_j e^{a_j − a_max}.
 *
 * @param logWeight a_i, length n (may be `out` itself).
 * @param total the positive, finite total.
 * @param out where w goes, length n.
 * @returns `out`.
 * @example Two records with a = (0, log 3) and total 8: w = (2, 6)
 * ```ts
 * import assert from "node:assert/strict";
 * import { normaliseToTotal } from "./survey_model.ts";
 * const w = normaliseToTotal(Float64Array.of(0, Math.log(3)), 8, new Float64Array(2));
 * assert.ok(Math.abs(w[0] - 2) < 1e-15 && Math.abs(w[1] - 6) < 1e-14);
 * ```
 */
export function normaliseToTotal(
  logWeight: Float64Array,
  total: number,
  out: Float64Array,
): Float64Array {
  if (!(total > 0) || !Number.isFinite(total)) {
    throw new RangeError(`Invalid weightTotal: must be positive and finite: weightTotal=${total}`);
  }
  if (out.length !== logWeight.length) {
    throw new RangeError(
      `Invalid out: must have length n=${logWeight.length}: out.length=${out.length}`,
    );
  }
  let max = -Infinity;
  for (const a of logWeight) if (a > max) max = a;
  let sum = 0;
  for (let i = 0; i < logWeight.length; i++) {
    out[i] = Math.exp(logWeight[i] - max);
    sum += out[i];
  }
  const scale = total / sum;
  for (let i = 0; i < out.length; i++) out[i] *= scale;
  return out;
}

/**
 * Whether `model` also synthesises survey weights.
 *
 * @param model any model.
 * @returns true when it has a `simulateSurvey` method.
 */
export function isSurveyModel(model: Model): model is SurveyModel {
  return typeof (model as Partial<SurveyModel>).simulateSurvey === "function";
}

/** The survey models' data on the normal scale: log y_i and log w_i. */
export interface SurveyLogs {
  readonly logY: Float64Array;
  readonly logW: Float64Array;
  readonly weight: Float64Array;
}

/**
 * Checks a survey model's design (shapes, the intercept in column 0, a `weight` of length n)
 * and returns log y and log w. Values are not checked: the data reader requires y > 0 and
 * w > 0, and a record with y ≤ 0 or w ≤ 0 gets a non-finite ℓ_i, which α_i = 0 removes.
 *
 * @param model the model's name, for the messages.
 * @param design outcome, covariates and survey weights.
 * @returns log y_i and log w_i.
 */
export function surveyLogs(model: string, design: Design): SurveyLogs {
  validateDesign(design);
  const { n, y, weight } = design;
  if (weight === undefined) {
    throw new RangeError(
      `Invalid design: the ${model} model needs survey weights: weight=undefined`,
    );
  }
  if (weight.length !== n) {
    throw new RangeError(
      `Invalid design: weight must have length n: weight.length=${weight.length}, n=${n}`,
    );
  }
  return { logY: y.map(Math.log), logW: weight.map(Math.log), weight };
}

/**
 * Ordinary least squares of z on the columns of the n×p row-major matrix `a`, over the records
 * where z and every column are finite: solves (AᵀA + λI)b = Aᵀz by Cholesky with a tiny ridge
 * λ = 1e-10·max diag(AᵀA) so an empty dummy level cannot make it singular.
 *
 * @param a the regressors, n×p row-major.
 * @param p the number of columns.
 * @param z the response, length n.
 * @returns the coefficients b (length p) and the residuals z − Ab (NaN where a record was skipped).
 */
export function leastSquares(
  a: Float64Array,
  p: number,
  z: Float64Array,
): { coef: Float64Array; residual: Float64Array } {
  const n = z.length;
  const ata = new Float64Array(p * p);
  const atz = new Float64Array(p);
  const used = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const off = i * p;
    let ok = Number.isFinite(z[i]);
    for (let j = 0; j < p && ok; j++) ok = Number.isFinite(a[off + j]);
    if (!ok) continue;
    used[i] = 1;
    for (let j = 0; j < p; j++) {
      atz[j] += a[off + j] * z[i];
      for (let l = 0; l <= j; l++) ata[j * p + l] += a[off + j] * a[off + l];
    }
  }
  let maxDiag = 0;
  for (let j = 0; j < p; j++) maxDiag = Math.max(maxDiag, ata[j * p + j]);
  const ridge = 1e-10 * (maxDiag > 0 ? maxDiag : 1);
  // Cholesky AᵀA + λI = LLᵀ keeping every column (a pivot that is not positive gives NaN), then
  // the two triangular solves.
  for (let j = 0; j < p; j++) ata[j * p + j] += ridge;
  const { l } = choleskyKeeping(ata, p, () => true);
  const coef = choleskySolve(l, atz);
  const residual = new Float64Array(n).fill(NaN);
  for (let i = 0; i < n; i++) {
    if (used[i] === 0) continue;
    let fitted = 0;
    for (let j = 0; j < p; j++) fitted += a[i * p + j] * coef[j];
    residual[i] = z[i] - fitted;
  }
  return { coef, residual };
}

/**
 * The residual standard deviation √(Σ r²/(m − p)) over the m finite residuals, or `fallback`
 * when m ≤ p or it is not positive.
 *
 * @param residual residuals from {@link leastSquares}.
 * @param p the number of fitted coefficients.
 * @param fallback the value when no estimate exists.
 * @returns the residual standard deviation.
 */
export function residualSd(residual: Float64Array, p: number, fallback: number): number {
  let m = 0;
  let ss = 0;
  for (const r of residual) {
    if (!Number.isFinite(r)) continue;
    m++;
    ss += r * r;
  }
  const sd = m > p ? Math.sqrt(ss / (m - p)) : NaN;
  return sd > 0 ? sd : fallback;
}
