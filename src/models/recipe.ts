/**
 * What a worker thread needs to rebuild a model bound to its data: the registry name and the
 * design of a single-outcome model, or the conditionals of a {@linkcode JointModel}. Workers
 * receive it by structured clone (plain data only).
 *
 * @module
 */
import { isJointModel, JointModel } from "./joint.ts";
import type { Design, Model } from "./model.ts";
import { createModel, MODEL_NAMES, type ModelName } from "./registry.ts";

/** One conditional of a joint recipe. */
export interface JointComponentRecipe {
  readonly name: ModelName;
  readonly design: Design;
  readonly outcome: string;
  readonly dummyLevels: readonly string[] | null;
}

/** A model as plain data. */
export type ModelRecipe =
  | { readonly kind: "single"; readonly name: ModelName; readonly design: Design }
  | { readonly kind: "joint"; readonly components: readonly JointComponentRecipe[] };

function registryName(model: Model): ModelName {
  if (!(MODEL_NAMES as readonly string[]).includes(model.name)) {
    throw new TypeError(`Invalid model: createModel cannot rebuild ${model.name}`);
  }
  return model.name as ModelName;
}

/**
 * The recipe of a registry model or a joint model of registry models.
 *
 * @param model The model.
 * @returns Its recipe; throws for a model the registry cannot rebuild.
 */
export function recipeOf(model: Model): ModelRecipe {
  if (isJointModel(model)) {
    return {
      kind: "joint",
      components: model.components.map((c) => ({
        name: registryName(c.model),
        design: c.model.design,
        outcome: c.outcome,
        dummyLevels: c.dummyLevels,
      })),
    };
  }
  return { kind: "single", name: registryName(model), design: model.design };
}

/**
 * Rebuilds the model of a recipe.
 *
 * @param recipe The recipe.
 * @returns The model, bound to the recipe's designs.
 */
export function modelFromRecipe(recipe: ModelRecipe): Model {
  if (recipe.kind === "single") return createModel(recipe.name, recipe.design);
  return new JointModel(recipe.components.map((c) => ({
    outcome: c.outcome,
    model: createModel(c.name, c.design),
    dummyLevels: c.dummyLevels,
  })));
}
