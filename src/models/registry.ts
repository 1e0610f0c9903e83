/**
 * The model registry: one {@linkcode ModelDescriptor} per model of SPEC §5, written next to its
 * class, and everything derived from them (the names, the outcome each needs, `createModel`,
 * which models have GPU kernels), with what each model needs of a synthesis request
 * ({@linkcode ModelRequirements}: a survey weight, strata, one outcome, default bounds). Adding a
 * model adds one line to {@linkcode MODELS} and one to the requirements (`docs/adding-a-model.md`).
 *
 * @module
 */
import type { Design } from "../data/design.ts";
import { BETA } from "./beta.ts";
import { CATEGORICAL } from "./categorical.ts";
import { FBP } from "./fbp.ts";
import { FBS } from "./fbs.ts";
import { HURDLE } from "./hurdle.ts";
import { LOGISTIC } from "./logistic.ts";
import { LOGNORMAL } from "./lognormal.ts";
import type { Model, ModelDescriptor, ModelGpu, OutcomeKind } from "./model.ts";
import { NEGBIN } from "./negbin.ts";
import { NORMAL } from "./normal.ts";
import { POISSON } from "./poisson.ts";

/** Every model, in the order the CLI lists them. */
export const MODELS = Object.freeze(
  [POISSON, NEGBIN, BETA, NORMAL, LOGNORMAL, FBS, FBP, LOGISTIC, CATEGORICAL, HURDLE] as const,
);

/** Names of the models `createModel` builds. */
export type ModelName = (typeof MODELS)[number]["name"];

/** The model names `createModel` accepts, in the order the CLI lists them. */
export const MODEL_NAMES = Object.freeze(MODELS.map((model) => model.name)) as readonly [
  ModelName,
  ...ModelName[],
];

const BY_NAME: ReadonlyMap<string, ModelDescriptor> = new Map(
  MODELS.map((model) => [model.name, model]),
);

/**
 * The descriptor of the model `name`.
 *
 * @param name the model.
 * @returns its descriptor.
 * @throws RangeError for a name no model has.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelDescriptor } from "./registry.ts";
 * assert.equal(modelDescriptor("fbs").metric, "dense");
 * ```
 */
export function modelDescriptor(name: string): ModelDescriptor {
  const descriptor = BY_NAME.get(name);
  if (descriptor === undefined) throw new RangeError(`Unknown model: name=${name}`);
  return descriptor;
}

/**
 * What a model needs of a synthesis request besides its outcome column, known before anything
 * runs (public facts only). The request checks (`synthesis/spec.ts`, the job policy) and the
 * pipeline (`synthesis/synthesize.ts`) read it; no other list of survey models exists.
 */
export interface ModelRequirements {
  /**
   * Whether it needs the survey weight column (`weight`): FBS and FBP model the weight and release
   * smoothed synthetic weights. With any other model a given weight is synthesised as an outcome
   * of its own.
   */
  readonly surveyWeight: boolean;
  /**
   * Whether it needs the stratum column (`strata`) and the public size of every stratum
   * (`stratumSizes`): FBP scales its synthetic weights to their total.
   */
  readonly stratumSizes: boolean;
  /**
   * "one": its outcome is the synthesis's only one (a survey model: one outcome with its
   * weights); "several": it can also be one conditional of several outcomes.
   */
  readonly outcomes: "one" | "several";
  /**
   * The public bounds its outcome has by definition, used when the request gives none and it is
   * the only outcome (the histogram's range): beta's unit interval [0, 1]; null for none.
   */
  readonly bounds: { readonly lower: number; readonly upper: number } | null;
}

/** A model that needs nothing of the request beyond its outcome column. */
const NO_REQUIREMENTS: ModelRequirements = Object.freeze({
  surveyWeight: false,
  stratumSizes: false,
  outcomes: "several",
  bounds: null,
});

/** A survey model: one outcome with its survey weight. */
const SURVEY: ModelRequirements = Object.freeze({
  ...NO_REQUIREMENTS,
  surveyWeight: true,
  outcomes: "one",
});

/** Each model's requirements (the type checker asks for a new model's line here). */
const REQUIREMENTS: { readonly [N in ModelName]: ModelRequirements } = Object.freeze({
  poisson: NO_REQUIREMENTS,
  negbin: NO_REQUIREMENTS,
  beta: Object.freeze({ ...NO_REQUIREMENTS, bounds: Object.freeze({ lower: 0, upper: 1 }) }),
  normal: NO_REQUIREMENTS,
  lognormal: NO_REQUIREMENTS,
  fbs: SURVEY,
  fbp: Object.freeze({ ...SURVEY, stratumSizes: true }),
  logistic: NO_REQUIREMENTS,
  categorical: NO_REQUIREMENTS,
  hurdle: NO_REQUIREMENTS,
});

/**
 * What the model `name` needs of a synthesis request: a survey weight and strata (fbs, fbp), one
 * outcome only (fbs, fbp), bounds by definition (beta's [0, 1]).
 *
 * @param name the model.
 * @returns its requirements.
 * @throws RangeError for a name no model has.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelRequirements } from "./registry.ts";
 * assert.equal(modelRequirements("fbp").stratumSizes, true);
 * assert.equal(modelRequirements("fbs").outcomes, "one");
 * assert.deepEqual(modelRequirements("beta").bounds, { lower: 0, upper: 1 });
 * assert.equal(modelRequirements("normal").surveyWeight, false);
 * ```
 */
export function modelRequirements(name: ModelName): ModelRequirements {
  if (!Object.hasOwn(REQUIREMENTS, name)) throw new RangeError(`Unknown model: name=${name}`);
  return REQUIREMENTS[name];
}

/**
 * What a model's outcome column must hold: counts for poisson and negbin, values in (0, 1) for
 * beta, positive values for lognormal, fbs and fbp (which also need `design.weight`), any real
 * for normal, two levels for logistic, two or more for categorical, non-negative values for
 * hurdle.
 *
 * @param name the model.
 * @returns the outcome kind the data reader checks.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { outcomeKind } from "./registry.ts";
 * assert.equal(outcomeKind("beta"), "unit-interval");
 * ```
 */
export function outcomeKind(name: ModelName): OutcomeKind {
  return modelDescriptor(name).outcome;
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
 * import { createModel } from "./registry.ts";
 * const m = createModel("negbin", {
 *   n: 1, k: 1, y: new Float64Array([3]), x: new Float64Array([1]), coefficientNames: ["intercept"],
 * });
 * assert.deepEqual(m.paramNames, ["intercept", "sigma_beta_intercept", "phi"]);
 * ```
 */
export function createModel(name: ModelName, design: Design): Model {
  return modelDescriptor(name).create(design);
}

/**
 * Binds the model `name` to designs of some of `parent`'s records so that each record's ℓ is the
 * one the model on `parent` computes, bit for bit: the descriptor's `subset` where it has one
 * (a record loop that groups rows), else `create` (`src/gpu/lipschitz_confirm.ts` uses it).
 *
 * @param name the model.
 * @param parent the design the subsets are drawn from.
 * @returns a builder of the model on a subset's design.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { subsetModel } from "./registry.ts";
 * const parent = {
 *   n: 2, k: 1, y: new Float64Array([0, 1]), x: new Float64Array([1, 1]),
 *   coefficientNames: ["intercept"],
 * };
 * assert.equal(subsetModel("logistic", parent)(parent).name, "logistic");
 * assert.equal(subsetModel("poisson", parent)(parent).name, "poisson");
 * ```
 */
export function subsetModel(name: ModelName, parent: Design): (design: Design) => Model {
  const descriptor = modelDescriptor(name);
  return descriptor.subset?.(parent) ?? descriptor.create;
}

/**
 * The GPU kernels of the model `name`, or null when it has none (an unknown name). Every model of
 * {@linkcode MODELS} has a Lipschitz kernel; {@linkcode hasGpuHmc} says which also run GPU HMC.
 *
 * @param name a model's name (`model.name`).
 * @returns its GPU description.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gpuSpec } from "./registry.ts";
 * assert.equal(gpuSpec("lognormal")?.kernel, "gaussian");
 * assert.equal(gpuSpec("fbp")?.kernel, "fbp");
 * assert.equal(gpuSpec("fbp")?.hmc, false);
 * assert.equal(gpuSpec("gamma"), null);
 * ```
 */
export function gpuSpec(name: string): ModelGpu | null {
  return BY_NAME.get(name)?.gpu ?? null;
}

/**
 * Whether the many-chain GPU HMC sampler runs the model `name`.
 *
 * @param name a model's name (`model.name`).
 * @returns true for the models whose descriptor says so.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hasGpuHmc } from "./registry.ts";
 * assert.equal(hasGpuHmc("negbin"), true);
 * assert.equal(hasGpuHmc("fbs"), false);
 * ```
 */
export function hasGpuHmc(name: string): boolean {
  return gpuSpec(name)?.hmc === true;
}

/** The names of the models the GPU HMC sampler runs, in registry order. */
export const GPU_HMC_MODEL_NAMES: readonly ModelName[] = Object.freeze(
  MODELS.filter((model) => hasGpuHmc(model.name)).map((model) => model.name),
);
