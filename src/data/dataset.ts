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
  return categoricalColumn(cells, new Int32Array(cells.length));
}

/** A categorical column of `cells`, coded into `codes` over its levels in order of appearance. */
function categoricalColumn(cells: readonly string[], codes: Int32Array): CategoricalColumn {
  const levels: string[] = [];
  const index = new Map<string, number>();
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
 * The columns of a table of trimmed cells, each as {@linkcode columnFromCells} builds it from its
 * cells, with the numeric columns' values views of one Float64Array and the categorical columns'
 * codes views of one Int32Array: a file of 10⁶ columns allocates two buffers, not 10⁶ (a
 * `Float64Array` per column took 1.7 s of CPU there).
 *
 * @param rows The records, each of `width` cells.
 * @param width The number of columns.
 * @returns Column j of every row, for j = 0 … width − 1.
 *
 * @example Two numeric columns share a buffer
 * ```ts
 * import assert from "node:assert/strict";
 * import { columnsFromRows } from "./dataset.ts";
 * const [x, g, y] = columnsFromRows([["1", "a", "2"], ["3", "b", "4"]], 3);
 * assert.deepEqual(x, { kind: "numeric", values: Float64Array.of(1, 3) });
 * assert.deepEqual(g, { kind: "categorical", codes: Int32Array.of(0, 1), levels: ["a", "b"] });
 * assert.ok(x.kind === "numeric" && y.kind === "numeric" && x.values.buffer === y.values.buffer);
 * ```
 */
export function columnsFromRows(rows: readonly (readonly string[])[], width: number): Column[] {
  const n = rows.length;
  const numeric: boolean[] = [];
  for (let j = 0; j < width; j++) {
    let i = 0;
    while (i < n && isFiniteNumberCell(rows[i][j])) i++;
    numeric.push(i === n);
  }
  const numericCount = numeric.filter(Boolean).length;
  const values = new Float64Array(numericCount * n);
  const codes = new Int32Array((width - numericCount) * n);
  let v = 0;
  let c = 0;
  return numeric.map((isNumeric, j): Column => {
    if (!isNumeric) {
      return categoricalColumn(rows.map((row) => row[j]), codes.subarray(c * n, ++c * n));
    }
    const column = values.subarray(v * n, ++v * n);
    for (let i = 0; i < n; i++) column[i] = Number(rows[i][j]);
    return { kind: "numeric", values: column };
  });
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
