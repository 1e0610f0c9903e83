/**
 * The propensity mean-squared error (pMSE) of a synthetic file (Woo et al. 2009; Snoke, Raab,
 * Nowok, Dibben & Slavković 2018, "General and specific utility measures for synthetic data",
 * JRSS A 181): stack the N = n_conf + n_syn records with y = 1 for synthetic, fit a logistic
 * regression of y on the main effects of the binned columns (one dummy per level but a
 * reference, the most frequent), and pMSE = (1/N)·Σ_i (p̂_i − c)², c = n_syn/N. Under the null
 * that both files come from one distribution, E[pMSE] = (k − 1)(1 − c)²c/N for a model with k
 * parameters (Snoke et al. 2018, §3.1), so the standardised ratio pMSE / E[pMSE] is about 1 for
 * a good synthesis.
 *
 * The fit is Newton–Raphson (IRLS) on the log likelihood with a tiny ridge λ/2·Σβ_j² on the
 * non-intercept coefficients (default λ = 1e-8), which keeps the normal equations definite when
 * dummies are collinear (HOUSING_TYPE and OWN_RENT = 0) and the coefficients finite when a level
 * occurs in one file only (p̂ then comes within about λ·log(n/λ)/n_level of 0 or 1, its limit).
 * Each row has one non-zero dummy per column, so an iteration costs O(N·p²) for p columns plus
 * O(k³) for the solve. SDNist v2.3.0 fits a depth-5 decision tree instead
 * (`sdnist/metrics/propensity.py`); its pMSE is not this one.
 *
 * @module
 */
import { cholesky, choleskySolveInPlace } from "./cholesky.ts";
import type { BinnedColumn } from "./sdnist_binning.ts";

/** The pMSE and its null reference. */
export interface PropensityMse {
  /** (1/N)·Σ (p̂_i − c)². */
  readonly pmse: number;
  /** (k − 1)(1 − c)²c/N. */
  readonly nullExpectation: number;
  /** pmse / nullExpectation. */
  readonly ratio: number;
  /** k: the intercept and one coefficient per non-reference level. */
  readonly parameters: number;
  /** c = n_syn/N. */
  readonly c: number;
  /** N. */
  readonly n: number;
  /** Newton iterations. */
  readonly iterations: number;
}

/**
 * The pMSE of a logistic main-effects propensity model (see the module doc).
 *
 * @param confidential Column → binned cells of the confidential file (null is a level too).
 * @param synthetic Column → binned cells of the synthetic file.
 * @param columns The columns entered as main effects.
 * @param options `ridge`: λ (default 1e-8); `maxIterations` (default 200).
 * @returns The pMSE, its null expectation, their ratio and the fit's size.
 *
 * @example Identical files: p̂ = c everywhere
 * ```ts
 * import assert from "node:assert/strict";
 * import { propensityMse } from "./pmse.ts";
 * const f = new Map([["A", ["x", "y", "y"]]]);
 * assert.ok(propensityMse(f, f, ["A"]).pmse < 1e-20);
 * ```
 */
export function propensityMse(
  confidential: ReadonlyMap<string, BinnedColumn>,
  synthetic: ReadonlyMap<string, BinnedColumn>,
  columns: readonly string[],
  options: { ridge?: number; maxIterations?: number } = {},
): PropensityMse {
  const ridge = options.ridge ?? 1e-8;
  if (!(ridge > 0) || !Number.isFinite(ridge)) throw new RangeError(`Invalid ridge: ${ridge}`);
  const { index, k, n, y } = design(confidential, synthetic, columns);
  const p = columns.length;
  const nSyn = y.reduce((a, b) => a + b, 0);
  const c = nSyn / n;
  const beta = new Float64Array(k);
  beta[0] = Math.log(c / (1 - c));
  const eta = new Float64Array(n);
  const fitted = new Float64Array(n);
  const objective = (b: Float64Array): number => {
    let value = 0;
    for (let i = 0; i < n; i++) {
      let e = b[0];
      for (let j = 0; j < p; j++) if (index[i * p + j] > 0) e += b[index[i * p + j]];
      eta[i] = e;
      value += y[i] * e - (e > 0 ? e + Math.log1p(Math.exp(-e)) : Math.log1p(Math.exp(e)));
    }
    for (let j = 1; j < k; j++) value -= (ridge / 2) * b[j] * b[j];
    return value;
  };
  let current = objective(beta);
  const maxIterations = options.maxIterations ?? 200;
  let iterations = 0;
  const hessian = new Float64Array(k * k);
  const step = new Float64Array(k);
  const rowIdx = new Int32Array(p + 1);
  for (; iterations < maxIterations; iterations++) {
    hessian.fill(0);
    step.fill(0);
    for (let j = 1; j < k; j++) {
      hessian[j * k + j] = ridge;
      step[j] = -ridge * beta[j];
    }
    for (let i = 0; i < n; i++) {
      const pi = 1 / (1 + Math.exp(-eta[i]));
      fitted[i] = pi;
      const w = pi * (1 - pi);
      let m = 0;
      rowIdx[m++] = 0;
      for (let j = 0; j < p; j++) if (index[i * p + j] > 0) rowIdx[m++] = index[i * p + j];
      for (let a = 0; a < m; a++) {
        const ra = rowIdx[a];
        step[ra] += y[i] - pi;
        for (let b = 0; b < m; b++) hessian[ra * k + rowIdx[b]] += w;
      }
    }
    const l = cholesky(hessian, k);
    if (l === null) {
      throw new RangeError("The propensity model's information matrix is not positive definite");
    }
    const gradient = Float64Array.from(step);
    choleskySolveInPlace(l, k, step);
    let decrement = 0;
    for (let j = 0; j < k; j++) decrement += gradient[j] * step[j];
    if (decrement < 1e-12) break;
    let t = 1;
    const trial = new Float64Array(k);
    for (;;) {
      for (let j = 0; j < k; j++) trial[j] = beta[j] + t * step[j];
      const value = objective(trial);
      if (value >= current || t < 1e-10) {
        beta.set(trial);
        current = value;
        break;
      }
      t /= 2;
    }
  }
  objective(beta);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    fitted[i] = 1 / (1 + Math.exp(-eta[i]));
    sum += (fitted[i] - c) ** 2;
  }
  const pmse = sum / n;
  const nullExpectation = ((k - 1) * (1 - c) ** 2 * c) / n;
  return { pmse, nullExpectation, ratio: pmse / nullExpectation, parameters: k, c, n, iterations };
}

/** Row i's coefficient index per column (0: the reference level), k, N and y. */
function design(
  confidential: ReadonlyMap<string, BinnedColumn>,
  synthetic: ReadonlyMap<string, BinnedColumn>,
  columns: readonly string[],
): { index: Int32Array; k: number; n: number; y: Uint8Array } {
  if (columns.length === 0) throw new RangeError("The propensity model needs at least one column");
  const cells = columns.map((column) => {
    const c = confidential.get(column);
    const s = synthetic.get(column);
    if (c === undefined) throw new RangeError(`The confidential file has no column ${column}`);
    if (s === undefined) throw new RangeError(`The synthetic file has no column ${column}`);
    return [...c, ...s];
  });
  const nConf = confidential.get(columns[0])!.length;
  const n = cells[0].length;
  if (nConf === 0 || nConf === n) {
    throw new RangeError("Cannot fit a propensity model with an empty file");
  }
  cells.forEach((column, j) => {
    if (column.length !== n) {
      throw new RangeError(`Column ${columns[j]} has ${column.length} cells, not ${n}`);
    }
  });
  const p = columns.length;
  const index = new Int32Array(n * p);
  let k = 1;
  cells.forEach((column, j) => {
    const counts = new Map<string | null, number>();
    for (const v of column) counts.set(v, (counts.get(v) ?? 0) + 1);
    const levels = [...counts.keys()].sort((a, b) =>
      counts.get(b)! - counts.get(a)! || String(a).localeCompare(String(b))
    );
    const coefficient = new Map<string | null, number>();
    levels.forEach((level, r) => coefficient.set(level, r === 0 ? 0 : k + r - 1));
    k += levels.length - 1;
    column.forEach((v, i) => (index[i * p + j] = coefficient.get(v)!));
  });
  const y = new Uint8Array(n);
  y.fill(1, nConf);
  return { index, k, n, y };
}
