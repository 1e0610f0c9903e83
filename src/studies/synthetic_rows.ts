/**
 * A synthetic dataset read back by row against the records it was made from. Partial synthesis
 * keeps the records in order, so row i of a synthetic dataset is record i of the used records;
 * the real-file studies check this before they attach a used record's columns to a synthetic row
 * (their survey tables) or compare the two.
 *
 * @module
 */
import type { OutputColumn } from "../data/csv.ts";
import { datasetColumns } from "../data/csv.ts";
import { type Column, columnFromCells, type Dataset, getColumn } from "../data/dataset.ts";

/** An output column's cells as text. */
export function outputCells(column: OutputColumn): string[] {
  return Array.from(column as ArrayLike<string | number>, String);
}

/**
 * One synthetic dataset as a {@linkcode Dataset}, with the used records' columns `attach` added
 * by row. Checked: every column has the used records' length, and every public column equals the
 * record's in every row.
 *
 * @param synthetic One synthetic dataset as `synthesize` returns it.
 * @param used The records the synthesis used (after dropping missing values).
 * @param publicColumns The columns kept as they are, which must match by row.
 * @param attach Columns of `used` to attach by row (e.g. the design weights, for a study's
 *   survey table; never part of a release).
 * @param where Its name, for errors.
 * @returns The dataset.
 */
export function syntheticRows(
  synthetic: ReadonlyMap<string, OutputColumn>,
  used: Dataset,
  publicColumns: readonly string[],
  attach: readonly string[],
  where: string,
): Dataset {
  const columns = new Map<string, Column>();
  for (const [name, column] of synthetic) {
    if (column.length !== used.n) {
      throw new RangeError(
        `${where}: column ${name} has ${column.length} rows, the used records ${used.n}`,
      );
    }
    columns.set(name, columnFromCells(outputCells(column)));
  }
  const original = datasetColumns(used);
  for (const name of publicColumns) {
    const mine = outputCells(synthetic.get(name)!);
    const theirs = outputCells(original.get(name)!);
    const row = mine.findIndex((value, i) => value !== theirs[i]);
    if (row >= 0) {
      throw new RangeError(
        `${where}: public column ${name} differs from the confidential record at row ${row + 1}; ` +
          "the rows cannot be matched",
      );
    }
  }
  for (const name of attach) columns.set(name, getColumn(used, name));
  return { source: where, n: used.n, names: [...columns.keys()], columns };
}
