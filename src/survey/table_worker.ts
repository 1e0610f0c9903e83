/**
 * Worker entry for the tables the service computes without a synthesis (`sample` and `laplace`):
 * `runTableMethod` and the rows of `formatTable` off the event loop, so that a table of many cells
 * (its secure noise is a BigInt sampler per cell) never blocks other requests. Asked by
 * `tableInWorker` (`src/jobs/table_job.ts`) through `askWorker`, whose stop flag the laplace
 * table reads before each noise draw (a table of a million cells draws for minutes, and
 * `terminate()` alone does not end a worker inside a loop).
 *
 * Its job: {@linkcode TableWorkerJob}. Its value: {@linkcode TableWorkerValue}, the rows as JSON
 * text (one string to copy, not a million small objects), the privacy and the clamped counts; an
 * error goes back by its class name (`answerWith`), so that the caller rethrows the same class (a
 * `DataError` stays bad data, a `RangeError` bad settings).
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { answerWith, type WorkerRequest } from "../data/data_worker.ts";
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

/** The worker's value. */
export interface TableWorkerValue {
  /** `formatTable(table, "json")`. */
  readonly rows: string;
  readonly privacy: TablePrivacy | null;
  readonly clamped?: Record<string, number>;
}

self.onmessage = (event: MessageEvent<WorkerRequest<TableWorkerJob>>) =>
  answerWith(event.data, async ({ data, request, options }, stop): Promise<
    { value: TableWorkerValue }
  > => {
    if (request.method !== "sample" && request.method !== "laplace") {
      throw new TypeError(`Invalid method: the table worker computes sample and laplace only`);
    }
    const { table, privacy, clamped } = await runTableMethod(data, request, { ...options, stop });
    return {
      value: {
        rows: formatTable(table, "json"),
        privacy,
        ...(clamped === undefined ? {} : { clamped }),
      },
    };
  });
