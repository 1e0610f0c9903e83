/**
 * Survey tables for the HTTP service (SPEC §8): the table methods of `src/survey/table_methods.ts`
 * on a dataset, returned as the command's JSON rows with the release's privacy. `sample` and
 * `laplace` answer at once; `fbs` and `fbp` synthesise, so they run as jobs of kind "table" in
 * the worker pool.
 *
 * @module
 */
import type { Dataset } from "../data/dataset.ts";
import { formatTable, releaseTable, type ReleaseTableOptions } from "../survey/table_methods.ts";
import type { ReleaseReport } from "../synthesis/report.ts";
import { DataRejectedError } from "./domain_errors.ts";
import { failureOf } from "./failure.ts";
import { publicStage } from "./synthesis_job.ts";
import type {
  JobFailure,
  JobProgress,
  JobStore,
  JobView,
  OwnerDiagnostics,
  Release,
  Submission,
} from "./store.ts";
import type { TableResult, TableRow, TableSpec } from "./table_spec.ts";

/** A computed table: the public result and, for fbs and fbp, the synthesis's report. */
export interface TableOutcome {
  readonly result: TableResult;
  /** The public manifest of the synthesis behind an fbs or fbp table (null otherwise). */
  readonly report: ReleaseReport | null;
}

/**
 * Computes the table a request asks for (`releaseTable`, with the randomness of `deno task
 * tabulate`, so a seeded request gives the command's rows) as the API returns it.
 *
 * @param data The confidential sample.
 * @param spec The validated request.
 * @param options Progress, and the declared levels of the cells.
 * @returns The table as rows with its privacy, and the synthesis report for fbs and fbp.
 */
export async function tabulate(
  data: Dataset,
  spec: TableSpec,
  options: ReleaseTableOptions = {},
): Promise<TableOutcome> {
  const { table, privacy, report } = await releaseTable(data, spec, options);
  const rows: TableRow[] = JSON.parse(formatTable(table, "json"));
  return { result: { method: spec.method, by: spec.by, rows, privacy }, report };
}

/**
 * Runs a table job (fbs or fbp) to the release the queue charges and publishes: the
 * synthesis's report (its ε is the charge), no diagnostics and no microdata (only the table is
 * released), and the table.
 *
 * @param data The confidential sample.
 * @param spec The job's request.
 * @param onProgress Where the synthesis's progress goes (public stage names only).
 * @param levels Declared levels of the grouping columns (a registered dataset's policy).
 * @returns The release; throws a TypeError for a method that does not run as a job.
 */
export async function runTableJob(
  data: Dataset,
  spec: TableSpec,
  onProgress: (progress: JobProgress) => void,
  levels?: Readonly<Record<string, readonly string[]>>,
): Promise<Release> {
  if (spec.method !== "fbs" && spec.method !== "fbp") {
    throw new TypeError(
      `Invalid method: only fbs and fbp tables run as jobs: method=${spec.method}`,
    );
  }
  const { result, report } = await tabulate(data, spec, {
    levels,
    onProgress: (stage, done, total) =>
      onProgress({ stage: publicStage(stage), fraction: total > 0 ? done / total : 0 }),
  });
  return {
    report: report!,
    diagnostics: null,
    datasets: [],
    result,
  };
}

/**
 * Answers a `laplace` table at once and persists it: on inline data, the table and its ε; on a
 * registered dataset, the requested ε is charged whatever the outcome, and a table that fails
 * on the data is stored as a failed job (its reason for the owner's diagnostics only) and
 * answered with the fixed {@linkcode DataRejectedError}. An idempotent retry returns what the
 * first request stored (never fresh noise, never a second charge).
 *
 * @param store Where the table (or failure) and the charge go, in one transaction.
 * @param submission The request (its `spec.epsilon` is the charge on a registered dataset).
 * @param compute Computes the table from the confidential data.
 * @param diagnostics The owner's diagnostics (values clamped to the policy's bounds).
 * @returns The stored job; throws `DataRejectedError` when it failed on a registered dataset,
 * `BudgetExceededError` when the charge does not fit.
 */
export async function releaseTableNow(
  store: JobStore,
  submission: Submission,
  compute: () => Promise<TableResult>,
  diagnostics?: OwnerDiagnostics,
): Promise<JobView> {
  const epsilon = submission.spec.epsilon!;
  if (submission.datasetId === null) {
    const result = await compute();
    return (await store.releaseNow(submission, { epsilon, result, diagnostics })).job;
  }
  let outcome: { result: TableResult } | { failure: JobFailure };
  try {
    outcome = { result: await compute() };
  } catch (error) {
    outcome = { failure: failureOf(error) };
  }
  const { job } = await store.releaseNow(submission, { epsilon, diagnostics, ...outcome });
  if (job.status === "failed") throw new DataRejectedError();
  return job;
}
