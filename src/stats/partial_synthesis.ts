/**
 * Combining rules for partially synthetic data (Reiter 2003; the survey paper's Appendix A,
 * SPEC §8): point estimate, variance, degrees of freedom and t interval of one estimand from its
 * estimates in m synthetic datasets.
 *
 * @module
 */
import { studentTQuantile } from "./student_t.ts";

/** The combined inference for one estimand. */
export interface CombinedEstimate {
  /** The number of synthetic datasets. */
  readonly m: number;
  /** q̄ = Σ_ℓ q^(ℓ)/m. */
  readonly estimate: number;
  /** b = Σ_ℓ (q^(ℓ) − q̄)²/(m − 1), the between-dataset variance (0 when m = 1). */
  readonly between: number;
  /** ū = Σ_ℓ u^(ℓ)/m, the mean within-dataset variance. */
  readonly within: number;
  /** T = b/m + ū, the variance of q̄. */
  readonly variance: number;
  /** √T. */
  readonly se: number;
  /** ν = (m − 1)·(1 + ū/(b/m))², ∞ when b = 0. */
  readonly df: number;
  /** q̄ − t_{ν, (1+level)/2}·√T. */
  readonly lower: number;
  /** q̄ + t_{ν, (1+level)/2}·√T. */
  readonly upper: number;
}

/** Refuses a coverage level outside (0, 1), naming it. */
export function checkLevel(level: number): void {
  if (!(level > 0 && level < 1)) {
    throw new RangeError(`Invalid level: must lie in (0, 1): level=${level}`);
  }
}

/**
 * Combines m estimates q^(ℓ) and their variances u^(ℓ) by the partial-synthesis rules of the
 * survey paper's Appendix A (Reiter 2003): q̄ = Σq^(ℓ)/m, b = Σ(q^(ℓ) − q̄)²/(m − 1),
 * ū = Σu^(ℓ)/m, T = b/m + ū, ν = (m − 1)(1 + ū/(b/m))², and the interval q̄ ± t_{ν,(1+level)/2}·√T.
 * When b = 0 (all q^(ℓ) equal, or m = 1, where b cannot be estimated and is taken as 0) ν is
 * infinite and the interval uses the normal quantile.
 *
 * @param q The m ≥ 1 point estimates (finite).
 * @param u Their m variances (non-negative, finite).
 * @param level The interval's coverage (default 0.95).
 * @returns The combined inference.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { combinePartialSynthesis } from "./partial_synthesis.ts";
 * const c = combinePartialSynthesis([1, 2, 3], [0.5, 0.5, 0.5]);
 * assert.equal(c.estimate, 2);
 * assert.equal(c.between, 1);
 * assert.ok(Math.abs(c.df - 12.5) < 1e-12);
 * ```
 */
export function combinePartialSynthesis(
  q: ArrayLike<number>,
  u: ArrayLike<number>,
  level = 0.95,
): CombinedEstimate {
  const m = q.length;
  if (m < 1) throw new RangeError(`Invalid q: needs at least one estimate: m=${m}`);
  if (u.length !== m) {
    throw new RangeError(`Invalid u: needs one variance per estimate: length=${u.length}, m=${m}`);
  }
  checkLevel(level);
  let sumQ = 0;
  let sumU = 0;
  for (let l = 0; l < m; l++) {
    if (!Number.isFinite(q[l])) throw new RangeError(`Invalid q: must be finite: q[${l}]=${q[l]}`);
    if (!(u[l] >= 0) || !Number.isFinite(u[l])) {
      throw new RangeError(`Invalid u: must be non-negative and finite: u[${l}]=${u[l]}`);
    }
    sumQ += q[l];
    sumU += u[l];
  }
  const estimate = sumQ / m;
  let squares = 0;
  for (let l = 0; l < m; l++) squares += (q[l] - estimate) ** 2;
  const between = m > 1 ? squares / (m - 1) : 0;
  const within = sumU / m;
  const variance = between / m + within;
  const df = between > 0 ? (m - 1) * (1 + within / (between / m)) ** 2 : Infinity;
  const se = Math.sqrt(variance);
  const half = studentTQuantile((1 + level) / 2, df) * se;
  return {
    m,
    estimate,
    between,
    within,
    variance,
    se,
    df,
    lower: estimate - half,
    upper: estimate + half,
  };
}
