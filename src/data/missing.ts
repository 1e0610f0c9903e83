/**
 * Records with a missing value: an empty cell, or `NA`/`NaN` (any case), in the columns a
 * synthesis reads. By default a missing value is an error naming its row (the data layer's
 * checks); `--missing drop` removes those records instead and reports how many.
 *
 * @module
 */
import { type Column, type Dataset, getColumn, selectRows } from "./dataset.ts";

const MISSING = /^(|na|nan)$/i;

/** Whether a cell of `column` at row i is missing (a numeric column has no missing cell). */
function isMissing(column: Column, i: number): boolean {
  return column.kind === "categorical" && MISSING.test(column.levels[column.codes[i]]);
}

/**
 * The dataset without the records that miss a value in any of `names`; every column is rebuilt
 * from the kept cells (a column that was text only because of `NA` becomes numeric).
 *
 * @param data The dataset.
 * @param names The columns that must be present (each must exist).
 * @returns The kept records and how many were dropped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseCsv } from "./csv.ts";
 * import { dropMissing } from "./missing.ts";
 * const { data, dropped } = dropMissing(parseCsv("a,b\n1,x\nNA,y\n3,\n", "in.csv"), ["a", "b"]);
 * assert.equal(dropped, 2);
 * assert.equal(data.n, 1);
 * ```
 */
export function dropMissing(
  data: Dataset,
  names: readonly string[],
): { readonly data: Dataset; readonly dropped: number } {
  const checked = names.map((name) => getColumn(data, name));
  const kept: number[] = [];
  for (let i = 0; i < data.n; i++) {
    if (!checked.some((column) => isMissing(column, i))) kept.push(i);
  }
  if (kept.length === data.n) return { data, dropped: 0 };
  return { data: selectRows(data, kept), dropped: data.n - kept.length };
}
