/**
 * `parseCsv` that keeps the event loop free: text longer than {@linkcode WORKER_CSV_LENGTH} is
 * parsed in a module worker (`csv_worker.ts`), shorter text at once.
 *
 * @module
 */
import { parseCsv } from "./csv.ts";
import { askWorker } from "./data_worker.ts";
import type { Dataset } from "./dataset.ts";
import { type PackedDataset, unpackDataset } from "./packed_dataset.ts";

/** CSV text longer than this (in UTF-16 units) is parsed in a worker. */
export const WORKER_CSV_LENGTH = 256 * 1024;

/**
 * Parses CSV text as {@linkcode parseCsv} does, in a worker when it is long.
 *
 * @param text The whole file.
 * @param source The file name used in error messages.
 * @param signal Stops the parse (its worker is terminated) and rejects with its reason.
 * @returns The dataset; rejects with the `DataError` of `parseCsv` (same message).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseCsvAsync } from "./parse_csv_async.ts";
 * const data = await parseCsvAsync("y\n1\n2\n", "in.csv");
 * assert.equal(data.n, 2);
 * ```
 */
export async function parseCsvAsync(
  text: string,
  source: string,
  signal?: AbortSignal,
): Promise<Dataset> {
  signal?.throwIfAborted();
  if (text.length <= WORKER_CSV_LENGTH) return parseCsv(text, source);
  const packed = await askWorker<PackedDataset>(
    new URL("./csv_worker.ts", import.meta.url),
    { text, source },
    signal,
  );
  return await unpackDataset(packed);
}
