/**
 * Worker entry for the tables the service computes without a synthesis (`sample` and `laplace`):
 * `runTableMethod` and the rows of `formatTable` off the event loop, so that a table of many cells
 * (its secure noise is a BigInt sampler per cell) never blocks other requests. Started by
 * `tableInWorker` (`src/jobs/table_job.ts`).
 *
 * Message in: {@linkcode TableWorkerJob}. Message out: {@linkcode TableWorkerAnswer}: the rows as
 * JSON text (one string to copy, not a million small objects), the privacy and the clamped
 * counts; or the error's class and message, so that the caller rethrows the same class (a
 * `DataError` stays bad data, a `RangeError` bad settings).
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { DataError, type DataErrorMessage, dataErrorMessage } from "../data/data_error.ts";
import type { Dataset } from "../data/dataset.ts";
import {
  formatTable,
  runTableMethod,
  type TableMethodOptions,
  type TablePrivacy,
  type TableRequest,
} from "./table_methods.ts";

/** What the worker computes: `runTableMethod(data, request, options)` (sample or laplace). */
export interface TableWorkerJob {
  readonly data: Dataset;
  readonly request: TableRequest;
  readonly options: Pick<TableMethodOptions, "levels" | "bounds">;
}

/** The worker's one reply. */
export type TableWorkerAnswer =
  | {
    readonly type: "table";
    /** `formatTable(table, "json")`. */
    readonly rows: string;
    readonly privacy: TablePrivacy | null;
    readonly clamped?: Record<string, number>;
  }
  | DataErrorMessage
  | { readonly type: "range_error" | "type_error" | "error"; readonly message: string };

self.onmessage = async (event: MessageEvent<TableWorkerJob>) => {
  const { data, request, options } = event.data;
  let answer: TableWorkerAnswer;
  try {
    if (request.method !== "sample" && request.method !== "laplace") {
      throw new TypeError(`Invalid method: the table worker computes sample and laplace only`);
    }
    const { table, privacy, clamped } = await runTableMethod(data, request, options);
    answer = {
      type: "table",
      rows: formatTable(table, "json"),
      privacy,
      ...(clamped === undefined ? {} : { clamped }),
    };
  } catch (error) {
    if (error instanceof DataError) {
      answer = dataErrorMessage(error);
    } else if (error instanceof RangeError) {
      answer = { type: "range_error", message: error.message };
    } else if (error instanceof TypeError) {
      answer = { type: "type_error", message: error.message };
    } else {
      answer = { type: "error", message: (error as Error).message };
    }
  }
  self.postMessage(answer);
};
