/**
 * CSV in and out: read by {@linkcode parseCsvRows} (one pass; it reads as `csv-parse` did, which
 * stays as its test oracle), written by the `csv-stringify` package.
 *
 * @module
 */
import { stringify } from "csv-stringify/sync";
import { CsvRowsError, parseCsvRows } from "./csv_rows.ts";
import { DataError } from "./data_error.ts";
import { type Column, columnsFromRows, type Dataset } from "./dataset.ts";
import { parseDecimal } from "./decimal.ts";

/**
 * Parses CSV text with a header row into a columnar {@linkcode Dataset}.
 *
 * @param text The whole file.
 * @param source The file name used in error messages.
 * @returns The dataset; throws {@linkcode DataError} for an empty file, a header-only file,
 * duplicate or blank header names, or rows with the wrong number of cells.
 */
export function parseCsv(text: string, source: string): Dataset {
  if (text.trim() === "") throw new DataError({ file: source }, "the file is empty");
  let rows: string[][];
  try {
    rows = parseCsvRows(text);
  } catch (error) {
    if (!(error instanceof CsvRowsError)) throw error;
    const row = error.line > 1 ? error.line - 1 : undefined;
    const reason = error.problem === "ragged"
      ? "the row has a different number of cells from the header"
      : "the file is not valid CSV";
    throw new DataError({ file: source, row }, reason);
  }
  const [header, ...body] = rows;
  if (body.length === 0) {
    throw new DataError({ file: source }, "the file has a header but no data rows");
  }
  const built = columnsFromRows(body, header.length);
  const columns = new Map<string, Column>();
  header.forEach((name, j) => {
    if (name === "") throw new DataError({ file: source }, `header cell ${j + 1} is blank`);
    if (columns.has(name)) throw new DataError({ file: source, column: name }, "duplicate column");
    columns.set(name, built[j]);
  });
  return { source, n: body.length, names: header, columns };
}

/** Reads a CSV file into a {@linkcode Dataset} (see {@linkcode parseCsv}). */
export async function readCsv(path: string): Promise<Dataset> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new DataError({ file: path }, "no such file");
    }
    throw error;
  }
  return parseCsv(text, path);
}

/** Cells of one output column: numbers are written in shortest round-trip form. */
export type OutputColumn = Float64Array | readonly (string | number)[];

/** The first characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A text cell made safe to open in a spreadsheet: one that begins with `=`, `+`, `-`, `@`, a tab
 * or a carriage return gets a leading single quote (OWASP's CSV-injection advice), unless it is a
 * plain decimal number (`-1.5` stays a number). Numbers are never text cells and never escaped.
 *
 * @param cell A cell's text.
 * @returns The cell, or `'` + the cell.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { escapeFormula } from "./csv.ts";
 * assert.equal(escapeFormula('=HYPERLINK("http://x","y")'), '\'=HYPERLINK("http://x","y")');
 * assert.equal(escapeFormula("-1.5"), "-1.5");
 * assert.equal(escapeFormula("north"), "north");
 * ```
 */
export function escapeFormula(cell: string): string {
  return FORMULA_START.test(cell) && Number.isNaN(parseDecimal(cell)) ? `'${cell}` : cell;
}

/** Options of {@linkcode formatCsv}. */
export interface FormatCsvOptions {
  /**
   * Escape text cells (and header names) that a spreadsheet would read as a formula (see
   * {@linkcode escapeFormula}): set for files released to analysts (the synthetic datasets),
   * never for the canonical copy of confidential data, which must parse back to the same levels.
   */
  readonly escapeFormulas?: boolean;
}

/**
 * Formats named columns of equal length as CSV text with a header row.
 *
 * @param columns Column name → values, in output order.
 * @param options `escapeFormulas` for files released to analysts.
 */
export function formatCsv(
  columns: ReadonlyMap<string, OutputColumn>,
  options: FormatCsvOptions = {},
): string {
  const names = [...columns.keys()];
  const n = names.length === 0 ? 0 : columns.get(names[0])!.length;
  for (const name of names) {
    if (columns.get(name)!.length !== n) {
      throw new RangeError(
        `column "${name}" has ${columns.get(name)!.length} values, expected ${n}`,
      );
    }
  }
  const rows: (string | number)[][] = [names];
  for (let i = 0; i < n; i++) rows.push(names.map((name) => columns.get(name)![i]));
  if (options.escapeFormulas) {
    for (const row of rows) {
      row.forEach((cell, j) => {
        if (typeof cell === "string") row[j] = escapeFormula(cell);
      });
    }
  }
  return stringify(rows);
}

/** Writes a dataset's columns back to CSV text in their original order and coding. */
export function datasetColumns(data: Dataset): Map<string, OutputColumn> {
  const out = new Map<string, OutputColumn>();
  for (const name of data.names) {
    const column = data.columns.get(name)!;
    out.set(
      name,
      column.kind === "numeric"
        ? column.values
        : Array.from(column.codes, (code) => column.levels[code]),
    );
  }
  return out;
}
