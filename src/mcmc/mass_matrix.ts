/**
 * Mass-matrix estimation for warmup: Welford's running variance and covariance (Welford 1962;
 * Stan's `welford_var_estimator` and `welford_covar_estimator`) and Stan's regularised
 * estimates of the inverse metric (`var_adaptation.hpp`, `covar_adaptation.hpp`).
 *
 * @module
 */
import { cholesky } from "../stats/cholesky.ts";
import { denseMetric, diagMetric, type Metric, type MetricKind } from "./metric.ts";

/** A running mean and sum of squared deviations per coordinate (mutated by `welfordAdd`). */
export interface WelfordState {
  /** Number of samples n. */
  count: number;
  readonly mean: Float64Array;
  /** Σ (x − x̄_n)(x − x̄_{n−1}) per coordinate. */
  readonly m2: Float64Array;
}

/** Throws a RangeError unless `dim` (a number of coordinates) is an integer ≥ 1. */
function checkDim(dim: number): void {
  if (!Number.isInteger(dim) || dim < 1) {
    throw new RangeError(`Invalid dim: must be an integer ≥ 1: dim=${dim}`);
  }
}

/**
 * An empty Welford accumulator.
 *
 * @param dim Number of coordinates.
 * @returns The accumulator.
 */
export function welfordInit(dim: number): WelfordState {
  checkDim(dim);
  return { count: 0, mean: new Float64Array(dim), m2: new Float64Array(dim) };
}

/**
 * Adds a sample x: n ← n + 1; δ = x − x̄; x̄ ← x̄ + δ/n; M2 ← M2 + (x − x̄)·δ.
 *
 * @param state Mutated.
 * @param x The sample.
 */
export function welfordAdd(state: WelfordState, x: Float64Array): void {
  state.count++;
  const n = state.count;
  for (let j = 0; j < x.length; j++) {
    const delta = x[j] - state.mean[j];
    state.mean[j] += delta / n;
    state.m2[j] += (x[j] - state.mean[j]) * delta;
  }
}

/**
 * Empties the accumulator (Stan's `restart`); works for {@linkcode WelfordCovarianceState} too.
 *
 * @param state Mutated.
 */
export function welfordReset(state: WelfordState | WelfordCovarianceState): void {
  state.count = 0;
  state.mean.fill(0);
  state.m2.fill(0);
}

/**
 * Stan's regularised variance estimate for the inverse metric:
 * M⁻¹_j = (n/(n + 5))·s²_j + 10⁻³·5/(n + 5), with s²_j = M2_j/(n − 1) the sample variance.
 * When n < 2 there is no sample variance and `out`'s current value stands in for s²
 * (as in Stan, which leaves the metric unchanged before shrinking it).
 *
 * @param state The accumulator.
 * @param out The current inverse metric, overwritten with the estimate.
 * @returns `out`.
 * @throws {RangeError} When the estimate is not finite (Stan: "Numerical overflow in metric
 *   adaptation").
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { regularizedVariance, welfordAdd, welfordInit } from "./mass_matrix.ts";
 * const w = welfordInit(1);
 * for (const x of [1, 2, 3, 4, 5]) welfordAdd(w, Float64Array.of(x));
 * const v = regularizedVariance(w, new Float64Array(1));
 * assert.ok(Math.abs(v[0] - (0.5 * 2.5 + 0.5e-3)) < 1e-15);
 * ```
 */
export function regularizedVariance(state: WelfordState, out: Float64Array): Float64Array {
  const n = state.count;
  for (let j = 0; j < out.length; j++) {
    const variance = n > 1 ? state.m2[j] / (n - 1) : out[j];
    out[j] = (n / (n + 5)) * variance + 1e-3 * (5 / (n + 5));
    if (!Number.isFinite(out[j])) {
      throw new RangeError(
        `Cannot adapt the metric as the variance estimate overflowed: coordinate=${j}, ` +
          `value=${out[j]} (is the posterior improper or extremely wide?)`,
      );
    }
  }
  return out;
}

/**
 * A running mean and matrix of cross-products (mutated by `welfordCovarianceAdd`). Only the
 * lower triangle (j ≤ i) of `m2` is accumulated, as Stan's Cholesky reads only that.
 */
export interface WelfordCovarianceState {
  /** Number of samples n. */
  count: number;
  readonly mean: Float64Array;
  /** Σ (x − x̄_n)(x − x̄_{n−1})ᵀ, row-major d×d, lower triangle. */
  readonly m2: Float64Array;
}

/**
 * An empty Welford covariance accumulator.
 *
 * @param dim Number of coordinates d.
 * @returns The accumulator.
 */
export function welfordCovarianceInit(dim: number): WelfordCovarianceState {
  checkDim(dim);
  return { count: 0, mean: new Float64Array(dim), m2: new Float64Array(dim * dim) };
}

/**
 * Adds a sample x (Stan's `welford_covar_estimator::add_sample`): n ← n + 1; δ = x − x̄;
 * x̄ ← x̄ + δ/n; M2_ij ← M2_ij + (x_i − x̄_i)·δ_j for j ≤ i.
 *
 * @param state Mutated.
 * @param x The sample.
 * @param delta Scratch of length d (overwritten with δ).
 */
export function welfordCovarianceAdd(
  state: WelfordCovarianceState,
  x: Float64Array,
  delta: Float64Array,
): void {
  state.count++;
  const n = state.count;
  const d = x.length;
  const { mean, m2 } = state;
  for (let j = 0; j < d; j++) {
    delta[j] = x[j] - mean[j];
    mean[j] += delta[j] / n;
  }
  for (let i = 0, row = 0; i < d; i++, row += d) {
    const r = x[i] - mean[i];
    for (let j = 0; j <= i; j++) m2[row + j] += r * delta[j];
  }
}

/**
 * Stan's regularised covariance estimate for the dense inverse metric (`covar_adaptation.hpp`):
 * Σ̂ = (n/(n + 5))·S + 10⁻³·(5/(n + 5))·I, with S = M2/(n − 1) the sample covariance. When
 * n < 2 there is no sample covariance and `out`'s current value stands in for S (as in Stan).
 * The lower triangle is computed and mirrored, so the result is exactly symmetric.
 *
 * @param state The accumulator.
 * @param out The current inverse metric (row-major d×d), overwritten with the estimate.
 * @returns `out`.
 * @throws {RangeError} When the estimate is not finite (Stan: "Numerical overflow in metric
 *   adaptation").
 *
 * @example Two coordinates with x₂ = 2x₁: S = [[2.5, 5], [5, 10]]
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   regularizedCovariance,
 *   welfordCovarianceAdd,
 *   welfordCovarianceInit,
 * } from "./mass_matrix.ts";
 * const w = welfordCovarianceInit(2);
 * for (const x of [1, 2, 3, 4, 5]) welfordCovarianceAdd(w, Float64Array.of(x, 2 * x), new Float64Array(2));
 * const c = regularizedCovariance(w, new Float64Array(4));
 * assert.ok(Math.abs(c[1] - 0.5 * 5) < 1e-15 && c[1] === c[2]);
 * assert.ok(Math.abs(c[3] - (0.5 * 10 + 0.5e-3)) < 1e-14);
 * ```
 */
export function regularizedCovariance(
  state: WelfordCovarianceState,
  out: Float64Array,
): Float64Array {
  const n = state.count;
  const d = state.mean.length;
  const shrink = n / (n + 5);
  const ridge = 1e-3 * (5 / (n + 5));
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      const covariance = n > 1 ? state.m2[i * d + j] / (n - 1) : out[i * d + j];
      const value = shrink * covariance + (i === j ? ridge : 0);
      if (!Number.isFinite(value)) {
        throw new RangeError(
          `Cannot adapt the metric as the covariance estimate overflowed: entry=[${i},${j}], ` +
            `value=${value} (is the posterior improper or extremely wide?)`,
        );
      }
      out[i * d + j] = value;
      out[j * d + i] = value;
    }
  }
  return out;
}

/**
 * The inverse-metric estimator of one warmup window (Stan's `var_adaptation` for `diag`,
 * `covar_adaptation` for `dense`): warmup adds the window's draws, and at the window's end takes
 * the metric of the regularised estimate, which also restarts the accumulator.
 */
export interface MetricEstimator {
  readonly kind: MetricKind;
  /** Windows whose dense estimate had no Cholesky factor and fell back to its diagonal. */
  readonly fallbacks: number;
  /** Adds a draw to the current window. */
  add(x: Float64Array): void;
  /** Ends the window: the metric of the regularised estimate; the accumulator restarts. */
  endWindow(): Metric;
}

class DiagEstimator implements MetricEstimator {
  readonly kind = "diag";
  readonly fallbacks = 0;
  readonly #welford: WelfordState;
  /** The last estimate of diag(M⁻¹) (ones before the first window). */
  readonly #inverse: Float64Array;

  constructor(dim: number) {
    this.#welford = welfordInit(dim);
    this.#inverse = new Float64Array(dim).fill(1);
  }

  add(x: Float64Array): void {
    welfordAdd(this.#welford, x);
  }

  endWindow(): Metric {
    regularizedVariance(this.#welford, this.#inverse);
    welfordReset(this.#welford);
    return diagMetric(Float64Array.from(this.#inverse));
  }
}

class DenseEstimator implements MetricEstimator {
  readonly kind = "dense";
  fallbacks = 0;
  readonly #dim: number;
  readonly #welford: WelfordCovarianceState;
  readonly #delta: Float64Array;
  /** The last estimate of M⁻¹ (the identity before the first window). */
  readonly #inverse: Float64Array;

  constructor(dim: number) {
    this.#dim = dim;
    this.#welford = welfordCovarianceInit(dim);
    this.#delta = new Float64Array(dim);
    this.#inverse = new Float64Array(dim * dim);
    for (let j = 0; j < dim; j++) this.#inverse[j * dim + j] = 1;
  }

  add(x: Float64Array): void {
    welfordCovarianceAdd(this.#welford, x, this.#delta);
  }

  endWindow(): Metric {
    const d = this.#dim;
    regularizedCovariance(this.#welford, this.#inverse);
    welfordReset(this.#welford);
    if (cholesky(this.#inverse, d) !== null) return denseMetric(this.#inverse, d);
    this.fallbacks++;
    return diagMetric(Float64Array.from({ length: d }, (_, j) => this.#inverse[j * d + j]));
  }
}

/**
 * A fresh inverse-metric estimator of the given kind. The `dense` estimator's metric is
 * Σ̂ = (n/(n + 5))·S + 10⁻³·(5/(n + 5))·I ({@linkcode regularizedCovariance}); should Σ̂ have
 * no Cholesky factor in floating point (the ridge makes that unlikely), that window's metric
 * falls back to the diagonal metric diag(Σ̂), which equals the `diag` estimator's
 * ({@linkcode regularizedVariance}), and `fallbacks` counts it.
 *
 * @param kind `diag` or `dense`.
 * @param dim The dimension d.
 * @returns The estimator, empty.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { metricEstimator } from "./mass_matrix.ts";
 * const estimator = metricEstimator("dense", 2);
 * for (const t of [1, 2, 3, 4, 5]) estimator.add(Float64Array.of(t, t * t));
 * assert.equal(estimator.endWindow().kind, "dense");
 * ```
 */
export function metricEstimator(kind: MetricKind, dim: number): MetricEstimator {
  return kind === "dense" ? new DenseEstimator(dim) : new DiagEstimator(dim);
}
