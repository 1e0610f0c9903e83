/**
 * Survey tables for the HTTP service (SPEC §8): the `tabulate` command's methods on a dataset,
 * returned as the command's JSON rows with the release's privacy. `sample` and `laplace` answer
 * at once; `fbs` and `fbp` synthesise, so they run as jobs of kind "table" in the worker pool.
 *
 * @module
 */
import { formatTable } from "../cli/tabulate.ts";
import { NEIGHBOURS } from "../mechanisms/privacy.ts";
import type { Dataset } from "../data/dataset.ts";
import { Rng } from "../random/rng.ts";
import { laplaceTable, secureRelease, seededRelease } from "../survey/laplace_baseline.ts";
import { syntheticTable } from "../survey/synthetic_tables.ts";
import { type SurveyTable, surveyTable, tableInput } from "../survey/tables.ts";
import type { ReleaseReport, SynthesisProgress } from "../synthesis/synthesize.ts";
import { publicStage } from "./synthesis_job.ts";
import { DataRejectedError } from "./domain_errors.ts";
import { failureOf } from "./failure.ts";
import type {
  JobFailure,
  JobProgress,
  JobStore,
  JobView,
  OwnerDiagnostics,
  Release,
  Submission,
} from "./store.ts";
import {
  DEFAULT_TABLE_M,
  type TablePrivacy,
  type TableResult,
  type TableRow,
  type TableSpec,
} from "./table_spec.ts";

/** Random-group replicates of the Laplace baseline (the survey paper's R = 10). */
const LAPLACE_REPLICATES = 10;

const SEEDED = "seeded: the output is reproducible from the seed, which must stay secret";
const FRESH = "fresh: a secret seed drawn from the operating system's CSPRNG, not released";

/** A computed table: the public result and, for fbs and fbp, the synthesis's report. */
export interface TableOutcome {
  readonly result: TableResult;
  /** The public manifest of the synthesis behind an fbs or fbp table (null otherwise). */
  readonly report: ReleaseReport | null;
}

function freshSeed(): number {
  const [high, low] = crypto.getRandomValues(new Uint32Array(2));
  return (high & 0x1fffff) * 2 ** 32 + low;
}

/** The rows of `tabulate --out FILE.json` (NaN as null). */
function rowsOf(table: SurveyTable): TableRow[] {
  return JSON.parse(formatTable(table, "json"));
}

/** Options of {@linkcode tabulate}. */
export interface TabulateOptions {
  /** Progress of an fbs or fbp synthesis. */
  readonly onProgress?: SynthesisProgress;
  /** Declared levels of the grouping columns (a registered dataset's policy). */
  readonly levels?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Computes the table a request asks for, with the randomness of `deno task tabulate` (so a
 * seeded request gives the command's rows): `sample`, the sample's own Taylor-linearised table;
 * `laplace`, the Laplace baseline at total ε (replicates from `Rng(seed)`, noise from its
 * stream 1 when seeded, the secure discrete Laplace otherwise); `fbs` and `fbp`, the combined
 * tables of m synthetic samples at total ε (LW weights calibrated to ε; m defaults to 3).
 *
 * @param data The confidential sample.
 * @param spec The validated request.
 * @param options Progress, and the declared levels of the cells.
 * @returns The table, its privacy, and the synthesis report for fbs and fbp; throws a
 * `DataError` for bad data, a `RangeError` for settings or data the method cannot use, and a
 * `CalibrationError` when fbs or fbp cannot reach ε.
 */
export async function tabulate(
  data: Dataset,
  spec: TableSpec,
  options: TabulateOptions = {},
): Promise<TableOutcome> {
  const { method, by } = spec;
  const columns = { ...spec, levels: options.levels };
  if (method === "sample") {
    const table = surveyTable(tableInput(data, columns));
    return { result: { method, by, rows: rowsOf(table), privacy: null }, report: null };
  }
  const epsilon = spec.epsilon!;
  if (method === "laplace") {
    const seeded = spec.seed !== undefined;
    const rng = new Rng(spec.seed ?? freshSeed());
    const table = laplaceTable(tableInput(data, columns), {
      epsilon,
      replicates: LAPLACE_REPLICATES,
      rng,
      release: seeded ? seededRelease(rng.split(1)) : secureRelease,
    });
    const privacy: TablePrivacy = {
      epsilon: table.epsilon,
      guarantee: "local DP",
      neighbours: NEIGHBOURS,
      seedPolicy: seeded ? SEEDED : FRESH,
      epsilonPoint: table.epsilonPoint,
      epsilonReplicate: table.epsilonReplicate,
      replicates: LAPLACE_REPLICATES,
    };
    return { result: { method, by, rows: rowsOf(table), privacy }, report: null };
  }
  const { table, report } = await syntheticTable(data, {
    ...columns,
    method,
    epsilon,
    m: spec.m ?? DEFAULT_TABLE_M,
    onProgress: options.onProgress,
  });
  const privacy: TablePrivacy = {
    epsilon: report.epsilon,
    guarantee: report.guarantee,
    neighbours: NEIGHBOURS,
    seedPolicy: report.seedPolicy,
    m: report.m,
    lipschitz: report.lipschitz,
  };
  return { result: { method, by, rows: rowsOf(table), privacy }, report };
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
