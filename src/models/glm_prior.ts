/**
 * Priors shared by the regression models of SPEC §5, on the unconstrained scale.
 *
 * The coefficient prior follows the Stan script of the vector-weighted paper (Supplement 2) with
 * its LKJ correlation fixed at the identity, which makes the multivariate normal a product of
 * independent normals (exact for K = 1):
 *
 *     β_k | σ_k ~ Normal(0, σ_k²),   σ_k ~ half-Student-t(ν = 3, 0, 1),   u_k = log σ_k.
 *
 * Positive scale parameters use half-Student-t priors (half-Cauchy is ν = 1) placed on x = e^u;
 * every log density here is normalised and includes the log-Jacobian u of x = e^u.
 *
 * @module
 */
import { HALF_LOG_2PI, lgamma } from "../stats/special.ts";

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
    if (!(nu > 0) || !Number.isFinite(nu)) {
      throw new RangeError(`Invalid nu: must be positive and finite: nu=${nu}`);
    }
    if (!(scale > 0) || !Number.isFinite(scale)) {
      throw new RangeError(`Invalid scale: must be positive and finite: scale=${scale}`);
    }
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

/** The prior σ_β,k ~ half-Student-t(3, 0, 1) of the coefficient scales (Stan script, Supp 2). */
export const COEFFICIENT_SCALE_PRIOR: HalfStudentT = new HalfStudentT(3, 1);

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
 * Log density of the coefficient prior at u = (β_1..β_K, log σ_1..log σ_K, …):
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
