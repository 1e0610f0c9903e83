/**
 * The models of SPEC §5 and their registry (`createModel`, the model names, GPU kernels).
 *
 * @module
 */
export * from "./model.ts";
export * from "./registry.ts";
export * from "./glm_prior.ts";
export { POISSON, PoissonModel } from "./poisson.ts";
export { NEGBIN, NegBinModel } from "./negbin.ts";
export { BETA, BetaModel } from "./beta.ts";
export { GaussianRegression, NORMAL, NormalModel } from "./normal.ts";
export { LOGNORMAL, LognormalModel } from "./lognormal.ts";
export { logLikMatrix } from "./log_lik_matrix.ts";
export { FBS, FbsModel, lkj2LogDensity, LKJ_ETA } from "./fbs.ts";
export { FBP, FBP_COEFFICIENT_SD, FBP_SCALE_PRIOR, FbpModel } from "./fbp.ts";
export { LOGISTIC, LogisticModel } from "./logistic.ts";
export { CATEGORICAL, CategoricalModel } from "./categorical.ts";
export { HURDLE, HurdleModel } from "./hurdle.ts";
export {
  isSurveyModel,
  normaliseToTotal,
  type SurveyDraw,
  type SurveyModel,
} from "./survey_model.ts";
