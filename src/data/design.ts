/**
 * Builds a model's {@linkcode Design} (outcome and public covariates) from a dataset, checking
 * that the outcome suits the model (SPEC §5) with errors that name the file, row and column.
 *
 * @module
 */
import type { Design, OutcomeKind } from "../models/model.ts";
import { DataError } from "./data_error.ts";
import { type Dataset, numericColumn } from "./dataset.ts";

/** Which columns hold the outcome and the public covariates. */
export interface DesignColumns {
  readonly y: string;
  readonly x?: readonly string[];
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
  const k = covariates.length + 1;
  const x = new Float64Array(data.n * k);
  for (let i = 0; i < data.n; i++) x[i * k] = 1;
  covariates.forEach((name, j) => {
    const values = numericColumn(data, name);
    for (let i = 0; i < data.n; i++) x[i * k + j + 1] = values[i];
  });
  return {
    n: data.n,
    k,
    y: Float64Array.from(y),
    x,
    coefficientNames: ["intercept", ...covariates],
  };
}
