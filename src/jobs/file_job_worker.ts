/**
 * Worker entry of a whole-file synthesis job (issue 35): `synthesizeFile`, each file's
 * `fileUtility` and the CSVs, off the event loop — the Gibbs sweeps and the Lipschitz passes take
 * minutes of one core, and the server must keep answering meanwhile (issue 34: nothing heavy on
 * the request thread). Started by `runFileSynthesisJob` (`file_job.ts`), which terminates it when
 * the job's time limit aborts it.
 *
 * Message in: {@linkcode FileWorkerJob}. Messages out: {@linkcode FileWorkerMessage}s — the stage
 * names as they come, then the release, or the error's class and what the caller needs to rethrow
 * the same class (a `DataError` stays bad data, a flagged fit `fit_flagged`, an unreachable ε
 * `epsilon_unreachable`).
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { datasetColumns, formatCsv } from "../data/csv.ts";
import { DataError } from "../data/data_error.ts";
import type { Dataset } from "../data/dataset.ts";
import type { FileSchema } from "../data/file_schema.ts";
import { FitFlaggedError } from "../mcmc/fit.ts";
import { CalibrationError } from "../mechanisms/calibrate.ts";
import type { FileSynthesisSettings } from "../synthesis/file_synthesis.ts";
import { synthesizeFile } from "../synthesis/file_synthesis.ts";
import { fileUtility } from "../synthesis/file_utility.ts";
import type { JobOutput } from "./store.ts";

/** What the worker runs. */
export interface FileWorkerJob {
  readonly data: Dataset;
  readonly schema: FileSchema;
  readonly settings: FileSynthesisSettings;
}

/** A message of the worker: a stage, the release, or the error to rethrow. */
export type FileWorkerMessage =
  | { readonly type: "stage"; readonly stage: string }
  | { readonly type: "release"; readonly release: JobOutput }
  | {
    readonly type: "data_error";
    readonly file: string;
    readonly row?: number;
    readonly column?: string;
    readonly message: string;
  }
  | {
    readonly type: "fit_flagged" | "calibration" | "range_error" | "type_error" | "error";
    readonly message: string;
    readonly reached?: number;
  };

/**
 * The release of a whole-file job: the manifest, the owner's diagnostics with each file's
 * utility report (aggregates of the confidential file), and the m CSVs with formula cells escaped.
 */
async function fileRelease(job: FileWorkerJob): Promise<JobOutput> {
  const { data, schema, settings } = job;
  const result = await synthesizeFile(data, schema, settings, (stage) => {
    self.postMessage({ type: "stage", stage } satisfies FileWorkerMessage);
  });
  const confidential = new Map(
    [...datasetColumns(data)].map(([name, column]) => [name, Array.from(column, String)]),
  );
  return {
    report: result.report,
    diagnostics: {
      ...result.diagnostics,
      utility: result.datasets.map((columns) => fileUtility(confidential, columns, schema)),
    },
    datasets: result.datasets.map((columns) => formatCsv(columns, { escapeFormulas: true })),
  };
}

/** The message that carries `error` back across the worker boundary. */
function errorMessage(error: unknown): FileWorkerMessage {
  if (error instanceof DataError) {
    const { file, row, column, message } = error;
    return { type: "data_error", file, row, column, message };
  }
  if (error instanceof FitFlaggedError) return { type: "fit_flagged", message: error.message };
  if (error instanceof CalibrationError) {
    return { type: "calibration", message: error.message, reached: error.reached };
  }
  if (error instanceof RangeError) return { type: "range_error", message: error.message };
  if (error instanceof TypeError) return { type: "type_error", message: error.message };
  return { type: "error", message: (error as Error).message };
}

self.onmessage = async (event: MessageEvent<FileWorkerJob>) => {
  try {
    self.postMessage(
      { type: "release", release: await fileRelease(event.data) } satisfies FileWorkerMessage,
    );
  } catch (error) {
    self.postMessage(errorMessage(error));
  }
};
