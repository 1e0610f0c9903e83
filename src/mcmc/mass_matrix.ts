/**
 * Diagonal mass-matrix estimation for warmup: Welford's running variance (Welford 1962;
 * Stan's `welford_var_estimator`) and Stan's regularised estimate (`var_adaptation.hpp`).
 *
 * @module
 */

/** A running mean and sum of squared deviations per coordinate (mutated by `welfordAdd`). */
export interface WelfordState {
  /** Number of samples n. */
  count: number;
  readonly mean: Float64Array;
  /** Σ (x − x̄_n)(x − x̄_{n−1}) per coordinate. */
  readonly m2: Float64Array;
}

/**
 * An empty Welford accumulator.
 *
 * @param dim Number of coordinates.
 * @returns The accumulator.
 */
export function welfordInit(dim: number): WelfordState {
  if (!Number.isInteger(dim) || dim < 1) {
    throw new RangeError(`Invalid dim: must be an integer ≥ 1: dim=${dim}`);
  }
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

/** Empties the accumulator (Stan's `restart`). */
export function welfordReset(state: WelfordState): void {
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
