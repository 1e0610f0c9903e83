/**
 * A columnar dataset: numeric columns as Float64Array, other columns as integer codes.
 *
 * @module
 */
import { DataError } from "./data_error.ts";

/** A column whose every cell is a finite number. */
export interface NumericColumn {
  readonly kind: "numeric";
  readonly values: Float64Array;
}

/** A column with at least one non-numeric cell: codes index into `levels`. */
export interface CategoricalColumn {
  readonly kind: "categorical";
  readonly codes: Int32Array;
  readonly levels: readonly string[];
}

/** One column of a {@linkcode Dataset}. */
export type Column = NumericColumn | CategoricalColumn;

/** Rows × named columns, with the file it came from (for error messages). */
export interface Dataset {
  readonly source: string;
  readonly n: number;
  readonly names: readonly string[];
  readonly columns: ReadonlyMap<string, Column>;
}

const FINITE_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const NON_FINITE = /^[+-]?(nan|inf|infinity|na)$/i;

/** Whether a trimmed CSV cell is a finite decimal number. */
export function isFiniteNumberCell(cell: string): boolean {
  return FINITE_NUMBER.test(cell);
}

/** Builds a column from trimmed cells: numeric if every cell is a finite number. */
export function columnFromCells(cells: readonly string[]): Column {
  if (cells.every(isFiniteNumberCell)) {
    return { kind: "numeric", values: Float64Array.from(cells, Number) };
  }
  const levels: string[] = [];
  const index = new Map<string, number>();
  const codes = new Int32Array(cells.length);
  cells.forEach((cell, i) => {
    let code = index.get(cell);
    if (code === undefined) {
      code = levels.length;
      levels.push(cell);
      index.set(cell, code);
    }
    codes[i] = code;
  });
  return { kind: "categorical", codes, levels };
}

/**
 * The records of `data` at the given row indices, in that order: numeric columns copied, a
 * categorical column rebuilt from its cells (so its levels are those the rows use, in order of
 * appearance).
 *
 * @param data The dataset.
 * @param rows Row indices (each in 0..n−1).
 * @returns A dataset of `rows.length` records with the same columns and source.
 */
export function selectRows(data: Dataset, rows: readonly number[]): Dataset {
  const columns = new Map<string, Column>();
  for (const [name, column] of data.columns) {
    columns.set(
      name,
      column.kind === "numeric"
        ? { kind: "numeric", values: Float64Array.from(rows, (i) => column.values[i]) }
        : columnFromCells(rows.map((i) => column.levels[column.codes[i]])),
    );
  }
  return { source: data.source, n: rows.length, names: data.names, columns };
}

/** Returns the named column or throws a {@linkcode DataError} naming the file and column. */
export function getColumn(data: Dataset, name: string): Column {
  const column = data.columns.get(name);
  if (column === undefined) {
    throw new DataError(
      { file: data.source, column: name },
      `missing column (the file has: ${data.names.join(", ")})`,
    );
  }
  return column;
}

/**
 * Returns a numeric column's values, or throws a {@linkcode DataError} naming the first row
 * whose cell is not a finite number (NaN, Inf, NA and text are told apart, values are not shown).
 */
export function numericColumn(data: Dataset, name: string): Float64Array {
  const column = getColumn(data, name);
  if (column.kind === "numeric") return column.values;
  for (let i = 0; i < column.codes.length; i++) {
    const cell = column.levels[column.codes[i]];
    if (isFiniteNumberCell(cell)) continue;
    const problem = cell === ""
      ? "empty cell where a number is required"
      : NON_FINITE.test(cell)
      ? "non-finite value (NaN, NA or Inf) where a finite number is required"
      : "non-numeric cell where a number is required";
    throw new DataError({ file: data.source, row: i + 1, column: name }, problem);
  }
  throw new Error(`unreachable: categorical column "${name}" has only numeric cells`);
}
