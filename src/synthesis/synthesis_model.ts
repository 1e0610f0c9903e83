/**
 * The model a synthesis request fits (SPEC §5, §10), built from the confidential data: shared by
 * the pipeline and by the API's check of inline data before it accepts a job.
 *
 * @module
 */
import { type Dataset, getColumn } from "../data/dataset.ts";
import { buildDesign, type Design, type DesignColumns } from "../data/design.ts";
import { JointModel } from "../models/joint.ts";
import { createModel, type Model, type ModelName, outcomeKind } from "../models/mod.ts";
import { outcomesOf, type SynthesisSpec } from "./spec.ts";

/**
 * The declared levels of outcome y and of the text covariates, as `buildDesign`'s options
 * (none declared: the data's).
 */
function levelsOf(
  spec: SynthesisSpec,
  y: string,
): Pick<DesignColumns, "levels" | "covariateLevels"> {
  const levels = spec.levels?.[y];
  return {
    ...(levels === undefined ? {} : { levels }),
    ...(spec.levels === undefined ? {} : { covariateLevels: spec.levels }),
  };
}

/**
 * The model of a synthesis: the one outcome's registry model, or for several outcomes the
 * {@linkcode JointModel} of their conditionals, outcome j with x and the outcomes before it as
 * covariates (a categorical one as treatment dummies over its declared levels, exactly as
 * `buildDesign` codes it). Bad
 * data throw a `DataError` naming the file, row and column.
 *
 * @param data The confidential data.
 * @param spec The validated request.
 */
export function synthesisModel(data: Dataset, spec: SynthesisSpec): Model {
  const outcomes = outcomesOf(spec);
  const design = (columns: DesignColumns, model: ModelName): Design => ({
    ...buildDesign(data, columns, outcomeKind(model)),
    coefficientPrior: spec.prior,
  });
  if (outcomes.length === 1) {
    const [{ y, model }] = outcomes;
    return createModel(
      model,
      design({ y, x: spec.x, weight: spec.weight, ...levelsOf(spec, y) }, model),
    );
  }
  return new JointModel(outcomes.map(({ y, model }, j) => {
    const x = [...spec.x, ...outcomes.slice(0, j).map((earlier) => earlier.y)];
    const column = getColumn(data, y);
    return {
      outcome: y,
      model: createModel(
        model,
        design({ y, x, ...levelsOf(spec, y) }, model),
      ),
      // A text outcome enters the later conditionals as dummies over its declared levels
      // (buildDesign codes it the same way), never over the levels the data happen to hold.
      dummyLevels: column.kind === "numeric" ? null : spec.levels?.[y] ?? column.levels,
    };
  }));
}
