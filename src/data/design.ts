/**
 * Builds a model's {@linkcode Design} (outcome and public covariates) from a dataset, checking
 * that the outcome suits the model (SPEC §5) with errors that name the file, row and column.
 *
 * @module
 */
import { DataError } from "./data_error.ts";
import { type Dataset, getColumn, numericColumn } from "./dataset.ts";

/** What the outcome column must hold for a model, checked when data are read. */
export type OutcomeKind = "count" | "unit-interval" | "positive" | "real";

/** Outcome and public covariates, row-major, with an intercept column first. */
export interface Design {
  /** Number of records n. */
  readonly n: number;
  /** Number of regression coefficients K (intercept included). */
  readonly k: number;
  /** Outcome y, length n. */
  readonly y: Float64Array;
  /** Covariates, n×K row-major; column 0 is all ones. */
  readonly x: Float64Array;
  /**
   * Coefficient names, length K: "intercept" then the covariates' column names (a categorical
   * covariate contributes one dummy per level but the first, named `column=level`).
   */
  readonly coefficientNames: readonly string[];
  /** Survey weights w_i > 0, length n, for the survey models (FBS, FBP); absent otherwise. */
  readonly weight?: Float64Array;
}

/** Which columns hold the outcome, the public covariates and (survey models) the weights. */
export interface DesignColumns {
  readonly y: string;
  readonly x?: readonly string[];
  /** A column of positive survey weights, for the survey models. */
  readonly weight?: string;
}

const OUTCOME_RULES: Record<OutcomeKind, { ok: (v: number) => boolean; need: string }> = {
  count: {
    ok: (v) => v >= 0 && Number.isInteger(v),
    need: "a count model needs a non-negative integer",
  },
  "unit-interval": {
    ok: (v) => v > 0 && v < 1,
    need: "beta regression needs a value strictly inside (0, 1)",
  },
  positive: { ok: (v) => v > 0, need: "a lognormal model needs a strictly positive value" },
  real: { ok: () => true, need: "" },
};

/**
 * Extracts the outcome and covariates (with an intercept column first) from `data`.
 *
 * @param data The dataset read from a CSV file.
 * @param columns The outcome column and the covariate columns.
 * @param outcome What the model requires of the outcome.
 * @returns The design; throws {@linkcode DataError} for a missing column, a non-numeric or
 * non-finite cell, or an outcome the model cannot take.
 */
export function buildDesign(
  data: Dataset,
  columns: DesignColumns,
  outcome: OutcomeKind,
): Design {
  const covariates = columns.x ?? [];
  if (covariates.includes(columns.y)) {
    throw new DataError(
      { file: data.source, column: columns.y },
      "the outcome cannot also be a covariate",
    );
  }
  const y = numericColumn(data, columns.y);
  const rule = OUTCOME_RULES[outcome];
  for (let i = 0; i < y.length; i++) {
    if (!rule.ok(y[i])) {
      throw new DataError({ file: data.source, row: i + 1, column: columns.y }, rule.need);
    }
  }
  const blocks = covariates.map((name) => covariateBlock(data, name));
  const k = 1 + blocks.reduce((sum, block) => sum + block.names.length, 0);
  const x = new Float64Array(data.n * k);
  for (let i = 0; i < data.n; i++) x[i * k] = 1;
  let column = 1;
  for (const block of blocks) {
    block.names.forEach((_, j) => {
      for (let i = 0; i < data.n; i++) x[i * k + column] = block.values(i, j);
      column++;
    });
  }
  const weight = columns.weight === undefined ? undefined : positiveWeights(data, columns.weight);
  return {
    n: data.n,
    k,
    y: Float64Array.from(y),
    x,
    coefficientNames: ["intercept", ...blocks.flatMap((block) => block.names)],
    ...(weight === undefined ? {} : { weight }),
  };
}

/** A covariate's columns in X: the values of a numeric column, or treatment dummies. */
interface CovariateBlock {
  readonly names: readonly string[];
  readonly values: (row: number, j: number) => number;
}

/**
 * A numeric covariate enters X as it is; a categorical one (any non-numeric cell) as one 0/1
 * dummy per level except the first in order of appearance (treatment coding), named
 * `column=level`.
 */
function covariateBlock(data: Dataset, name: string): CovariateBlock {
  const column = getColumn(data, name);
  if (column.kind === "numeric") {
    return { names: [name], values: (i) => column.values[i] };
  }
  if (column.levels.length < 2) {
    throw new DataError({ file: data.source, column: name }, "a covariate with one level");
  }
  return {
    names: column.levels.slice(1).map((level) => `${name}=${level}`),
    values: (i, j) => column.codes[i] === j + 1 ? 1 : 0,
  };
}

function positiveWeights(data: Dataset, name: string): Float64Array {
  const values = numericColumn(data, name);
  for (let i = 0; i < values.length; i++) {
    if (!(values[i] > 0)) {
      throw new DataError(
        { file: data.source, row: i + 1, column: name },
        "survey weights must be strictly positive",
      );
    }
  }
  return Float64Array.from(values);
}
