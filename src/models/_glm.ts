/**
 * The parameter layout and checks shared by the regression models of SPEC §5.
 *
 * θ = (β_1..β_K, σ_β,1..σ_β,K, [one model-specific positive parameter]) and
 * u = (β_1..β_K, log σ_β,1..log σ_β,K, [± log of the positive parameter]).
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { lgamma } from "../stats/special.ts";
import {
  coefficientPrior,
  type CoefficientPriorTerms,
  type HalfStudentT,
  type PredictorScale,
} from "./glm_prior.ts";
import type { Design, ExactCoordinates, Model, Weighting } from "./model.ts";

/**
 * The model-specific positive parameter: θ = exp(sign·u), with `prior` placed on e^u (so for
 * sign = −1 the prior is on 1/θ, as for the negative binomial's 1/φ).
 */
export interface ExtraParameter {
  readonly name: string;
  readonly sign: 1 | -1;
  readonly prior: HalfStudentT;
}

/** The GPU kernels' per-record constants of the count models: y and log Γ(y + 1). */
export const COUNT_RECORD: readonly [(y: number) => number, (y: number) => number] = [
  (y) => y,
  (y) => lgamma(y + 1),
];

/**
 * Checks a design's shapes and that its column 0 is the intercept (all ones), which the models'
 * loops rely on.
 */
export function validateDesign(design: Design): void {
  const { n, k, y, x, coefficientNames } = design;
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError(`Invalid design: n must be a non-negative integer: n=${n}`);
  }
  if (!Number.isSafeInteger(k) || k < 1) {
    throw new RangeError(`Invalid design: k must be a positive integer: k=${k}`);
  }
  if (y.length !== n) {
    throw new RangeError(`Invalid design: y must have length n: y.length=${y.length}, n=${n}`);
  }
  if (x.length !== n * k) {
    throw new RangeError(
      `Invalid design: x must have length n·k: x.length=${x.length}, n·k=${n * k}`,
    );
  }
  if (coefficientNames.length !== k) {
    throw new RangeError(
      `Invalid design: coefficientNames must have length k: length=${coefficientNames.length}, k=${k}`,
    );
  }
  for (let i = 0; i < n; i++) {
    if (x[i * k] !== 1) {
      throw new RangeError(
        `Invalid design: column 0 must be the intercept: x[${i}, 0]=${x[i * k]}`,
      );
    }
  }
}

/** Throws unless a parameter-length vector `v` has length `dim`. */
export function checkLength(what: string, v: Float64Array, dim: number): void {
  if (v.length !== dim) {
    throw new RangeError(`Invalid ${what}: must have length ${dim}: length=${v.length}`);
  }
}

/** Throws unless a record-length vector `v` has length `n`. */
export function checkRecords(what: string, v: Float64Array, n: number): void {
  if (v.length !== n) {
    throw new RangeError(`Invalid ${what}: must have length n=${n}: length=${v.length}`);
  }
}

/**
 * out_j = log θ_j for j in [from, to), the inverse of θ_j = exp(u_j), after checking θ_j > 0.
 *
 * @param names the parameter names, for the messages.
 */
export function logPositive(
  theta: Float64Array,
  out: Float64Array,
  from: number,
  to: number,
  names: readonly string[],
): void {
  for (let j = from; j < to; j++) {
    if (!(theta[j] > 0)) {
      throw new RangeError(`Invalid ${names[j]}: must be positive: ${names[j]}=${theta[j]}`);
    }
    out[j] = Math.log(theta[j]);
  }
}

/**
 * The linear predictor x_iᵀθ[at..at+K) of record i, with x n×K row-major and its column 0 the
 * intercept (x_i0 = 1).
 */
export function linearPredictor(
  x: Float64Array,
  k: number,
  theta: Float64Array,
  i: number,
  at: number,
): number {
  let m = theta[at];
  for (let j = 1; j < k; j++) m += x[i * k + j] * theta[at + j];
  return m;
}

/**
 * Adds g·x_ij to grad[at + j] for the covariates j = 1..K−1 of record i (x n×K row-major, column 0
 * the intercept, whose term the caller adds itself).
 */
export function addCovariates(
  grad: Float64Array,
  at: number,
  g: number,
  x: Float64Array,
  i: number,
  k: number,
): void {
  for (let j = 1; j < k; j++) grad[at + j] += g * x[i * k + j];
}

/**
 * clamp(c, ±C): record i's term of the censored log density for c = α_i·ℓ_i (SPEC §4; C = +∞
 * uncensored). A NaN term stays NaN.
 */
export function clampTerm(c: number, censor: number): number {
  return c > censor ? censor : c < -censor ? -censor : c;
}

/**
 * Whether a record's term c = α_i·ℓ_i passes its gradient through clamp(·, ±C): |c| ≤ C, where
 * the clamp is the identity (a NaN term too, so that a NaN density has a NaN gradient).
 */
export function unclamped(c: number, censor: number): boolean {
  return !(c > censor || c < -censor);
}

/**
 * The censoring bound C of a weighting (+∞ when it has none), after checking that α has one
 * entry per record and that C is positive.
 */
export function censorBound(weighting: Weighting, n: number): number {
  const { alpha, censor } = weighting;
  if (alpha !== null && alpha.length !== n) {
    throw new RangeError(
      `Invalid weighting: alpha must have length n: length=${alpha.length}, n=${n}`,
    );
  }
  if (censor === undefined) return Infinity;
  if (!(censor > 0)) {
    throw new RangeError(`Invalid weighting: censor must be positive: censor=${censor}`);
  }
  return censor;
}

/** Mean and variance (divisor m − 1) of the entries of v that pass `keep`; NaN when none do. */
export function meanVariance(
  v: Float64Array,
  keep: (value: number) => boolean,
): { mean: number; variance: number } {
  let m = 0;
  let mean = 0;
  let m2 = 0;
  for (const value of v) {
    if (!keep(value)) continue;
    m++;
    const d = value - mean;
    mean += d / m;
    m2 += d * (value - mean);
  }
  return { mean: m > 0 ? mean : NaN, variance: m > 1 ? m2 / (m - 1) : NaN };
}

/**
 * One linear predictor's block of K coefficients: its coefficients are named `prefix` + the
 * design's coefficient name, and `scale` is the scale of its linear predictor (its intercept's
 * `student-t` prior scale, `glm_prior.ts`).
 */
export interface CoefficientBlock {
  readonly prefix: string;
  readonly scale: PredictorScale;
}

/** The block of a model with one linear predictor on `scale`, its coefficients unprefixed. */
export function singleBlock(scale: PredictorScale): readonly CoefficientBlock[] {
  return [{ prefix: "", scale }];
}

/**
 * Base of the regression models: parameter layout, transforms, the prior, argument checks and
 * `simulate`. Subclasses supply their record loops (`logDensity`, `logLik`), one record's draw
 * (`drawRecord`) and the starting point.
 *
 * θ = (β, σ_β, [extra]) with β the m = B·K coefficients of B blocks (one per linear predictor,
 * each on the design's K covariates) and σ_β their prior scales.
 */
export abstract class GlmModel implements Model {
  readonly name: string;
  readonly design: Design;
  readonly dim: number;
  readonly paramNames: readonly string[];
  /** Number of records n. */
  protected readonly n: number;
  /** Number of covariates K. */
  protected readonly k: number;
  /** Number of coefficients m = B·K. */
  protected readonly m: number;
  readonly #extra: ExtraParameter | null;
  /** The `student-t` prior's scale coordinates, drawn exactly (`glm_prior.ts`). */
  readonly exactCoordinates: ExactCoordinates | undefined;
  readonly #prior: CoefficientPriorTerms;

  /** The coefficients' prior (`glm_prior.ts`). */
  get coefficientPrior(): CoefficientPriorTerms {
    return this.#prior;
  }

  /**
   * @param name The model's name.
   * @param design Outcome, covariates and the coefficient prior.
   * @param extra The model-specific positive parameter, if any.
   * @param blocks The coefficient blocks, one per linear predictor.
   */
  constructor(
    name: string,
    design: Design,
    extra: ExtraParameter | null,
    blocks: readonly CoefficientBlock[],
  ) {
    validateDesign(design);
    const m = blocks.length * design.k;
    this.#prior = coefficientPrior(
      design.coefficientPrior,
      m,
      design.k,
      blocks.map((b) => b.scale),
    );
    this.exactCoordinates = this.#prior.exact;
    this.name = name;
    this.design = design;
    this.n = design.n;
    this.k = design.k;
    this.m = m;
    this.#extra = extra;
    this.dim = 2 * m + (extra === null ? 0 : 1);
    const names = blocks.flatMap((b) => design.coefficientNames.map((c) => b.prefix + c));
    for (const c of names.slice()) names.push(`sigma_beta_${c}`);
    if (extra !== null) names.push(extra.name);
    this.paramNames = Object.freeze(names);
  }

  /**
   * θ_j = u_j for the coefficients, their scales from the prior's map (exp(u_j) for the
   * paper's), exp(±u) for the extra one.
   */
  constrain(u: Float64Array, out: Float64Array = new Float64Array(this.dim)): Float64Array {
    this.checkLength("u", u);
    this.checkLength("out", out);
    const m = this.m;
    for (let j = 0; j < m; j++) out[j] = u[j];
    for (let j = 0; j < m; j++) out[m + j] = this.#prior.scale(j, u[j], u[m + j]);
    if (this.#extra !== null) out[2 * m] = Math.exp(this.#extra.sign * u[2 * m]);
    return out;
  }

  /** The inverse of {@link GlmModel.constrain}; positive entries must be positive. */
  unconstrain(theta: Float64Array, out: Float64Array = new Float64Array(this.dim)): Float64Array {
    this.checkLength("theta", theta);
    this.checkLength("out", out);
    const m = this.m;
    for (let j = 0; j < m; j++) out[j] = theta[j];
    logPositive(theta, out, m, this.dim, this.paramNames);
    for (let j = 0; j < m; j++) out[m + j] = this.#prior.unscale(j, theta[j], theta[m + j]);
    if (this.#extra !== null) out[2 * m] *= this.#extra.sign;
    return out;
  }

  abstract initialPoint(): Float64Array;

  abstract logLik(theta: Float64Array, out: Float64Array): Float64Array;
  abstract logDensity(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number;

  /** Draws y*_i ~ p(· | x_i, θ) for every record into `out` (length n), record by record. */
  simulate(theta: Float64Array, rng: Rng, out: Float64Array): Float64Array {
    this.checkRecordOutput(theta, out);
    for (let i = 0; i < this.n; i++) out[i] = this.drawRecord(theta, rng, i);
    return out;
  }

  /** One draw y*_i ~ p(· | x_i, θ) of record i. */
  protected abstract drawRecord(theta: Float64Array, rng: Rng, i: number): number;

  /**
   * The log prior with its log-Jacobian at u; writes (not adds) the gradient into `grad`.
   */
  protected logPrior(u: Float64Array, grad: Float64Array | null): number {
    const m = this.m;
    let total = this.#prior.logDensity(u, m, grad);
    const extra = this.#extra;
    if (extra !== null) {
      total += extra.prior.logDensity(u[2 * m]);
      if (grad !== null) grad[2 * m] = extra.prior.gradient(u[2 * m]);
    }
    return total;
  }

  /** A starting u: intercept β_1, other coefficients 0, σ_β = 1 and the extra parameter θ. */
  protected startAt(intercept: number, extraTheta: number): Float64Array {
    const u = new Float64Array(this.dim);
    u[0] = Number.isFinite(intercept) ? intercept : 0;
    if (this.#extra !== null) {
      u[2 * this.m] = Number.isFinite(extraTheta) && extraTheta > 0
        ? this.#extra.sign * Math.log(extraTheta)
        : 0;
    }
    return u;
  }

  /**
   * Checks a log density's arguments (u, and grad unless null, of length dim; the weighting's α of
   * length n and C > 0) and returns its censoring bound C (+∞ when it has none).
   */
  protected densityArguments(
    u: Float64Array,
    grad: Float64Array | null,
    weighting: Weighting,
  ): number {
    this.checkLength("u", u);
    if (grad !== null) this.checkLength("grad", grad);
    return censorBound(weighting, this.n);
  }

  /** Throws unless a parameter-length vector has length dim. */
  protected checkLength(what: string, v: Float64Array): void {
    checkLength(what, v, this.dim);
  }

  /** Throws unless θ has length dim and the per-record output `out` length n (logLik, simulate). */
  protected checkRecordOutput(theta: Float64Array, out: Float64Array): void {
    this.checkLength("theta", theta);
    checkRecords("out", out, this.n);
  }
}
