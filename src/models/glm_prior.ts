/**
 * Priors shared by the regression models of SPEC §5, on the unconstrained scale.
 *
 * Both coefficient priors are scale mixtures with one scale per coefficient,
 *
 *     β_k | σ_k ~ Normal(0, σ_k²),   u_k = log σ_k,
 *
 * and differ in the prior of σ_k:
 *
 * - `paper`: σ_k ~ half-Student-t(ν = 3, 0, 1), the Stan script of the vector-weighted paper
 *   (Supplement 2) with its LKJ correlation fixed at the identity (exact for K = 1). Its marginal
 *   on β_k has a log-singularity at 0 (like a horseshoe): a coefficient small on its own scale,
 *   or one whose posterior overlaps 0, drags σ_k into a funnel that NUTS cannot cross without
 *   divergences (issue 23).
 * - `student-t` (the default of syntheses): σ_k² ~ Inverse-Gamma(ν/2, ν·s²/2) with ν = 3, whose
 *   mixture is exactly β_k ~ Student-t(ν, 0, s) marginally: s = 2.5 for a covariate's coefficient
 *   and for an intercept on the logit scale (Gelman et al. 2008's weakly informative scale; a
 *   wider logit intercept left a declared level without records diverging), s = 10 for an
 *   intercept on the log scale (counts, lognormal amounts: e^10 ≈ 22,000), and s = 1000 for the
 *   normal model's intercept, on the outcome's own scale, unknown before the data (a narrow one
 *   at 0 made the api00 posterior bimodal under heavy down-weighting: the intercept at 0 with a
 *   huge residual scale). Under censoring the likelihood is bounded and the tails are the
 *   prior's, so these scales also keep every draw's mean finite. It is sampled in coordinates where β_k and the scale are
 *   independent ({@linkcode StudentTCoefficientPrior}).
 *   The inverse gamma has no mass near σ_k = 0, so given β_k the scale's conditional,
 *   σ_k⁻² ~ Gamma((ν + 1)/2, (ν s² + β_k²)/2), is the same narrow shape wherever β_k is: no
 *   funnel. It uses no data, only constants.
 *
 * Positive scale parameters use half-Student-t priors (half-Cauchy is ν = 1) placed on x = e^u;
 * every log density here is normalised and includes the log-Jacobian u of x = e^u.
 *
 * @module
 */
import type { CoefficientPrior } from "../data/design.ts";
import { sampleGamma } from "../random/distributions.ts";
import { HALF_LOG_2PI, lgamma } from "../stats/special.ts";
import type { ExactCoordinates } from "./exact_coordinates.ts";
import { checkPositiveFinite } from "../random/arguments.ts";

/**
 * A half-Student-t(ν, 0, s) prior on a positive x = e^u, evaluated on the unconstrained u:
 *
 *     log p(x) + u = log 2 + log Γ((ν+1)/2) − log Γ(ν/2) − ½·log(νπ) − log s
 *                    − (ν+1)/2 · log1p(x²/(ν s²)) + u.
 *
 * @example Half-Cauchy(0, 5) at x = 1 (u = 0): 2/(5π(1 + 1/25))
 * ```ts
 * import assert from "node:assert/strict";
 * import { HalfStudentT } from "./glm_prior.ts";
 * const p = new HalfStudentT(1, 5);
 * assert.ok(Math.abs(p.logDensity(0) - Math.log(2 / (5 * Math.PI * 1.04))) < 1e-14);
 * ```
 */
export class HalfStudentT {
  /** Degrees of freedom ν. */
  readonly nu: number;
  /** Scale s. */
  readonly scale: number;
  readonly #logNorm: number;
  readonly #invNuS2: number;

  /**
   * Precomputes the normalising constant.
   * @param nu degrees of freedom ν > 0.
   * @param scale scale s > 0.
   */
  constructor(nu: number, scale: number) {
    checkPositiveFinite("nu", nu);
    checkPositiveFinite("scale", scale);
    this.nu = nu;
    this.scale = scale;
    this.#logNorm = Math.LN2 + lgamma((nu + 1) / 2) - lgamma(nu / 2) -
      0.5 * Math.log(nu * Math.PI) - Math.log(scale);
    this.#invNuS2 = 1 / (nu * scale * scale);
  }

  /**
   * log p(e^u) + u, the log density of u when x = e^u has this prior.
   * @param u the unconstrained value, log x.
   * @returns the log density of u.
   */
  logDensity(u: number): number {
    const x = Math.exp(u);
    return this.#logNorm - 0.5 * (this.nu + 1) * Math.log1p(x * x * this.#invNuS2) + u;
  }

  /**
   * d/du [log p(e^u) + u] = 1 − (ν+1)·z/(1+z) with z = x²/(ν s²).
   * @param u the unconstrained value, log x.
   * @returns the derivative of {@link HalfStudentT.logDensity} at u.
   */
  gradient(u: number): number {
    const x = Math.exp(u);
    const z = x * x * this.#invNuS2;
    return 1 - (this.nu + 1) / (1 + 1 / z);
  }
}

/**
 * σ² ~ Inverse-Gamma(a, b) on σ = e^u: p(σ) = 2·bᵃ/Γ(a)·σ^(−2a−1)·e^(−b/σ²), so
 *
 *     log p(e^u) + u = log 2 + a·log b − log Γ(a) − 2a·u − b·e^(−2u).
 *
 * @example With a = 1, b = 1 at σ = 1 (u = 0): log 2 − 1
 * ```ts
 * import assert from "node:assert/strict";
 * import { InverseGammaVariance } from "./glm_prior.ts";
 * assert.ok(Math.abs(new InverseGammaVariance(1, 1).logDensity(0) - (Math.LN2 - 1)) < 1e-15);
 * ```
 */
export class InverseGammaVariance {
  /** Shape a. */
  readonly shape: number;
  /** Scale b. */
  readonly scale: number;
  readonly #logNorm: number;

  /**
   * @param shape a > 0.
   * @param scale b > 0.
   */
  constructor(shape: number, scale: number) {
    checkPositiveFinite("shape", shape);
    checkPositiveFinite("scale", scale);
    this.shape = shape;
    this.scale = scale;
    this.#logNorm = Math.LN2 + shape * Math.log(scale) - lgamma(shape);
  }

  /**
   * log p(e^u) + u.
   * @param u log σ.
   */
  logDensity(u: number): number {
    return this.#logNorm - 2 * this.shape * u - this.scale * Math.exp(-2 * u);
  }

  /**
   * −2a + 2b·e^(−2u).
   * @param u log σ.
   */
  gradient(u: number): number {
    return -2 * this.shape + 2 * this.scale * Math.exp(-2 * u);
  }
}

/** The prior σ_β,k ~ half-Student-t(3, 0, 1) of the coefficient scales (Stan script, Supp 2). */
export const COEFFICIENT_SCALE_PRIOR: HalfStudentT = new HalfStudentT(3, 1);

/**
 * Degrees of freedom ν and scales s of the `student-t` prior β_k ~ Student-t(ν, 0, s): one for
 * covariates' coefficients, one for intercepts on a log or logit scale, one for the normal
 * model's intercept (on the outcome's own scale).
 */
export const STUDENT_T_COEFFICIENT = { nu: 3, scale: 2.5 } as const;

/** The `student-t` prior's intercept scale s by the scale of the linear predictor. */
export const STUDENT_T_INTERCEPT_SCALE = { logit: 2.5, log: 10, identity: 1000 } as const;

/** The scale of a linear predictor: logit, log, or the outcome's own (identity). */
export type PredictorScale = keyof typeof STUDENT_T_INTERCEPT_SCALE;

/**
 * A coefficient prior on u = (β_1..β_m, v_1..v_m, …): its log density (with the log-Jacobian of
 * the scales' transform) and the map between v_k and the scale σ_k of β_k | σ_k ~ N(0, σ_k²).
 */
export interface CoefficientPriorTerms {
  /**
   * The scale coordinates v_1..v_m (at u's entries m..2m−1) when they are independent of
   * everything else with a known law, for the sampler to draw exactly; undefined otherwise.
   */
  readonly exact: ExactCoordinates | undefined;
  /** The log density at u's first 2m entries; writes (not adds) its gradient into grad[0..2m). */
  logDensity(u: Float64Array, m: number, grad: Float64Array | null): number;
  /** σ_j from β_j and v_j. */
  scale(j: number, beta: number, v: number): number;
  /** v_j from β_j and σ_j > 0. */
  unscale(j: number, beta: number, sigma: number): number;
}

/** The papers' prior: v_k = log σ_k, σ_k ~ half-t(3, 0, 1) ({@linkcode coefficientPriorLogDensity}). */
export const PAPER_COEFFICIENT_PRIOR: CoefficientPriorTerms = {
  exact: undefined,
  logDensity: (u, m, grad) => coefficientPriorLogDensity(u, m, grad),
  scale: (_j, _beta, v) => Math.exp(v),
  unscale: (_j, _beta, sigma) => Math.log(sigma),
};

/**
 * The `student-t` prior: β_k | σ_k ~ N(0, σ_k²), σ_k² ~ Inverse-Gamma(ν/2, ν s_k²/2), so that
 * β_k ~ Student-t(ν, 0, s_k), sampled in coordinates where the two are independent. Given β_k,
 * σ_k⁻² ~ Gamma(a, (ν s_k² + β_k²)/2) with a = (ν + 1)/2 (the likelihood does not involve σ_k),
 * so with g(β) = √((ν s² + β²)/(ν + 1)) the variable v_k = log σ_k − log g(β_k) has
 * e^(−2v) ~ Gamma(a, rate a) whatever β_k is: the joint density in (β_k, v_k), whose Jacobian to
 * (β_k, log σ_k) is 1, is exactly
 *
 *     log t_ν(β_k; 0, s_k) + log p(v_k),   p(v) the Inverse-Gamma(a, a) variance law of e^v,
 *
 * a product: NUTS sees the marginal Student-t and an independent fixed shape, no funnel and no
 * curved ridge. The target in (β, σ) is unchanged; draws report σ_k = e^(v_k)·g(β_k).
 *
 * Since the likelihood does not involve σ_k either, v_k is independent of everything under the
 * target, whatever the weighting, with e^(−2v_k) ~ Gamma(a, rate a): the sampler draws the v_k
 * exactly ({@linkcode StudentTCoefficientPrior.exact}) and NUTS explores β and the model's extra
 * parameter only (issue 23: on CPS1988's region conditional, 10.8 → 7.4 gradients per iteration).
 */
export class StudentTCoefficientPrior implements CoefficientPriorTerms {
  /** Degrees of freedom ν. */
  readonly nu: number;
  /** s_j of every coefficient (β_j ~ Student-t(ν, 0, s_j) marginally). */
  readonly scales: readonly number[];
  /** s_j² per coefficient. */
  readonly #scale2: Float64Array;
  /** log t_ν(0; 0, s_j)'s constant per coefficient. */
  readonly #logNorm: Float64Array;
  readonly #v: InverseGammaVariance;
  /** v_1..v_m at u's entries m..2m−1: v = −½·log G, G ~ Gamma(a, rate a), a = (ν + 1)/2. */
  readonly exact: ExactCoordinates;

  /**
   * @param scales s_j of every coefficient.
   * @param nu Degrees of freedom ν.
   */
  constructor(scales: ArrayLike<number>, nu: number = STUDENT_T_COEFFICIENT.nu) {
    this.nu = nu;
    this.scales = Object.freeze(Array.from(scales));
    this.#scale2 = Float64Array.from(scales, (s) => s * s);
    const constant = lgamma((nu + 1) / 2) - lgamma(nu / 2) - 0.5 * Math.log(nu * Math.PI);
    this.#logNorm = Float64Array.from(scales, (s) => constant - Math.log(s));
    const a = (nu + 1) / 2;
    this.#v = new InverseGammaVariance(a, a);
    const m = scales.length;
    this.exact = {
      indices: Array.from({ length: m }, (_, j) => m + j),
      draw: (rng, out) => {
        for (let j = 0; j < m; j++) out[j] = -0.5 * Math.log(sampleGamma(rng, a, a));
      },
    };
  }

  logDensity(u: Float64Array, m: number, grad: Float64Array | null): number {
    const nu = this.nu;
    let total = 0;
    for (let j = 0; j < m; j++) {
      const beta = u[j];
      const spread = nu * this.#scale2[j];
      total += this.#logNorm[j] - 0.5 * (nu + 1) * Math.log1p((beta * beta) / spread) +
        this.#v.logDensity(u[m + j]);
      if (grad !== null) {
        grad[j] = (-(nu + 1) * beta) / (spread + beta * beta);
        grad[m + j] = this.#v.gradient(u[m + j]);
      }
    }
    return total;
  }

  scale(j: number, beta: number, v: number): number {
    return Math.exp(v) * Math.sqrt((this.nu * this.#scale2[j] + beta * beta) / (this.nu + 1));
  }

  unscale(j: number, beta: number, sigma: number): number {
    const g2 = (this.nu * this.#scale2[j] + beta * beta) / (this.nu + 1);
    return Math.log(sigma) - 0.5 * Math.log(g2);
  }
}

/**
 * The coefficient prior of a model whose m coefficients come in blocks of the design's K (one
 * block per linear predictor: a categorical level, a hurdle part), each block led by its
 * intercept. Absent or `paper`: the papers' half-t(3, 0, 1) scales.
 *
 * @param prior The coefficient prior.
 * @param m The number of coefficients (a multiple of k).
 * @param k The coefficients per block, the first of each the intercept.
 * @param scales The scale of each block's linear predictor (one for all blocks when shorter).
 * @returns The prior's terms.
 */
export function coefficientPrior(
  prior: CoefficientPrior | undefined,
  m: number,
  k: number,
  scales: readonly PredictorScale[],
): CoefficientPriorTerms {
  if (prior !== "student-t") return PAPER_COEFFICIENT_PRIOR;
  return new StudentTCoefficientPrior(
    Array.from({ length: m }, (_, j) => {
      if (j % k !== 0) return STUDENT_T_COEFFICIENT.scale;
      const block = Math.floor(j / k);
      return STUDENT_T_INTERCEPT_SCALE[scales[Math.min(block, scales.length - 1)]];
    }),
  );
}

/**
 * The prior 1/φ ~ half-Cauchy(0, 5) of the reciprocal precision or dispersion of the negative
 * binomial and beta models (Stan script, Supp 2: `reciprocal_phi ~ cauchy(0., 5)`).
 */
export const RECIPROCAL_PHI_PRIOR: HalfStudentT = new HalfStudentT(1, 5);

/**
 * The prior σ ~ half-Student-t(3, 0, 10) of the residual scale of the normal and lognormal
 * models (the scales' prior of the survey paper, Appendix C).
 */
export const SIGMA_PRIOR: HalfStudentT = new HalfStudentT(3, 10);

/**
 * Log density of the papers' coefficient prior at u = (β_1..β_K, log σ_1..log σ_K, …):
 *
 *     Σ_k [ log N(β_k | 0, σ_k²) + log p_t3(σ_k) + log σ_k ],
 *
 * with its gradient written (not added) into grad[0..2K): ∂/∂β_k = −β_k/σ_k² and
 * ∂/∂u_k = −1 + β_k²/σ_k² + d/du_k[log p_t3(e^u_k) + u_k].
 *
 * @param u the unconstrained parameter vector; only its first 2K entries are read.
 * @param k the number of coefficients K.
 * @param grad where the gradient goes (entries 0..2K−1), or null.
 * @returns the log prior density of the coefficients and their scales.
 * @example K = 1 at β = 0, σ = 1: log N(0|0,1) + log[2·Γ(2)/(Γ(3/2)√(3π))·(1 + 1/3)⁻²]
 * ```ts
 * import assert from "node:assert/strict";
 * import { coefficientPriorLogDensity } from "./glm_prior.ts";
 * const want = -0.5 * Math.log(2 * Math.PI) + Math.log(4 / (Math.PI * Math.sqrt(3))) -
 *   2 * Math.log(4 / 3);
 * assert.ok(Math.abs(coefficientPriorLogDensity(new Float64Array(2), 1, null) - want) < 1e-14);
 * ```
 */
export function coefficientPriorLogDensity(
  u: Float64Array,
  k: number,
  grad: Float64Array | null,
): number {
  let total = 0;
  for (let j = 0; j < k; j++) {
    const beta = u[j];
    const logSigma = u[k + j];
    const invVar = Math.exp(-2 * logSigma);
    const z = beta * beta * invVar;
    total += -HALF_LOG_2PI - logSigma - 0.5 * z + COEFFICIENT_SCALE_PRIOR.logDensity(logSigma);
    if (grad !== null) {
      grad[j] = -beta * invVar;
      grad[k + j] = z - 1 + COEFFICIENT_SCALE_PRIOR.gradient(logSigma);
    }
  }
  return total;
}
