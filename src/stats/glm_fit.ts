/**
 * Maximum-likelihood linear and logistic regression (R's `lm` and `glm(family = binomial)`), for
 * the utility report's propensity scores and utility models. The design is read row by row
 * through a callback, so a fit keeps O(k²) memory beyond its inputs and fitted values whatever n.
 *
 * Numerics: every non-intercept column is centred and scaled (by its mean and standard deviation
 * when the design has a column of ones, else by its root mean square), the (weighted) normal
 * equations are solved in that basis by a Cholesky factorisation that declares a column aliased
 * when its pivot falls below 1e-10 of its diagonal (the column's residual norm, after projecting
 * on the columns before it, below 1e-5 of its norm), and the coefficients and their covariance
 * are mapped back exactly.
 *
 * @module
 */
import { choleskyKeeping, choleskySolveInPlace, inverseFromCholesky } from "./cholesky.ts";

/** Rows × named columns, read one row at a time into a caller's buffer of length k. */
export interface DesignMatrix {
  /** The number of rows n. */
  readonly rows: number;
  /** The k column names, in order (R's `model.matrix` names, or any). */
  readonly names: readonly string[];
  /** Writes row i's k values into `out`. */
  row(i: number, out: Float64Array): void;
}

/** Why a fit failed. */
export type GlmFitFailure = "separation" | "convergence" | "aliased" | "data";

/** A fit that cannot be given: the message names the column or the reason. */
export class GlmFitError extends Error {
  /** The kind of failure. */
  readonly reason: GlmFitFailure;
  /**
   * @param reason The kind of failure.
   * @param message What failed, naming the columns involved.
   */
  constructor(reason: GlmFitFailure, message: string) {
    super(message);
    this.name = "GlmFitError";
    this.reason = reason;
  }
}

/** A fitted linear or logistic regression. */
export interface GlmFit {
  /** "gaussian" (OLS) or "binomial" (logistic). */
  readonly family: "gaussian" | "binomial";
  /** The estimated coefficients' names: the design's names less the aliased ones. */
  readonly names: readonly string[];
  /** The maximum-likelihood coefficients, in the order of `names`. */
  readonly coefficients: Float64Array;
  /**
   * Their standard errors: OLS √diag(σ̂²(XᵀX)⁻¹) with σ̂² = RSS/(n − rank); logistic
   * √diag((XᵀWX)⁻¹), W = diag(p̂(1 − p̂)), the inverse Fisher information at the estimate.
   */
  readonly standardErrors: Float64Array;
  /** The coefficients' covariance matrix, row-major rank × rank. */
  readonly covariance: Float64Array;
  /** The design columns left out as linear combinations of the columns before them. */
  readonly aliased: readonly string[];
  /** Fitted values (OLS) or fitted probabilities p̂_i (logistic), one per row. */
  readonly fitted: Float64Array;
  /** n. */
  readonly n: number;
  /** The number of estimated coefficients. */
  readonly rank: number;
  /** n − rank. */
  readonly dfResidual: number;
  /** OLS: the residual sum of squares; logistic: −2·log likelihood. */
  readonly deviance: number;
  /** OLS: σ̂ = √(RSS/(n − rank)); logistic: 1. */
  readonly sigma: number;
  /** IRLS iterations (OLS: 1). */
  readonly iterations: number;
  /**
   * Logistic with `separation: "limit"` only: true when the likelihood has no maximum (some
   * coefficients diverge) and `fitted` holds the limiting probabilities; false otherwise.
   */
  readonly separated: boolean;
}

/** Options of {@linkcode fitOls} and {@linkcode fitLogistic}. */
export interface GlmFitOptions {
  /**
   * "error" (default): an aliased column throws a {@linkcode GlmFitError}; "drop": it is left
   * out (R's NA coefficient) and listed in `aliased`.
   */
  readonly aliased?: "error" | "drop";
}

/** Options of {@linkcode fitLogistic}. */
export interface LogisticFitOptions extends GlmFitOptions {
  /**
   * "error" (default): complete or quasi-complete separation throws a {@linkcode GlmFitError};
   * "limit": the fit returns the limiting fitted probabilities with `separated: true` (its
   * diverging coefficients and standard errors are then meaningless).
   */
  readonly separation?: "error" | "limit";
  /** The most IRLS iterations (default 50). */
  readonly maxIterations?: number;
}

const ALIAS_TOLERANCE = 1e-10;

/**
 * A {@linkcode DesignMatrix} over whole columns (each of length n).
 *
 * @param names The k column names.
 * @param columns The k columns.
 * @returns The design.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { columnDesign } from "./glm_fit.ts";
 * const x = columnDesign(["(Intercept)", "x"], [Float64Array.of(1, 1), Float64Array.of(2, 3)]);
 * const row = new Float64Array(2);
 * x.row(1, row);
 * assert.deepEqual([...row], [1, 3]);
 * ```
 */
export function columnDesign(
  names: readonly string[],
  columns: readonly ArrayLike<number>[],
): DesignMatrix {
  if (names.length !== columns.length) {
    throw new RangeError(
      `Invalid columns: ${columns.length} columns for ${names.length} names`,
    );
  }
  const rows = columns.length === 0 ? 0 : columns[0].length;
  columns.forEach((column, j) => {
    if (column.length !== rows) {
      throw new RangeError(
        `Invalid columns: column "${names[j]}" has ${column.length} rows, expected ${rows}`,
      );
    }
  });
  return {
    rows,
    names,
    row(i, out) {
      for (let j = 0; j < columns.length; j++) out[j] = columns[j][i];
    },
  };
}

/** The centring and scaling of the columns: z_j = (x_j − centre_j)/scale_j. */
interface Basis {
  readonly k: number;
  /** The index of the column of ones, or −1. */
  readonly intercept: number;
  readonly centre: Float64Array;
  readonly scale: Float64Array;
  /** Columns known to be aliased before any factorisation (constant, or all zero). */
  readonly degenerate: Uint8Array;
}

/**
 * Checks a fit's data: a design with rows and columns, and an outcome of one value per row that
 * `valid` accepts (the first it refuses is reported by its row and as `not ${what}`).
 */
function checkData(
  x: DesignMatrix,
  target: ArrayLike<number>,
  valid: (value: number) => boolean,
  what: string,
): void {
  if (x.rows === 0) throw new GlmFitError("data", "Cannot fit a regression to no rows");
  if (x.names.length === 0) {
    throw new GlmFitError("data", "Cannot fit a regression with no columns");
  }
  if (target.length !== x.rows) {
    throw new GlmFitError(
      "data",
      `Cannot fit: the outcome has ${target.length} values, the design ${x.rows} rows`,
    );
  }
  for (let i = 0; i < target.length; i++) {
    if (!valid(target[i])) {
      throw new GlmFitError("data", `Cannot fit: the outcome is not ${what} in row ${i + 1}`);
    }
  }
}

/** One pass: finiteness, the column of ones, means and standard deviations. */
function basisOf(x: DesignMatrix): Basis {
  const k = x.names.length;
  const n = x.rows;
  const row = new Float64Array(k);
  const sum = new Float64Array(k);
  const ones = new Uint8Array(k).fill(1);
  for (let i = 0; i < n; i++) {
    x.row(i, row);
    for (let j = 0; j < k; j++) {
      const v = row[j];
      if (!Number.isFinite(v)) {
        throw new GlmFitError(
          "data",
          `Cannot fit: column "${x.names[j]}" is not finite in row ${i + 1}`,
        );
      }
      sum[j] += v;
      if (v !== 1) ones[j] = 0;
    }
  }
  const intercept = ones.indexOf(1);
  const centre = new Float64Array(k);
  if (intercept >= 0) { for (let j = 0; j < k; j++) if (j !== intercept) centre[j] = sum[j] / n; }
  const squares = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    x.row(i, row);
    for (let j = 0; j < k; j++) squares[j] += (row[j] - centre[j]) ** 2;
  }
  const scale = new Float64Array(k);
  const degenerate = new Uint8Array(k);
  for (let j = 0; j < k; j++) {
    if (j === intercept) {
      scale[j] = 1;
      continue;
    }
    const s = Math.sqrt(squares[j] / n);
    // A constant column beside the intercept, or an all-zero column: aliased.
    if (!(s > 1e-12 * (Math.abs(centre[j]) + s)) || s === 0) degenerate[j] = 1;
    scale[j] = s > 0 ? s : 1;
  }
  return { k, intercept, centre, scale, degenerate };
}

function transform(basis: Basis, row: Float64Array, z: Float64Array): void {
  for (let j = 0; j < basis.k; j++) z[j] = (row[j] - basis.centre[j]) / basis.scale[j];
}

/**
 * Cholesky factorisation of the Gram matrix restricted to the columns that are not aliased, in
 * column order (each column tested against the ones kept before it).
 */
function factor(
  gram: Float64Array,
  k: number,
  degenerate: Uint8Array,
): { kept: number[]; l: Float64Array } {
  return choleskyKeeping(
    gram,
    k,
    (j, pivot) =>
      !degenerate[j] && pivot > ALIAS_TOLERANCE * gram[j * k + j] && Number.isFinite(pivot),
  );
}

/**
 * The back-transformation β = Mγ restricted to the kept columns: β_j = γ_j/s_j and, with an
 * intercept, β_int = γ_int − Σ_j γ_j·c_j/s_j.
 */
function backTransform(
  basis: Basis,
  kept: readonly number[],
  gamma: Float64Array,
  covariance: Float64Array,
): { beta: Float64Array; covariance: Float64Array } {
  const p = kept.length;
  const m = new Float64Array(p * p);
  const at = kept.indexOf(basis.intercept);
  for (let a = 0; a < p; a++) {
    const j = kept[a];
    m[a * p + a] = 1 / basis.scale[j];
    if (at >= 0 && a !== at) m[at * p + a] = -basis.centre[j] / basis.scale[j];
  }
  const beta = new Float64Array(p);
  for (let a = 0; a < p; a++) {
    let s = 0;
    for (let b = 0; b < p; b++) s += m[a * p + b] * gamma[b];
    beta[a] = s;
  }
  // M·Σ·Mᵀ: Mᵀ is M read with its strides swapped.
  const mc = matrixProduct(p, m, covariance, p, 1);
  return { beta, covariance: matrixProduct(p, mc, m, 1, p) };
}

/**
 * The product A·B of p×p row-major matrices, B read through strides: B's entry (c, b) is
 * `right[c·rowStride + b·colStride]`, so (p, 1) multiplies by B and (1, p) by Bᵀ. Each entry sums
 * its p terms in order.
 */
function matrixProduct(
  p: number,
  left: Float64Array,
  right: Float64Array,
  rowStride: number,
  colStride: number,
): Float64Array {
  const out = new Float64Array(p * p);
  for (let a = 0; a < p; a++) {
    for (let b = 0; b < p; b++) {
      let s = 0;
      for (let c = 0; c < p; c++) s += left[a * p + c] * right[c * rowStride + b * colStride];
      out[a * p + b] = s;
    }
  }
  return out;
}

/**
 * One weighted least-squares pass in the standardised basis: Σ w_i·z_i z_iᵀ and Σ w_i·z_i·t_i
 * (arrays, not callbacks: a call per row through varying closures costs more than the pass).
 */
function accumulate(
  x: DesignMatrix,
  basis: Basis,
  weight: Float64Array | null,
  target: ArrayLike<number>,
): { gram: Float64Array; rhs: Float64Array } {
  const k = basis.k;
  const row = new Float64Array(k);
  const z = new Float64Array(k);
  const gram = new Float64Array(k * k);
  const rhs = new Float64Array(k);
  for (let i = 0; i < x.rows; i++) {
    x.row(i, row);
    transform(basis, row, z);
    const w = weight === null ? 1 : weight[i];
    const t = w * target[i];
    for (let a = 0; a < k; a++) {
      const wa = w * z[a];
      rhs[a] += t * z[a];
      for (let b = 0; b <= a; b++) gram[a * k + b] += wa * z[b];
    }
  }
  for (let a = 0; a < k; a++) for (let b = 0; b < a; b++) gram[b * k + a] = gram[a * k + b];
  return { gram, rhs };
}

function aliasedNames(
  x: DesignMatrix,
  kept: readonly number[],
  mode: "error" | "drop",
): string[] {
  const names = x.names.filter((_, j) => !kept.includes(j));
  if (names.length > 0 && mode === "error") {
    throw new GlmFitError(
      "aliased",
      `Cannot fit: column "${names[0]}" is constant or a linear combination of the columns ` +
        `before it (aliased${names.length > 1 ? `; also ${names.slice(1).join(", ")}` : ""})`,
    );
  }
  return names;
}

/** η_i = Σ_a γ_a z_ia over the kept columns, for every row. */
function linearPredictor(
  x: DesignMatrix,
  basis: Basis,
  kept: readonly number[],
  gamma: Float64Array,
  out: Float64Array,
): void {
  const row = new Float64Array(basis.k);
  const z = new Float64Array(basis.k);
  for (let i = 0; i < x.rows; i++) {
    x.row(i, row);
    transform(basis, row, z);
    let s = 0;
    for (let a = 0; a < kept.length; a++) s += gamma[a] * z[kept[a]];
    out[i] = s;
  }
}

function expand(kept: readonly number[], k: number, values: Float64Array): Float64Array {
  const out = new Float64Array(k);
  kept.forEach((j, a) => out[j] = values[a]);
  return out;
}

function pick(kept: readonly number[], values: Float64Array): Float64Array {
  return Float64Array.from(kept, (j) => values[j]);
}

/** What a fit states besides its coefficients, their covariance and the rank. */
type FitRest = Pick<
  GlmFit,
  "aliased" | "fitted" | "n" | "deviance" | "sigma" | "iterations" | "separated"
>;

/**
 * A fit from its kept columns, γ and their covariance on the standardized scale (back-transformed
 * to the design's scale) and the rest it states.
 */
function fitOf(
  family: GlmFit["family"],
  x: DesignMatrix,
  basis: Basis,
  kept: readonly number[],
  gamma: Float64Array,
  inv: Float64Array,
  rest: FitRest,
): GlmFit {
  const p = kept.length;
  const back = backTransform(basis, kept, gamma, inv);
  return {
    family,
    names: kept.map((j) => x.names[j]),
    coefficients: back.beta,
    standardErrors: standardErrors(back.covariance, p),
    covariance: back.covariance,
    aliased: rest.aliased,
    fitted: rest.fitted,
    n: rest.n,
    rank: p,
    dfResidual: rest.n - p,
    deviance: rest.deviance,
    sigma: rest.sigma,
    iterations: rest.iterations,
    separated: rest.separated,
  };
}

function standardErrors(covariance: Float64Array, p: number): Float64Array {
  return Float64Array.from({ length: p }, (_, a) => Math.sqrt(covariance[a * p + a]));
}

/**
 * Ordinary least squares, R's `lm(y ~ X - 1)` on the given design: β̂ = (XᵀX)⁻¹Xᵀy,
 * σ̂² = RSS/(n − rank), Cov(β̂) = σ̂²(XᵀX)⁻¹.
 *
 * @param x The design (include a column of ones for an intercept).
 * @param y The outcome, one finite value per row.
 * @param options How to treat aliased columns.
 * @returns The fit; throws {@linkcode GlmFitError} for non-finite data, an aliased column (unless
 *   dropped) or no residual degrees of freedom.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { columnDesign, fitOls } from "./glm_fit.ts";
 * const x = columnDesign(["(Intercept)", "x"], [Float64Array.of(1, 1, 1), Float64Array.of(0, 1, 2)]);
 * const fit = fitOls(x, Float64Array.of(1, 3, 5));
 * assert.ok(Math.abs(fit.coefficients[0] - 1) < 1e-12 && Math.abs(fit.coefficients[1] - 2) < 1e-12);
 * ```
 */
export function fitOls(
  x: DesignMatrix,
  y: ArrayLike<number>,
  options: GlmFitOptions = {},
): GlmFit {
  checkData(x, y, Number.isFinite, "finite");
  const basis = basisOf(x);
  const { gram, rhs } = accumulate(x, basis, null, y);
  const { kept, l } = factor(gram, basis.k, basis.degenerate);
  const aliased = aliasedNames(x, kept, options.aliased ?? "error");
  const p = kept.length;
  const n = x.rows;
  if (n - p <= 0) {
    throw new GlmFitError(
      "data",
      `Cannot fit: ${n} rows leave no residual degrees of freedom for ${p} coefficients`,
    );
  }
  const gamma = pick(kept, rhs);
  choleskySolveInPlace(l, p, gamma);
  const fitted = new Float64Array(n);
  linearPredictor(x, basis, kept, gamma, fitted);
  let rss = 0;
  for (let i = 0; i < n; i++) rss += (y[i] - fitted[i]) ** 2;
  const sigma2 = rss / (n - p);
  const inv = inverseFromCholesky(l, p);
  for (let a = 0; a < p * p; a++) inv[a] *= sigma2;
  return fitOf("gaussian", x, basis, kept, gamma, inv, {
    aliased,
    fitted,
    n,
    deviance: rss,
    sigma: Math.sqrt(sigma2),
    iterations: 1,
    separated: false,
  });
}

/** p = 1/(1 + e^−η), without overflow. */
function probability(eta: number): number {
  if (eta >= 0) return 1 / (1 + Math.exp(-eta));
  const e = Math.exp(eta);
  return e / (1 + e);
}

/** 1 − p = 1/(1 + e^η), without cancellation. */
function complement(eta: number): number {
  return probability(-eta);
}

/** −2 log L of a logistic fit, each term log(1 + e^∓η) without overflow. */
function binomialDeviance(y: ArrayLike<number>, eta: Float64Array): number {
  let d = 0;
  for (let i = 0; i < eta.length; i++) {
    const s = y[i] === 1 ? -eta[i] : eta[i];
    d += s > 0 ? s + Math.log1p(Math.exp(-s)) : Math.log1p(Math.exp(s));
  }
  return 2 * d;
}

/**
 * Logistic regression by iteratively reweighted least squares (R's `glm(y ~ X - 1, family =
 * binomial)`): started as R starts it (μ = (y + ½)/2), iterated until the largest coefficient
 * step (standardised basis) is below 1e-8·(1 + |γ|) and the deviance changes by less than
 * 1e-10·(|D| + 0.1). The standard errors are √diag of the inverse Fisher information (XᵀWX)⁻¹ at
 * the estimate.
 *
 * Separation: when the data are completely or quasi-completely separated the likelihood has no
 * maximum and IRLS steps a diverging coefficient by about 1 per iteration for ever. A fit that has
 * not converged after `maxIterations` with some |η_i| > 15 (p̂_i within 3e-7 of 0 or 1) is
 * declared separated, naming the columns whose coefficients still moved most; without such rows it
 * is a non-convergence. Either throws a {@linkcode GlmFitError} (nothing NaN is returned), unless
 * `separation: "limit"` asks for the limiting probabilities of a separated fit.
 *
 * @param x The design (include a column of ones for an intercept).
 * @param y The outcome, 0 or 1 per row.
 * @param options Aliased columns, separation, the iteration limit.
 * @returns The fit, `fitted` holding p̂_i.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { columnDesign, fitLogistic } from "./glm_fit.ts";
 * // One binary covariate: the fitted probabilities are the two groups' shares of y = 1.
 * const x = columnDesign(["(Intercept)", "g"], [
 *   Float64Array.of(1, 1, 1, 1, 1, 1),
 *   Float64Array.of(0, 0, 0, 1, 1, 1),
 * ]);
 * const fit = fitLogistic(x, Float64Array.of(0, 1, 1, 0, 0, 1));
 * assert.ok(Math.abs(fit.fitted[0] - 2 / 3) < 1e-10 && Math.abs(fit.fitted[3] - 1 / 3) < 1e-10);
 * ```
 */
export function fitLogistic(
  x: DesignMatrix,
  y: ArrayLike<number>,
  options: LogisticFitOptions = {},
): GlmFit {
  checkData(x, y, (v) => v === 0 || v === 1, "0 or 1");
  const maxIterations = options.maxIterations ?? 50;
  const basis = basisOf(x);
  const n = x.rows;
  const eta = new Float64Array(n);
  for (let i = 0; i < n; i++) eta[i] = y[i] === 1 ? Math.log(3) : -Math.log(3);
  const weight = new Float64Array(n);
  const working = new Float64Array(n);
  // Weights w = μ(1 − μ) and the working response z = η + (y − μ)/w: η + 1/μ for y = 1,
  // η − 1/(1 − μ) for y = 0.
  const update = () => {
    for (let i = 0; i < n; i++) {
      const p = probability(eta[i]);
      const q = complement(eta[i]);
      weight[i] = p * q;
      working[i] = eta[i] + (y[i] === 1 ? 1 / p : -1 / q);
    }
  };
  const mode = options.aliased ?? "error";
  let kept: number[] = [];
  let l: Float64Array = new Float64Array(0);
  let gamma: Float64Array = new Float64Array(0);
  let step = new Float64Array(0);
  let deviance = binomialDeviance(y, eta);
  let converged = false;
  let iterations = 0;
  while (iterations < maxIterations) {
    iterations++;
    update();
    const { gram, rhs } = accumulate(x, basis, weight, working);
    const factored = factor(gram, basis.k, basis.degenerate);
    if (iterations === 1) aliasedNames(x, factored.kept, mode);
    const next = pick(factored.kept, rhs);
    choleskySolveInPlace(factored.l, factored.kept.length, next);
    const previous = expand(kept, basis.k, gamma);
    kept = factored.kept;
    l = factored.l;
    gamma = next;
    step = Float64Array.from(kept, (j, a) => Math.abs(gamma[a] - previous[j]));
    linearPredictor(x, basis, kept, gamma, eta);
    const old = deviance;
    deviance = binomialDeviance(y, eta);
    const small = kept.every((_, a) => step[a] <= 1e-8 * (1 + Math.abs(gamma[a])));
    if (iterations > 1 && small && Math.abs(deviance - old) < 1e-10 * (Math.abs(deviance) + 0.1)) {
      converged = true;
      break;
    }
  }
  let separated = false;
  if (!converged) {
    let extreme = 0;
    for (let i = 0; i < n; i++) extreme = Math.max(extreme, Math.abs(eta[i]));
    if (extreme <= 15) {
      throw new GlmFitError(
        "convergence",
        `Cannot fit the logistic regression: IRLS did not converge in ${maxIterations} iterations`,
      );
    }
    if ((options.separation ?? "error") === "error") {
      const moving = kept.map((j, a) => ({ name: x.names[j], step: step[a] }))
        .filter((c) => c.step > 0.1).sort((a, b) => b.step - a.step).map((c) => `"${c.name}"`);
      throw new GlmFitError(
        "separation",
        `Cannot fit the logistic regression: the outcome is separated (fitted probabilities ` +
          `numerically 0 or 1; no maximum-likelihood estimate), diverging: ${
            moving.join(", ") || "(none identified)"
          }`,
      );
    }
    separated = true;
  }
  // The information at the estimate (a separated fit keeps its last iteration's).
  update();
  const final = accumulate(x, basis, weight, working);
  const refactored = factor(final.gram, basis.k, basis.degenerate);
  const same = refactored.kept.length === kept.length &&
    refactored.kept.every((j, a) => j === kept[a]);
  if (!same && !separated) {
    throw new GlmFitError(
      "convergence",
      "Cannot fit the logistic regression: the information matrix became singular at the estimate",
    );
  }
  const aliased = aliasedNames(x, kept, mode);
  const p = kept.length;
  const inv = inverseFromCholesky(same ? refactored.l : l, p);
  const fitted = Float64Array.from(eta, probability);
  return fitOf("binomial", x, basis, kept, gamma, inv, {
    aliased,
    fitted,
    n,
    deviance,
    sigma: 1,
    iterations,
    separated,
  });
}
