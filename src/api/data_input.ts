/**
 * Confidential data in a request: CSV text or JSON records (objects with the same fields, whose
 * values are numbers or strings), turned into the columnar {@linkcode Dataset} and a canonical
 * CSV text for the store. Errors name the record and field, never a value.
 *
 * @module
 */
import { datasetColumns, formatCsv, parseCsv } from "../data/csv.ts";
import { DataError } from "../data/data_error.ts";
import { askWorker } from "../data/data_worker.ts";
import { type Column, columnFromCells, type Dataset } from "../data/dataset.ts";
import { type PackedDataset, unpackDataset } from "../data/packed_dataset.ts";
import { WORKER_CSV_LENGTH } from "../data/parse_csv_async.ts";

export { WORKER_CSV_LENGTH };

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
 * {@linkcode readDataInput} that keeps the event loop free: large inputs (CSV text over
 * {@linkcode WORKER_CSV_LENGTH}, records over {@linkcode WORKER_RECORD_CELLS} cells) are read in
 * a worker (`parse_worker.ts`), small ones at once.
 *
 * @param input Exactly one of CSV text and records.
 * @param source A name for error messages.
 * @param signal Stops the read (its worker is terminated) and rejects with its reason.
 * @returns The dataset and its CSV; rejects with a `DataError` (same message) for bad data.
 */
export async function readDataInputAsync(
  input: DataInput,
  source: string,
  signal?: AbortSignal,
): Promise<{ data: Dataset; csv: string }> {
  signal?.throwIfAborted();
  const large = input.records !== undefined
    ? input.records.length * Object.keys(input.records[0] ?? {}).length > WORKER_RECORD_CELLS
    : (input.csv ?? "").length > WORKER_CSV_LENGTH;
  if (!large) return readDataInput(input, source);
  const { packed, csv } = await askWorker<{ packed: PackedDataset; csv: string }>(
    new URL("./parse_worker.ts", import.meta.url),
    { input, source },
    signal,
  );
  return { data: await unpackDataset(packed), csv };
}
