/**
 * The regression models of SPEC §5 behind one factory.
 *
 * @module
 */
import { BetaModel } from "./beta.ts";
import { FbpModel } from "./fbp.ts";
import { FbsModel } from "./fbs.ts";
import { LognormalModel } from "./lognormal.ts";
import type { Design, Model, ModelName, OutcomeKind } from "./model.ts";
import { NegBinModel } from "./negbin.ts";
import { NormalModel } from "./normal.ts";
import { PoissonModel } from "./poisson.ts";

export * from "./model.ts";
export * from "./special.ts";
export * from "./glm_prior.ts";
export { PoissonModel } from "./poisson.ts";
export { NegBinModel } from "./negbin.ts";
export { BetaModel } from "./beta.ts";
export { GaussianRegression, NormalModel } from "./normal.ts";
export { LognormalModel } from "./lognormal.ts";
export { logLikMatrix } from "./log_lik_matrix.ts";
export { FbsModel, lkj2LogDensity, LKJ_ETA } from "./fbs.ts";
export { FBP_COEFFICIENT_SD, FBP_SCALE_PRIOR, FbpModel, normaliseWithinStrata } from "./fbp.ts";
export {
  isSurveyModel,
  type SurveyDraw,
  type SurveyModel,
  type SurveyStrata,
} from "./survey_model.ts";

/** The model names `createModel` accepts, in the order the CLI lists them. */
export const MODEL_NAMES = [
  "poisson",
  "negbin",
  "beta",
  "normal",
  "lognormal",
  "fbs",
  "fbp",
] as const;

const OUTCOME_KINDS: Readonly<Record<ModelName, OutcomeKind>> = Object.freeze({
  poisson: "count",
  negbin: "count",
  beta: "unit-interval",
  normal: "real",
  lognormal: "positive",
  fbs: "positive",
  fbp: "positive",
});

/**
 * What a model's outcome column must hold: counts for poisson and negbin, values in (0, 1) for
 * beta, positive values for lognormal, fbs and fbp (which also need `design.weight`), any real
 * for normal.
 *
 * @param name the model.
 * @returns the outcome kind the data reader checks.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { outcomeKind } from "./mod.ts";
 * assert.equal(outcomeKind("beta"), "unit-interval");
 * ```
 */
export function outcomeKind(name: ModelName): OutcomeKind {
  const kind = OUTCOME_KINDS[name];
  if (kind === undefined) throw new RangeError(`Unknown model: name=${name}`);
  return kind;
}

/**
 * Builds the model `name` of SPEC §5 bound to `design`.
 *
 * @param name the model.
 * @param design outcome and covariates (column 0 the intercept).
 * @returns the model.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createModel } from "./mod.ts";
 * const m = createModel("negbin", {
 *   n: 1, k: 1, y: new Float64Array([3]), x: new Float64Array([1]), coefficientNames: ["intercept"],
 * });
 * assert.deepEqual(m.paramNames, ["intercept", "sigma_beta_intercept", "phi"]);
 * ```
 */
export function createModel(name: ModelName, design: Design): Model {
  switch (name) {
    case "poisson":
      return new PoissonModel(design);
    case "negbin":
      return new NegBinModel(design);
    case "beta":
      return new BetaModel(design);
    case "normal":
      return new NormalModel(design);
    case "lognormal":
      return new LognormalModel(design);
    case "fbs":
      return new FbsModel(design);
    case "fbp":
      return new FbpModel(design);
    default:
      throw new RangeError(`Unknown model: name=${name}`);
  }
}
