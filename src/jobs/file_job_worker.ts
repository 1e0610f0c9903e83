/**
 * Worker entry of a whole-file synthesis job (issue 35): `synthesizeFile`, each file's
 * `fileUtility` and the CSVs, off the event loop — the Gibbs sweeps and the Lipschitz passes take
 * seconds to minutes of one core, and the server must keep answering meanwhile (issue 34: nothing
 * heavy on the request thread). Asked by `runFileSynthesisJob` (`file_job.ts`) through
 * `askWorker`, which terminates it when the job's time limit aborts it; the stages go back as
 * notes (`progressNote`, `file_progress.ts`), the release as the value, an error by its class name
 * (`answerWith`).
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { datasetColumns, formatCsv } from "../data/csv.ts";
import { answerWith, postNote } from "../data/data_worker.ts";
import type { Dataset } from "../data/dataset.ts";
import type { FileSchema } from "../data/file_schema.ts";
import type { FileSynthesisSettings } from "../synthesis/file_synthesis.ts";
import { synthesizeFile } from "../synthesis/file_synthesis.ts";
import { fileUtility } from "../synthesis/file_utility.ts";
import { progressNote } from "./file_progress.ts";
import type { JobOutput } from "./store.ts";

/** What the worker runs. */
export interface FileWorkerJob {
  readonly data: Dataset;
  readonly schema: FileSchema;
  readonly settings: FileSynthesisSettings;
}

/**
 * The release of a whole-file job: the manifest, the owner's diagnostics with each file's
 * utility report (aggregates of the confidential file), and the m CSVs with formula cells escaped.
 */
async function fileRelease(job: FileWorkerJob): Promise<JobOutput> {
  const { data, schema, settings } = job;
  const result = await synthesizeFile(
    data,
    schema,
    settings,
    (stage, done, total) => postNote(progressNote(stage, done, total)),
  );
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

self.onmessage = (event: MessageEvent<FileWorkerJob>) =>
  answerWith(async () => ({ value: await fileRelease(event.data) }));
