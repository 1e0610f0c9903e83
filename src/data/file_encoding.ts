/**
 * A whole file as integer codes, and back: each column's states (its N/A marker, its levels or
 * its numeric bins) come only from the declared {@linkcode FileSchema}, never from the data.
 *
 * Code 0 is the N/A state when the column declares a marker. A categorical column's other codes
 * are its levels in declared order. A numeric column lives on a grid of steps (1 for integers,
 * 10^−decimals otherwise); its codes are ascending ranges of steps:
 * - each declared point is a level of its own, and so is zero for an amount or a weight whose
 *   bounds include it (incomes of 0, the 0 weight of a group-quarters placeholder);
 * - a range of at most `bins` steps gets one level per step (AGEP 0–19 or NOC as exact values);
 * - wider ranges are cut into `bins` bins (the column's, else the schema's, else 32): equal
 *   width for a count; log scale for the positive part of a continuous column, an amount or a
 *   weight (equal ratios over at most four decades below the upper bound, for skewed values;
 *   the values under that share ⌈bins/8⌉ equal-width bins); an amount's negative part gets
 *   ⌈bins/8⌉ log-scale bins of |x|;
 * - every constant a rule compares the column with is a bin edge (AGEP < 15 then never shares a
 *   bin with AGEP ≥ 15), so rules can be kept at the level of codes.
 *
 * A categorical column `determinedBy` another has a single code: it is copied from its parent
 * through the declared map at decoding, so a synthesizer never models it. Decoding draws a value
 * within its bin, uniform on the bin's scale (on log |x| for log bins), as a whole number of grid
 * steps, and writes it with the column's declared decimals (`5000.0`, `2872.7`).
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { DataError } from "./data_error.ts";
import { type Dataset, getColumn } from "./dataset.ts";
import { parseDecimal } from "./decimal.ts";
import {
  columnUnit,
  DEFAULT_BINS,
  type FileColumn,
  type FileSchema,
  isIntegerColumn,
  onGrid,
} from "./file_schema.ts";

/** How a decoded value is drawn within a range: uniform on x, on log x, or on log |x| (x < 0). */
export type BinScale = "linear" | "log" | "negativeLog";

/** One state of a column: its N/A marker, a categorical level, or a range of grid steps. */
export type Bin =
  | { readonly kind: "notApplicable"; readonly cell: string }
  | { readonly kind: "level"; readonly cell: string }
  | { readonly kind: "range"; readonly lo: number; readonly hi: number; readonly scale: BinScale };

/** One encoded column: `codes[i]` ∈ 0..levels−1. */
export interface EncodedColumn {
  readonly name: string;
  readonly levels: number;
  readonly codes: Int32Array;
}

/** A whole file as codes: the schema's columns in its order, n records each. */
export interface EncodedFile {
  readonly n: number;
  readonly columns: readonly EncodedColumn[];
}

/** Log-scale bins span at most this ratio; smaller values share ⌈bins/8⌉ linear bins. */
const LOG_SPAN = 1e4;

/** Steps from a to b (inclusive) cut into at most `bins` ranges on the given scale. */
function rangesOf(a: number, b: number, bins: number, scale: BinScale): [number, number][] {
  if (scale === "negativeLog") {
    return rangesOf(-b, -a, bins, "log").map(([lo, hi]) => [-hi, -lo] as [number, number])
      .reverse();
  }
  const floor = Math.ceil((b + 1) / LOG_SPAN);
  if (scale === "log" && a < floor && b - a + 1 > bins) {
    return [
      ...rangesOf(a, floor - 1, Math.ceil(bins / 8), "linear"),
      ...rangesOf(floor, b, bins, "log"),
    ];
  }
  const width = b - a + 1;
  const starts: number[] = [];
  if (width <= bins) {
    for (let s = a; s <= b; s++) starts.push(s);
  } else if (scale === "linear") {
    for (let j = 0; j < bins; j++) starts.push(a + Math.floor((j * width) / bins));
  } else {
    const step = (Math.log(b + 1) - Math.log(a)) / bins;
    for (let j = 0; j < bins; j++) {
      const start = Math.round(Math.exp(Math.log(a) + j * step));
      if (start > (starts.at(-1) ?? a - 1) && start <= b) starts.push(start);
    }
  }
  return starts.map((start, j) => [start, j + 1 < starts.length ? starts[j + 1] - 1 : b]);
}

/** The grid steps at which the schema's rules compare a column with a constant. */
function ruleCuts(column: FileColumn, schema: FileSchema): number[] {
  const unit = columnUnit(column);
  const cuts: number[] = [];
  for (const rule of schema.rules ?? []) {
    for (const condition of [...(rule.when ?? []), ...rule.then]) {
      if (condition.column !== column.name || !("value" in condition)) continue;
      // The first step at or above the constant, and the first above it: both are edges.
      cuts.push(
        Math.ceil(condition.value / unit - 1e-9),
        Math.floor(condition.value / unit + 1e-9) + 1,
      );
    }
  }
  return cuts;
}

/**
 * A column's states in code order, from the schema alone.
 *
 * @param column The column's declaration.
 * @param schema The schema (its bin count and rules).
 * @returns The bins: code k is `bins[k]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { columnBins } from "./file_encoding.ts";
 * const column = { name: "NOC", kind: "count", bounds: [0, 19], notApplicable: "N" } as const;
 * const bins = columnBins(column, { columns: [column] });
 * assert.equal(bins.length, 21); // N/A, then 0, 1, …, 19
 * assert.deepEqual(bins[1], { kind: "range", lo: 0, hi: 0, scale: "linear" });
 * ```
 */
export function columnBins(column: FileColumn, schema: FileSchema): readonly Bin[] {
  const out: Bin[] = column.notApplicable === undefined
    ? []
    : [{ kind: "notApplicable", cell: column.notApplicable }];
  if (column.kind === "categorical") {
    for (const cell of column.levels ?? []) out.push({ kind: "level", cell });
    return out;
  }
  const unit = columnUnit(column);
  const [a, b] = column.bounds!.map((x) => Math.round(x / unit));
  const points = new Set((column.points ?? []).map((x) => Math.round(x / unit)));
  if ((column.kind === "amount" || column.kind === "weight") && a <= 0 && b >= 0) points.add(0);
  const bins = column.bins ?? schema.bins ?? DEFAULT_BINS;
  const ranges: [number, number, BinScale][] = [];
  let start = a;
  for (const end of [...[...points].sort((x, y) => x - y), b + 1]) {
    if (end > start) {
      const hi = end - 1;
      const scale: BinScale = column.kind === "count"
        ? "linear"
        : start >= 1
        ? "log"
        : hi <= -1 && column.kind !== "continuous"
        ? "negativeLog"
        : "linear";
      const count = scale === "negativeLog" ? Math.ceil(bins / 8) : bins;
      for (const [lo, up] of rangesOf(start, hi, count, scale)) ranges.push([lo, up, scale]);
    }
    if (end <= b) ranges.push([end, end, "linear"]);
    start = end + 1;
  }
  for (const cut of ruleCuts(column, schema)) {
    const j = ranges.findIndex(([lo, hi]) => lo < cut && cut <= hi);
    if (j >= 0) {
      const [lo, hi, scale] = ranges[j];
      ranges.splice(j, 1, [lo, cut - 1, scale], [cut, hi, scale]);
    }
  }
  for (const [lo, hi, scale] of ranges) out.push({ kind: "range", lo, hi, scale });
  return out;
}

/**
 * A numeric column's value at a grid step, written with its declared decimals.
 *
 * @param step The grid step (an integer).
 * @param column The column's declaration.
 * @returns The cell, e.g. `5000.0` for PINCP (integer, 1 decimal) or `2872.7` for DENSITY.
 */
export function formatStep(step: number, column: FileColumn): string {
  const decimals = column.decimals ?? 0;
  if (decimals === 0) return String(step);
  if (isIntegerColumn(column)) return `${step}.${"0".repeat(decimals)}`;
  const digits = String(Math.abs(step)).padStart(decimals + 1, "0");
  return `${step < 0 ? "-" : ""}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/** A bin's label for reports: the marker, the level, a value, or `[lo, hi]`. */
export function binLabel(bin: Bin, column: FileColumn): string {
  if (bin.kind !== "range") return bin.cell;
  return bin.lo === bin.hi
    ? formatStep(bin.lo, column)
    : `[${formatStep(bin.lo, column)}, ${formatStep(bin.hi, column)}]`;
}

/** The code of a numeric value, or why it has none (a message without the value). */
function numericCode(
  value: number,
  column: FileColumn,
  bins: readonly Bin[],
  los: Float64Array,
  first: number,
): number | string {
  const unit = columnUnit(column);
  if (!onGrid(value, unit)) {
    return isIntegerColumn(column)
      ? "a value that is not a whole number where the schema declares integers"
      : `a value with more than the declared ${column.decimals} decimal places`;
  }
  const [lo, hi] = column.bounds!;
  if (value < lo || value > hi) return `a value outside the declared bounds [${lo}, ${hi}]`;
  const step = Math.round(value / unit);
  let left = 0;
  let right = los.length - 1;
  while (left < right) {
    const mid = (left + right + 1) >> 1;
    if (los[mid] <= step) left = mid;
    else right = mid - 1;
  }
  const bin = bins[first + left];
  if (bin.kind !== "range" || step < bin.lo || step > bin.hi) {
    throw new Error(`unreachable: no bin holds a value within column "${column.name}"'s bounds`);
  }
  return first + left;
}

/** A column's codes, or a {@linkcode DataError} naming the first row whose cell has none. */
function encodeColumn(data: Dataset, column: FileColumn, bins: readonly Bin[]): Int32Array {
  const source = getColumn(data, column.name);
  const codes = new Int32Array(data.n);
  const fail = (row: number, problem: string): never => {
    throw new DataError({ file: data.source, row: row + 1, column: column.name }, problem);
  };
  const first = column.notApplicable === undefined ? 0 : 1;
  const los = Float64Array.from(bins.slice(first), (bin) => bin.kind === "range" ? bin.lo : 0);
  const undeclared = `a value that is not one of the ${column.levels?.length} declared levels` +
    (column.notApplicable === undefined ? "" : " or the N/A marker");
  // The code of each cell text, or the problem with it.
  const codeOfCell = (cell: string): number | string => {
    if (cell === column.notApplicable) return 0;
    if (column.kind === "categorical") {
      const k = column.levels!.indexOf(cell);
      return k >= 0 ? first + k : undeclared;
    }
    const value = parseDecimal(cell);
    if (Number.isNaN(value)) {
      return cell === ""
        ? "an empty cell where a number or the declared N/A marker is required"
        : "a cell that is neither a number nor the declared N/A marker";
    }
    return numericCode(value, column, bins, los, first);
  };
  if (source.kind === "categorical") {
    const byLevel = source.levels.map(codeOfCell);
    for (let i = 0; i < data.n; i++) {
      const code = byLevel[source.codes[i]];
      codes[i] = typeof code === "number" ? code : fail(i, code);
    }
    return codes;
  }
  // Every cell was a number: match categorical levels by value (`1` for level "1").
  const levelOf = new Map<number, number>();
  if (column.kind === "categorical") {
    column.levels!.forEach((level, k) => {
      const value = parseDecimal(level);
      if (!Number.isNaN(value) && !levelOf.has(value)) levelOf.set(value, first + k);
    });
  }
  for (let i = 0; i < data.n; i++) {
    const value = source.values[i];
    const code = column.kind === "categorical"
      ? levelOf.get(value) ?? undeclared
      : numericCode(value, column, bins, los, first);
    codes[i] = typeof code === "number" ? code : fail(i, code);
  }
  return codes;
}

/**
 * Encodes a dataset under its declared schema: the one place a file is validated against it.
 *
 * @param data The dataset (every column the schema declares, and no other).
 * @param schema The declared schema.
 * @returns The codes: per column, its number of states and each record's state. A determined
 * column has one state (it is restored from its parent by {@linkcode decodeFile}).
 * Throws a {@linkcode DataError} naming the column and row of the first cell outside the
 * schema (an undeclared level, a value outside the bounds, a cell that is neither a number nor
 * the N/A marker, a determined value that does not match its parent).
 */
export function encodeFile(data: Dataset, schema: FileSchema): EncodedFile {
  const declared = new Set(schema.columns.map((column) => column.name));
  for (const name of data.names) {
    if (!declared.has(name)) {
      throw new DataError({ file: data.source, column: name }, "the schema does not declare it");
    }
  }
  const full = new Map<string, Int32Array>();
  for (const column of schema.columns) {
    full.set(column.name, encodeColumn(data, column, columnBins(column, schema)));
  }
  const columns = schema.columns.map((column): EncodedColumn => {
    const codes = full.get(column.name)!;
    if (column.determinedBy === undefined) {
      return { name: column.name, levels: columnBins(column, schema).length, codes };
    }
    const parentName = column.determinedBy.column;
    const parent = schema.columns.find((c) => c.name === parentName)!;
    const own = columnBins(column, schema).map((bin) => (bin as { cell: string }).cell);
    const expected = columnBins(parent, schema).map((bin) =>
      own.indexOf(column.determinedBy!.map[(bin as { cell: string }).cell])
    );
    const parentCodes = full.get(parentName)!;
    for (let i = 0; i < data.n; i++) {
      if (codes[i] !== expected[parentCodes[i]]) {
        throw new DataError(
          { file: data.source, row: i + 1, column: column.name },
          `the value differs from the one the schema's map gives for its "${parentName}"`,
        );
      }
    }
    return { name: column.name, levels: 1, codes: new Int32Array(data.n) };
  });
  return { n: data.n, columns };
}

/** A grid step drawn within a range, uniform on its scale. */
function drawStep(bin: { lo: number; hi: number; scale: BinScale }, u: number): number {
  const { lo, hi, scale } = bin;
  if (lo === hi) return lo;
  let step: number;
  if (scale === "linear") {
    step = lo + Math.floor(u * (hi - lo + 1));
  } else if (scale === "log") {
    step = Math.floor(Math.exp(Math.log(lo) + u * (Math.log(hi + 1) - Math.log(lo))));
  } else {
    step = -Math.floor(Math.exp(Math.log(-hi) + u * (Math.log(-lo + 1) - Math.log(-hi))));
  }
  return Math.min(hi, Math.max(lo, step));
}

/**
 * Decodes codes into cells written as the input writes them: the N/A marker, a level, or a value
 * drawn within its bin; a determined column copied from its parent through the declared map.
 *
 * @param codes The encoded file (its columns must be the schema's, with the schema's states).
 * @param schema The declared schema.
 * @param rng The generator the values within bins are drawn from (one uniform per value drawn
 * from a range wider than one step, column by column).
 * @returns Column name → cells, in the schema's column order.
 */
export function decodeFile(
  codes: EncodedFile,
  schema: FileSchema,
  rng: Rng,
): Map<string, string[]> {
  if (codes.columns.length !== schema.columns.length) {
    throw new RangeError(
      `Cannot decode as the file has ${codes.columns.length} columns and the schema ` +
        `${schema.columns.length}`,
    );
  }
  const cells = new Map<string, string[]>();
  for (const column of schema.columns) cells.set(column.name, []);
  schema.columns.forEach((column, j) => {
    const encoded = codes.columns[j];
    const bins = columnBins(column, schema);
    const levels = column.determinedBy === undefined ? bins.length : 1;
    if (encoded.name !== column.name || encoded.levels !== levels) {
      throw new RangeError(
        `Cannot decode column "${encoded.name}" as the schema's column ${j + 1} is ` +
          `"${column.name}" with ${levels} levels: levels=${encoded.levels}`,
      );
    }
    if (column.determinedBy !== undefined) return;
    const out = cells.get(column.name)!;
    for (let i = 0; i < codes.n; i++) {
      const code = encoded.codes[i];
      const bin = bins[code];
      if (bin === undefined) {
        throw new RangeError(
          `Cannot decode column "${column.name}" as a code is outside 0..${levels - 1}: ` +
            `code=${code}`,
        );
      }
      out.push(
        bin.kind === "range"
          ? formatStep(drawStep(bin, bin.lo === bin.hi ? 0 : rng.uniform()), column)
          : bin.cell,
      );
    }
  });
  for (const column of schema.columns) {
    if (column.determinedBy === undefined) continue;
    const { column: parent, map } = column.determinedBy;
    cells.set(column.name, cells.get(parent)!.map((cell) => map[cell]));
  }
  return cells;
}
