/**
 * The model contract every synthesizer model implements (SPEC §5).
 *
 * A model is bound to one dataset (outcome and public covariates). Parameters live on two
 * scales: the constrained scale θ (what is reported and what the Lipschitz matrix is evaluated
 * at) and the unconstrained scale u (what the sampler moves on). Both have the same length
 * `dim`; every transform is element-wise (log for positive parameters).
 *
 * @module
 */
import type { MetricKind } from "../mcmc/metric.ts";
import type { Rng } from "../random/rng.ts";

/** Names of the models of SPEC §5 that take public covariates. */
export type ModelName = "poisson" | "negbin" | "beta" | "normal" | "lognormal" | "fbs" | "fbp";

/** What the outcome column must hold for a model, checked when data are read. */
export type OutcomeKind = "count" | "unit-interval" | "positive" | "real";

/**
 * How record log-likelihoods enter the log target (SPEC §1 and §3).
 *
 * The contribution of record i is c_i = α_i·ℓ_i(θ); when `censor` is set it is clamped to
 * [−censor, censor] (the censored likelihood, with zero gradient where clamped).
 * `alpha === null` means every α_i = 1.
 */
export interface Weighting {
  /** α_i ∈ [0, 1] per record, or null for all 1. */
  readonly alpha: Float64Array | null;
  /** The censoring bound C > 0 of SPEC §3 (ε/2), or absent for none. */
  readonly censor?: number;
}

/** The unweighted pseudo posterior: every α_i = 1, no censoring. */
export const UNWEIGHTED: Weighting = Object.freeze({ alpha: null });

/** Outcome and public covariates, row-major, with an intercept column first. */
export interface Design {
  /** Number of records n. */
  readonly n: number;
  /** Number of regression coefficients K (intercept included). */
  readonly k: number;
  /** Outcome y, length n. */
  readonly y: Float64Array;
  /** Covariates, n×K row-major; column 0 is all ones. */
  readonly x: Float64Array;
  /**
   * Coefficient names, length K: "intercept" then the covariates' column names (a categorical
   * covariate contributes one dummy per level but the first, named `column=level`).
   */
  readonly coefficientNames: readonly string[];
  /** Survey weights w_i > 0, length n, for the survey models (FBS, FBP); absent otherwise. */
  readonly weight?: Float64Array;
}

/** A model bound to one dataset. */
export interface Model {
  /** The model's name, e.g. "negbin". */
  readonly name: string;
  /** The data the model is bound to. */
  readonly design: Design;
  /** Length of θ and of u. */
  readonly dim: number;
  /** Names of θ's entries, in order (e.g. intercept, covariates, phi). */
  readonly paramNames: readonly string[];
  /**
   * The NUTS metric a fit of this model uses unless its options name one: `dense` for models
   * whose posteriors are strongly correlated (FBS, FBP); absent means `diag`, Stan's default.
   */
  readonly metric?: MetricKind;
  /** Maps unconstrained u to constrained θ (writes `out`, returns it). */
  constrain(u: Float64Array, out?: Float64Array): Float64Array;
  /** Maps constrained θ to unconstrained u (writes `out`, returns it). */
  unconstrain(theta: Float64Array, out?: Float64Array): Float64Array;
  /** A reasonable starting point on the unconstrained scale (the sampler jitters it). */
  initialPoint(): Float64Array;
  /** Per-record log-likelihood ℓ_i(θ) at constrained θ, written into `out` (length n). */
  logLik(theta: Float64Array, out: Float64Array): Float64Array;
  /**
   * Log target at unconstrained u: Σ_i c_i(θ(u)) + log ξ(θ(u)) + log|dθ/du|, with its
   * gradient with respect to u written into `grad` when given. Non-finite values are returned
   * as they are (the sampler rejects them); this never throws on a bad point.
   */
  logDensity(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number;
  /** Draws a synthetic outcome for every record from p(y | x_i, θ) into `out` (length n). */
  simulate(theta: Float64Array, rng: Rng, out: Float64Array): Float64Array;
}
