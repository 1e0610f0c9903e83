/**
 * Survey tables for the HTTP service (SPEC §8): the table methods of `src/survey/table_methods.ts`
 * on a dataset, returned as the command's JSON rows with the release's privacy. `sample` and
 * `laplace` are computed in a module worker (`src/survey/table_worker.ts`), never on the event
 * loop; a laplace table of few cells answers at once, a larger one runs as a job of kind "table"
 * in the worker pool, as `fbs` and `fbp` (which synthesise) always do.
 *
 * @module
 */
import { askWorker, builtInError } from "../data/data_worker.ts";
import type { Dataset } from "../data/dataset.ts";
import {
  formatTable,
  runTableMethod,
  type TableBounds,
  type TableMethodOptions,
  type TableRequest,
} from "../survey/table_methods.ts";
import type { TableWorkerJob, TableWorkerValue } from "../survey/table_worker.ts";
import type { ReleaseManifest } from "../synthesis/report.ts";
import { DataRejectedError } from "./domain_errors.ts";
import { failureOf } from "./failure.ts";
import { jobProgress } from "./synthesis_job.ts";
import type {
  JobFailure,
  JobOutput,
  JobProgress,
  JobStore,
  JobView,
  OwnerDiagnostics,
  Submission,
} from "./store.ts";
import type { TableResult, TableRow, TableSpec } from "./table_request.ts";

/** A computed table: the public result and, for fbs and fbp, the synthesis's report. */
export interface TableOutcome {
  readonly result: TableResult;
  /** The public manifest of the synthesis behind an fbs or fbp table (null otherwise). */
  readonly report: ReleaseManifest | null;
  /** laplace with bounds: values clamped to them, by column (owner's diagnostics only). */
  readonly clamped?: Record<string, number>;
}

/**
 * `runTableMethod` of a `sample` or `laplace` request in a fresh module worker
 * (`table_worker.ts`, through `askWorker`), so that the event loop stays free however many cells
 * the table has. The error a table throws is rethrown with its class (`DataError`, `RangeError`,
 * `TypeError`) and message; a failure of the worker itself rejects with a plain Error. Aborting
 * `options.signal` (a job past its time limit) rejects at once and stops the worker (its stop
 * flag, read before each noise draw, then `terminate()`).
 *
 * @param data The confidential sample (copied to the worker).
 * @param request A sample or laplace request.
 * @param options The declared levels of the cells and bounds of the values, and the job's signal.
 * @returns The rows of `formatTable(table, "json")`, the privacy and the clamped counts.
 */
export async function tableInWorker(
  data: Dataset,
  request: TableRequest,
  options: Pick<TableMethodOptions, "levels" | "bounds" | "signal"> = {},
): Promise<
  { rows: TableRow[]; privacy: TableResult["privacy"]; clamped?: Record<string, number> }
> {
  const job: TableWorkerJob = {
    data,
    request,
    options: { levels: options.levels, bounds: options.bounds },
  };
  const { rows, privacy, clamped } = await askWorker<TableWorkerValue>(
    new URL("../survey/table_worker.ts", import.meta.url),
    job,
    options.signal,
    { restore: builtInError },
  );
  return {
    rows: JSON.parse(rows) as TableRow[],
    privacy,
    ...(clamped === undefined ? {} : { clamped }),
  };
}

/**
 * Computes the table a request asks for (`runTableMethod`, with the randomness of `deno task
 * tabulate`, so a seeded request gives the command's rows) as the API returns it: `sample` and
 * `laplace` in a worker ({@linkcode tableInWorker}), `fbs` and `fbp` here (their fits run in
 * their own chain workers).
 *
 * @param data The confidential sample.
 * @param spec The validated request.
 * @param options Progress, and the declared levels of the cells and bounds of the values.
 * @returns The table as rows with its privacy, the synthesis report for fbs and fbp, and (laplace
 * with bounds) the clamped counts.
 */
export async function tabulate(
  data: Dataset,
  spec: TableSpec,
  options: TableMethodOptions = {},
): Promise<TableOutcome> {
  if (spec.method === "sample" || spec.method === "laplace") {
    const { rows, privacy, clamped } = await tableInWorker(data, spec, options);
    return {
      result: { method: spec.method, by: spec.by, rows, privacy },
      report: null,
      ...(clamped === undefined ? {} : { clamped }),
    };
  }
  const { table, privacy, report } = await runTableMethod(data, spec, options);
  const rows: TableRow[] = JSON.parse(formatTable(table, "json"));
  return { result: { method: spec.method, by: spec.by, rows, privacy }, report };
}

/**
 * The bounds of a laplace table on a registered dataset: the policy's declared bounds of its `y`
 * and `weight` columns (undefined unless both are declared and the method is laplace;
 * `checkTable` refuses a laplace request without them).
 *
 * @param bounds The policy's bounds by column.
 * @param spec The request.
 */
export function policyTableBounds(
  bounds: Readonly<Record<string, readonly [number, number]>>,
  spec: Pick<TableSpec, "method" | "y" | "weight">,
): TableBounds | undefined {
  const y = bounds[spec.y];
  const weight = bounds[spec.weight];
  if (spec.method !== "laplace" || y === undefined || weight === undefined) return undefined;
  return { y: [y[0], y[1]], weight: [weight[0], weight[1]] };
}

/**
 * Runs a table job (fbs, fbp, or a laplace table of many cells) to the release the queue charges
 * and publishes: for fbs and fbp the synthesis's report (its ε is the charge); for laplace only
 * the charge `{epsilon}` in the report's place (the queue's ledger reads its ε; the table's
 * privacy is the release's public statement, and the table view shows no report for it), its
 * clamped counts as the owner's diagnostics; no microdata (only the table is released), and the
 * table. A laplace table is computed in a worker ({@linkcode tableInWorker}).
 *
 * @param data The confidential sample.
 * @param spec The job's request.
 * @param onProgress Where the synthesis's progress goes (public stage names only).
 * @param options Declared levels of the grouping columns and bounds of the values (a
 * registered dataset's policy), and the job's signal (fbs, fbp: aborting it stops the synthesis).
 * @returns The release; throws a TypeError for a method that does not run as a job.
 */
export async function runTableJob(
  data: Dataset,
  spec: TableSpec,
  onProgress: (progress: JobProgress) => void,
  options: Pick<TableMethodOptions, "levels" | "bounds" | "signal"> = {},
): Promise<JobOutput> {
  if (spec.method === "laplace") {
    onProgress({ stage: "table", fraction: 0 });
    const { result, clamped } = await tabulate(data, spec, options);
    return {
      report: { epsilon: spec.epsilon! } as ReleaseManifest,
      diagnostics: clamped === undefined ? null : { clamped },
      datasets: [],
      result,
    };
  }
  if (spec.method !== "fbs" && spec.method !== "fbp") {
    throw new TypeError(
      `Invalid method: only fbs, fbp and laplace tables run as jobs: method=${spec.method}`,
    );
  }
  const { result, report } = await tabulate(data, spec, {
    levels: options.levels,
    signal: options.signal,
    onProgress: jobProgress(onProgress),
  });
  return {
    report: report!,
    diagnostics: null,
    datasets: [],
    result,
  };
}

/**
 * Answers a `laplace` table at once and persists it: on inline data, the table and its ε (and,
 * with bounds, the values clamped to them as the caller's diagnostics); on a registered dataset,
 * the requested ε is charged whatever the outcome, and a table that fails on the data is stored
 * as a failed job (its reason for the owner's diagnostics only) and answered with the fixed
 * {@linkcode DataRejectedError}. An idempotent retry returns what the first request stored
 * (never fresh noise, never a second charge).
 *
 * @param store Where the table (or failure) and the charge go, in one transaction.
 * @param submission The request (its `spec.epsilon` is the charge on a registered dataset).
 * @param compute Computes the table from the confidential data (and the values it clamped).
 * @param diagnostics The owner's diagnostics (values clamped to the policy's bounds); absent:
 * the clamped counts of `compute`, if any.
 * @param commit Called right before the store is written (it throws when the request may no
 * longer write: it was answered 503 at its deadline).
 * @returns The stored job; throws `DataRejectedError` when it failed on a registered dataset,
 * `BudgetExceededError` when the charge does not fit.
 */
export async function answerTableNow(
  store: JobStore,
  submission: Submission,
  compute: () => Promise<Pick<TableOutcome, "result" | "clamped">>,
  diagnostics?: OwnerDiagnostics,
  commit: () => void = () => {},
): Promise<JobView> {
  const epsilon = submission.spec.epsilon!;
  const kept = (clamped?: Record<string, number>) =>
    diagnostics ?? (clamped === undefined ? undefined : { clamped });
  if (submission.datasetId === null) {
    const { result, clamped } = await compute();
    commit();
    return (await store.recordAnswered(submission, { epsilon, result, diagnostics: kept(clamped) }))
      .job;
  }
  let outcome: { result: TableResult } | { failure: JobFailure };
  try {
    outcome = { result: (await compute()).result };
  } catch (error) {
    outcome = { failure: failureOf(error) };
  }
  commit();
  const { job } = await store.recordAnswered(submission, { epsilon, diagnostics, ...outcome });
  if (job.status === "failed") throw new DataRejectedError();
  return job;
}
