/**
 * Confidential data in a request: CSV text or JSON records (objects with the same fields, whose
 * values are numbers or strings), turned into the columnar {@linkcode Dataset} and a canonical
 * CSV text for the store. Errors name the record and field, never a value.
 *
 * @module
 */
import { datasetColumns, formatCsv, parseCsv } from "../data/csv.ts";
import { DataError } from "../data/data_error.ts";
import { type Column, columnFromCells, type Dataset } from "../data/dataset.ts";

/** CSV text longer than this (in UTF-16 units) is parsed in a worker. */
export const WORKER_CSV_LENGTH = 256 * 1024;

/** Records with more cells than this are read in a worker. */
export const WORKER_RECORD_CELLS = 32 * 1024;

/** Data as a request carries it: exactly one of `csv` and `records`. */
export interface DataInput {
  readonly csv?: string;
  readonly records?: readonly Readonly<Record<string, number | string>>[];
}

function datasetFromRecords(
  records: readonly Readonly<Record<string, number | string>>[],
  source: string,
): Dataset {
  if (records.length === 0) throw new DataError({ file: source }, "there are no records");
  const names = Object.keys(records[0]);
  if (names.length === 0) throw new DataError({ file: source }, "the records have no fields");
  const cells = names.map(() => new Array<string>(records.length));
  records.forEach((record, i) => {
    const keys = Object.keys(record);
    if (keys.length !== names.length || keys.some((key) => !Object.hasOwn(records[0], key))) {
      throw new DataError(
        { file: source, row: i + 1 },
        "the record's fields differ from the first record's",
      );
    }
    names.forEach((name, j) => {
      const value = record[name];
      cells[j][i] = typeof value === "number" ? String(value) : value.trim();
    });
    if (cells.every((column) => column[i] === "")) {
      throw new DataError({ file: source, row: i + 1 }, "the record is empty");
    }
  });
  const columns = new Map<string, Column>();
  names.forEach((name, j) => columns.set(name, columnFromCells(cells[j])));
  return { source, n: records.length, names, columns };
}

/**
 * Reads request data into a dataset and its canonical CSV text (numbers in shortest round-trip
 * form, so that parsing the text gives the same dataset back).
 *
 * @param input Exactly one of CSV text and records.
 * @param source A name for error messages ("inline data", "dataset upload").
 * @returns The dataset and its CSV; throws `DataError` for bad data.
 */
export function readDataInput(input: DataInput, source: string): { data: Dataset; csv: string } {
  const data = input.records !== undefined
    ? datasetFromRecords(input.records, source)
    : parseCsv(input.csv ?? "", source);
  return { data, csv: formatCsv(datasetColumns(data)) };
}

/**
 * A dataset in a few arrays, for a worker to post back: numeric columns' values and categorical
 * columns' codes one column after another, every level in one list (`levelEnds[k]` ends the k-th
 * categorical column's levels).
 */
export interface PackedDataset {
  readonly source: string;
  readonly n: number;
  readonly names: readonly string[];
  /** 1 for a numeric column, 0 for a categorical one. */
  readonly numeric: Uint8Array;
  readonly values: Float64Array;
  readonly codes: Int32Array;
  readonly levels: readonly string[];
  readonly levelEnds: Int32Array;
}

/** Packs a dataset into a {@linkcode PackedDataset}. */
export function packDataset(data: Dataset): PackedDataset {
  const columns = data.names.map((name) => data.columns.get(name)!);
  const numeric = Uint8Array.from(columns, (column) => column.kind === "numeric" ? 1 : 0);
  const count = numeric.reduce((sum, flag) => sum + flag, 0);
  const values = new Float64Array(count * data.n);
  const codes = new Int32Array((columns.length - count) * data.n);
  const levelEnds = new Int32Array(columns.length - count);
  const levels: string[] = [];
  let v = 0;
  let c = 0;
  for (const column of columns) {
    if (column.kind === "numeric") {
      values.set(column.values, v++ * data.n);
    } else {
      codes.set(column.codes, c * data.n);
      levels.push(...column.levels);
      levelEnds[c++] = levels.length;
    }
  }
  return {
    source: data.source,
    n: data.n,
    names: data.names,
    numeric,
    values,
    codes,
    levels,
    levelEnds,
  };
}

/** Columns rebuilt between two yields to the event loop. */
const UNPACK_SLICE = 1 << 13;

/**
 * Rebuilds the dataset of {@linkcode packDataset} (its columns are views of the packed arrays),
 * yielding to the event loop every {@linkcode UNPACK_SLICE} columns.
 */
async function unpackDataset(packed: PackedDataset): Promise<Dataset> {
  const { n, names, numeric, values, codes, levels, levelEnds } = packed;
  const columns = new Map<string, Column>();
  let v = 0;
  let c = 0;
  for (let j = 0; j < names.length; j++) {
    if (j > 0 && j % UNPACK_SLICE === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    if (numeric[j] === 1) {
      columns.set(names[j], { kind: "numeric", values: values.subarray(v * n, ++v * n) });
    } else {
      const start = c === 0 ? 0 : levelEnds[c - 1];
      columns.set(names[j], {
        kind: "categorical",
        codes: codes.subarray(c * n, (c + 1) * n),
        levels: levels.slice(start, levelEnds[c++]),
      });
    }
  }
  return { source: packed.source, n, names, columns };
}

type WorkerAnswer =
  | { type: "data"; packed: PackedDataset; csv: string }
  | { type: "data_error"; file: string; row?: number; column?: string; message: string }
  | { type: "error"; message: string };

/**
 * {@linkcode readDataInput} that keeps the event loop free: large inputs (CSV text over
 * {@linkcode WORKER_CSV_LENGTH}, records over {@linkcode WORKER_RECORD_CELLS} cells) are read in
 * a worker (`parse_worker.ts`), small ones at once.
 *
 * @param input Exactly one of CSV text and records.
 * @param source A name for error messages.
 * @returns The dataset and its CSV; rejects with a `DataError` (same message) for bad data.
 */
export async function readDataInputAsync(
  input: DataInput,
  source: string,
): Promise<{ data: Dataset; csv: string }> {
  const large = input.records !== undefined
    ? input.records.length * Object.keys(input.records[0] ?? {}).length > WORKER_RECORD_CELLS
    : (input.csv ?? "").length > WORKER_CSV_LENGTH;
  if (!large) return readDataInput(input, source);
  const worker = new Worker(new URL("./parse_worker.ts", import.meta.url).href, {
    type: "module",
  });
  try {
    const answer = await new Promise<WorkerAnswer>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<WorkerAnswer>) => resolve(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(`the parse worker failed: ${event.message}`));
      };
      worker.postMessage({ input, source });
    });
    if (answer.type === "data") {
      return { data: await unpackDataset(answer.packed), csv: answer.csv };
    }
    if (answer.type === "error") throw new Error(answer.message);
    const error = new DataError(answer, "");
    error.message = answer.message;
    throw error;
  } finally {
    worker.terminate();
  }
}
