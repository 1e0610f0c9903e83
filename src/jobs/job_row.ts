/**
 * A job's row as both stores read and write it: the store-independent values and views, with
 * each store's reading of its JSON columns and times passed in (PostgreSQL's `JSONB` columns come
 * back parsed, SQLite's as text; only the SQL placeholders stay per store).
 *
 * @module
 */
import type { SynthesisSpec } from "../synthesis/spec.ts";
import type { DatasetPolicy } from "./release_policy.ts";
import type {
  Claim,
  JobFailure,
  JobInput,
  JobKind,
  JobOutput,
  JobStatus,
  JobView,
  OwnerDiagnostics,
} from "./store.ts";
import type { TableSpec } from "./table_request.ts";
import { jobIterations } from "./work_limits.ts";

/** A result row as a store returns it. */
type StoreRow = Readonly<Record<string, unknown>>;

/** A store's reading of a JSON column (null stays null). */
export type JsonOf = (value: unknown) => unknown;

/** The columns {@linkcode jobViewOf} reads. */
export const JOB_VIEW_COLUMNS = "id, kind, status, dataset_id, progress, attempts, created_at, " +
  "updated_at, report, dataset_count, result, error, spec";

/**
 * The view of a job from its {@linkcode JOB_VIEW_COLUMNS}.
 *
 * @param row The row.
 * @param timeOf A store's time value as ISO 8601.
 * @param jsonOf A store's reading of a JSON column.
 * @returns The job as the API shows it.
 */
export function jobViewOf(
  row: StoreRow,
  timeOf: (value: unknown) => string,
  jsonOf: JsonOf,
): JobView {
  const kind = String(row.kind) as JobKind;
  return {
    id: String(row.id),
    kind,
    status: String(row.status) as JobStatus,
    datasetId: row.dataset_id === null ? null : String(row.dataset_id),
    progress: jsonOf(row.progress) as JobView["progress"],
    attempts: Number(row.attempts),
    iterations: jobIterations(kind, jsonOf(row.spec) as SynthesisSpec | TableSpec),
    createdAt: timeOf(row.created_at),
    updatedAt: timeOf(row.updated_at),
    report: jsonOf(row.report) as JobView["report"],
    datasetCount: Number(row.dataset_count),
    result: jsonOf(row.result) as JobView["result"],
    error: jsonOf(row.error) as JobView["error"],
  };
}

/**
 * A job's input from its `kind, spec, dataset_id, policy, csv` row (null when it has no CSV).
 *
 * @param row The row, or undefined when there is no such job.
 * @param policyOf A store's reading of the dataset's `policy` column.
 * @param jsonOf A store's reading of the job's `spec` column.
 * @returns The input, or null.
 */
export function jobInputOf(
  row: StoreRow | undefined,
  policyOf: (column: unknown) => DatasetPolicy,
  jsonOf: JsonOf,
): JobInput | null {
  if (row === undefined || row.csv === null) return null;
  const registered = row.dataset_id !== null;
  const common = {
    csv: String(row.csv),
    datasetId: registered ? String(row.dataset_id) : null,
    policy: registered ? policyOf(row.policy) : null,
  };
  const spec = jsonOf(row.spec);
  return row.kind === "table"
    ? { ...common, kind: "table", spec: spec as TableSpec }
    : { ...common, kind: "synthesis", spec: spec as SynthesisSpec };
}

/**
 * A finished job's owner diagnostics from its `status, diagnostics, failure_detail` row: a
 * success's diagnostics, or a failure's with its reason (null when none was kept).
 *
 * @param row The row, or undefined when there is no such finished job.
 * @param jsonOf A store's reading of a JSON column.
 * @returns The diagnostics, or null.
 */
export function ownerDiagnosticsOf(
  row: StoreRow | undefined,
  jsonOf: JsonOf,
): OwnerDiagnostics | null {
  if (row === undefined) return null;
  const diagnostics = jsonOf(row.diagnostics) as OwnerDiagnostics | null;
  if (row.status === "succeeded") return diagnostics;
  if (row.failure_detail === null) return null;
  return { ...diagnostics, failure: jsonOf(row.failure_detail) } as OwnerDiagnostics;
}

/**
 * The values a succeeded job's row is set to, in the order `report, diagnostics, dataset_count,
 * result, progress, updated_at` (JSON as text).
 *
 * @param release The release.
 * @param time The update time.
 * @returns The 6 values.
 */
export function succeededJobValues(release: JobOutput, time: string): (string | number | null)[] {
  return [
    JSON.stringify(release.report),
    release.diagnostics === null ? null : JSON.stringify(release.diagnostics),
    release.datasets.length,
    release.result === undefined ? null : JSON.stringify(release.result),
    JSON.stringify({ stage: "done", fraction: 1 }),
    time,
  ];
}

/** The failure of a job interrupted `attempts` times, which is not retried again. */
export function tooManyAttempts(attempts: unknown): JobFailure {
  return {
    code: "too_many_attempts",
    message: `the job was interrupted ${attempts} times and is not retried again`,
  };
}

/**
 * A claim's new lease: a fresh token, and the values of the lease columns both stores' claim
 * statements set, in their order: owner, token, expiry (ms since the epoch), time of the update.
 *
 * @param workerId The claiming worker.
 * @param leaseMs How long the lease holds.
 * @param time The store's current time.
 */
export function freshLease(
  workerId: string,
  leaseMs: number,
  time: () => string,
): { token: string; values: [string, string, number, string] } {
  const token = crypto.randomUUID();
  return { token, values: [workerId, token, Date.now() + leaseMs, time()] };
}

/**
 * The claim on job `jobId` under `token` from the row its claim statement returned (its
 * `attempts`), or null where the statement took no row.
 */
export function claimOf(taken: StoreRow | undefined, jobId: string, token: string): Claim | null {
  return taken === undefined ? null : { lease: { jobId, token }, attempts: Number(taken.attempts) };
}
