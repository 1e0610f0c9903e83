/**
 * The model a synthesis plan fits (SPEC §5, §10), built from the confidential data: the pipeline
 * builds it once, in the job; the API's check of inline data before it accepts a job builds only
 * the designs ({@linkcode synthesisDesigns}), which is where bad data are found.
 *
 * @module
 */
import { type Dataset, getColumn } from "../data/dataset.ts";
import { buildDesign, type Design } from "../data/design.ts";
import { JointModel } from "../models/joint.ts";
import { createModel, type Model } from "../models/mod.ts";
import { planOf, type SynthesisPlan } from "./plan.ts";
import type { SynthesisSpec } from "./spec.ts";

/**
 * The design of each outcome of a plan, in visit order: outcome j with the covariates and (for
 * several outcomes) the outcomes before it, coded over the declared levels. Bad data throw a
 * `DataError` naming the file, row and column.
 *
 * @param data The confidential data.
 * @param plan The plan.
 * @returns One design per outcome.
 */
export function synthesisDesigns(data: Dataset, plan: SynthesisPlan): Design[] {
  const { spec, outcomes } = plan;
  return outcomes.map(({ y, kind, levels }, j) => ({
    ...buildDesign(
      data,
      {
        y,
        x: [...plan.covariates, ...outcomes.slice(0, j).map((earlier) => earlier.y)],
        ...(plan.survey === null ? {} : { weight: plan.survey.weight }),
        ...(levels === undefined ? {} : { levels }),
        ...(spec.levels === undefined ? {} : { covariateLevels: spec.levels }),
      },
      kind,
    ),
    coefficientPrior: spec.prior,
  }));
}

/**
 * The model of a synthesis: the one outcome's registry model, or for several outcomes the
 * {@linkcode JointModel} of their conditionals, outcome j with x and the outcomes before it as
 * covariates (a categorical one as treatment dummies over its declared levels, exactly as
 * `buildDesign` codes it). Bad data throw a `DataError` naming the file, row and column.
 *
 * @param data The confidential data.
 * @param request The plan (or a validated request on one's own data).
 */
export function synthesisModel(data: Dataset, request: SynthesisPlan | SynthesisSpec): Model {
  const plan = planOf(request);
  const designs = synthesisDesigns(data, plan);
  const models = plan.outcomes.map(({ model }, j) => createModel(model, designs[j]));
  if (!plan.joint) return models[0];
  return new JointModel(plan.outcomes.map(({ y, levels }, j) => {
    const column = getColumn(data, y);
    return {
      outcome: y,
      model: models[j],
      // A text outcome enters the later conditionals as dummies over its declared levels
      // (buildDesign codes it the same way), never over the levels the data happen to hold.
      dummyLevels: column.kind === "numeric" ? null : levels ?? column.levels,
    };
  }));
}
