/**
 * Lognormal regression (SPEC §5): log y_i ~ N(η_i, σ²), η_i = x_iᵀβ, with the coefficient prior
 * of `glm_prior.ts` and σ ~ half-Student-t(3, 0, 10), sampled on u = log σ. ℓ_i is the density
 * of y_i itself, so it carries the Jacobian −log y_i:
 *
 *     ℓ_i = −½·log(2π) − log y_i − log σ − (log y_i − η_i)²/(2σ²).
 *
 * @module
 */
import { SIGMA_PRIOR } from "./glm_prior.ts";
import { describeModel, type Design, hmcKernels } from "./model.ts";
import { type GaussianOptions, GaussianRegression } from "./normal.ts";
import { HALF_LOG_2PI } from "../stats/special.ts";

/**
 * The lognormal regression model: z = log y, c_i = −½·log(2π) − log y_i.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LognormalModel } from "./lognormal.ts";
 * const m = new LognormalModel({
 *   n: 1, k: 1, y: new Float64Array([Math.E]), x: new Float64Array([1]), coefficientNames: ["intercept"],
 * });
 * const l = m.logLik(new Float64Array([1, 1, 1]), new Float64Array(1));
 * assert.ok(Math.abs(l[0] - (-0.5 * Math.log(2 * Math.PI) - 1)) < 1e-15);
 * ```
 */
export class LognormalModel extends GaussianRegression {
  /**
   * Binds the model to a dataset and precomputes log y_i.
   * @param design outcome (positive) and covariates.
   * @param options `sums: false` keeps the record loop (see {@link GaussianRegression}).
   */
  constructor(design: Design, options: GaussianOptions = {}) {
    const z = design.y.map(Math.log);
    super("lognormal", design, z, z.map((lz) => -HALF_LOG_2PI - lz), "log", options);
  }

  /** y = e^z, so y*_i ~ LogNormal(η_i, σ²). */
  protected fromNormalScale(z: number): number {
    return Math.exp(z);
  }
}

/** The lognormal model's registry entry: positive outcomes, the Gaussian GPU kernels on log y. */
export const LOGNORMAL = describeModel("lognormal", "positive", (d) => new LognormalModel(d), {
  gpu: hmcKernels("gaussian", [Math.log, (y) => -HALF_LOG_2PI - Math.log(y)], SIGMA_PRIOR),
});
