/**
 * The model registry: one {@linkcode ModelDescriptor} per model of SPEC §5, written next to its
 * class, and everything derived from them (the names, the outcome each needs, `createModel`,
 * which models have GPU kernels). Adding a model adds one line to {@linkcode MODELS}
 * (`docs/adding-a-model.md`).
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
 * The GPU kernels of the model `name`, or null when it has none (an unknown name included).
 *
 * @param name a model's name (`model.name`).
 * @returns its GPU description.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gpuSpec } from "./registry.ts";
 * assert.equal(gpuSpec("lognormal")?.kernel, "gaussian");
 * assert.equal(gpuSpec("fbp"), null);
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
