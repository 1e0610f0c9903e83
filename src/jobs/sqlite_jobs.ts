/**
 * Jobs and the privacy-budget ledger of the embedded store (the third layer of
 * `SqliteJobStore`; the fourth, `sqlite_queue.ts`, adds the leases). They share transactions:
 * a submission persists the job and charges its cap in one, and completing a job checks the
 * release's ε against the ledger ({@linkcode SqliteJobs.checkRelease}), stores its files and
 * marks it succeeded in one. The ledger's unique job id charges a job at most once. The rules
 * of charging are `charging.ts`'s, shared with the PostgreSQL store; this file gives them
 * their reads and writes in SQLite, inside one `BEGIN IMMEDIATE` transaction.
 *
 * @module
 */
import type { SynthesisSpec } from "../synthesis/spec.ts";
import {
  budgetOf,
  type ChargingTransaction,
  jsonColumn as json,
  NEW_JOB_COLUMNS,
  newJobRow,
  type ReadLedger,
  readLedger,
  releaseCheckRule,
  releaseNowRule,
  runSync,
  shownFailure,
  submitRule,
} from "./charging.ts";
import { policyOf, SqliteDatasets } from "./sqlite_datasets.ts";
import { now, settle } from "./sqlite_schema.ts";
import {
  type Budget,
  type CompleteOutcome,
  type ImmediateRelease,
  type JobFailure,
  type JobInput,
  type JobKind,
  type JobStatus,
  type JobView,
  type OwnerDiagnostics,
  type Submission,
  type Submitted,
} from "./store.ts";
import type { TableSpec } from "./table_spec.ts";

/** The keys, datasets, jobs and ledger parts of the store. */
export class SqliteJobs extends SqliteDatasets {
  #ledger(
    datasetId: string,
    tenant: string | null,
  ): ReadLedger | null {
    const dataset = this.db.get(
      "SELECT epsilon_total, tenant FROM datasets WHERE id = ?",
      datasetId,
    );
    if (dataset === undefined || (tenant !== null && dataset.tenant !== tenant)) return null;
    const rows = this.db.all(
      "SELECT job_id, epsilon, released_at FROM ledger WHERE dataset_id = ? ORDER BY seq",
      datasetId,
    );
    return readLedger(dataset.epsilon_total, rows);
  }

  budget(datasetId: string, tenant: string): Promise<Budget | null> {
    return settle(() => {
      const ledger = this.#ledger(datasetId, tenant);
      return ledger === null ? null : budgetOf(datasetId, ledger, String);
    });
  }

  /** The charging rule's reads and writes, in SQLite, inside the caller's transaction. */
  #charging(): ChargingTransaction {
    return {
      now,
      previous: (keyId, idempotencyKey) => {
        const previous = this.db.get(
          "SELECT request_hash, job_id FROM idempotency WHERE key_id = ? AND idempotency_key = ?",
          keyId,
          idempotencyKey,
        );
        return previous === undefined
          ? null
          : { requestHash: String(previous.request_hash), jobId: String(previous.job_id) };
      },
      remember: (keyId, idempotencyKey, requestHash, jobId) => {
        this.db.run(
          `INSERT INTO idempotency (key_id, idempotency_key, request_hash, job_id)
           VALUES (?, ?, ?, ?)`,
          keyId,
          idempotencyKey,
          requestHash,
          jobId,
        );
      },
      ledger: (datasetId, tenant) => this.#ledger(datasetId, tenant),
      charged: (jobId) => {
        const cap = this.db.get("SELECT epsilon FROM ledger WHERE job_id = ?", jobId);
        return cap === undefined ? null : Number(cap.epsilon);
      },
      insertJob: (job) => {
        const row = newJobRow(job);
        const places = row.map(() => "?").join(", ");
        this.db.run(`INSERT INTO jobs (${NEW_JOB_COLUMNS}) VALUES (${places})`, ...row);
      },
      insertCharge: (jobId, datasetId, epsilon, time) =>
        this.#insertCharge(jobId, datasetId, epsilon, time),
      jobView: (id) => this.#jobView(id)!,
      failJob: (jobId, failure) => this.finish(jobId, failure),
    };
  }

  submit(submission: Submission): Promise<Submitted> {
    return settle(() => this.db.tx(() => runSync(submitRule(this.#charging(), submission))));
  }

  releaseNow(submission: Submission, release: ImmediateRelease): Promise<Submitted> {
    return settle(() =>
      this.db.tx(() => runSync(releaseNowRule(this.#charging(), submission, release)))
    );
  }

  #insertCharge(jobId: string, datasetId: string, epsilon: number, time: string): void {
    this.db.run(
      "INSERT INTO ledger (job_id, dataset_id, epsilon, released_at) VALUES (?, ?, ?, ?)",
      jobId,
      datasetId,
      epsilon,
      time,
    );
  }

  #jobView(id: string): JobView | null {
    const row = this.db.get(
      `SELECT id, kind, status, dataset_id, progress, attempts, created_at, updated_at, report,
              dataset_count, result, error FROM jobs WHERE id = ?`,
      id,
    );
    if (row === undefined) return null;
    return {
      id: String(row.id),
      kind: String(row.kind) as JobKind,
      status: String(row.status) as JobStatus,
      datasetId: row.dataset_id === null ? null : String(row.dataset_id),
      progress: row.progress === null ? null : JSON.parse(String(row.progress)),
      attempts: Number(row.attempts),
      createdAt: String(row.created_at),
      updatedAt: String(row.updated_at),
      report: row.report === null ? null : JSON.parse(String(row.report)),
      datasetCount: Number(row.dataset_count),
      result: row.result === null ? null : JSON.parse(String(row.result)),
      error: row.error === null ? null : JSON.parse(String(row.error)),
    };
  }

  job(id: string, tenant: string): Promise<JobView | null> {
    return settle(() => {
      const owned = this.db.get("SELECT 1 FROM jobs WHERE id = ? AND tenant = ?", id, tenant);
      return owned === undefined ? null : this.#jobView(id);
    });
  }

  jobInput(id: string): Promise<JobInput | null> {
    return settle(() => {
      const row = this.db.get(
        `SELECT jobs.kind, jobs.spec, jobs.dataset_id, datasets.policy,
                COALESCE(jobs.inline_csv, datasets.csv) AS csv
         FROM jobs LEFT JOIN datasets ON datasets.id = jobs.dataset_id WHERE jobs.id = ?`,
        id,
      );
      if (row === undefined || row.csv === null) return null;
      const registered = row.dataset_id !== null;
      const common = {
        csv: String(row.csv),
        datasetId: registered ? String(row.dataset_id) : null,
        policy: registered ? policyOf(row.policy) : null,
      };
      const spec = JSON.parse(String(row.spec));
      return row.kind === "table"
        ? { ...common, kind: "table", spec: spec as TableSpec }
        : { ...common, kind: "synthesis", spec: spec as SynthesisSpec };
    });
  }

  jobDataset(id: string, k: number, tenant: string): Promise<string | null> {
    return settle(() => {
      const row = this.db.get(
        `SELECT job_datasets.csv FROM job_datasets JOIN jobs ON jobs.id = job_datasets.job_id
         WHERE job_datasets.job_id = ? AND job_datasets.k = ? AND jobs.status = 'succeeded'
         AND jobs.tenant = ?`,
        id,
        k,
        tenant,
      );
      return row === undefined ? null : String(row.csv);
    });
  }

  jobDiagnostics(id: string, tenant: string): Promise<OwnerDiagnostics | null> {
    return settle(() => {
      const row = this.db.get(
        `SELECT status, diagnostics, failure_detail FROM jobs
         WHERE id = ? AND tenant = ? AND status IN ('succeeded', 'failed')`,
        id,
        tenant,
      );
      if (row === undefined) return null;
      const diagnostics = row.diagnostics === null ? null : JSON.parse(String(row.diagnostics));
      if (row.status === "succeeded") return diagnostics;
      if (row.failure_detail === null) return null;
      return { ...diagnostics, failure: JSON.parse(String(row.failure_detail)) };
    });
  }

  /**
   * Fails a job. On a registered dataset every key sees {@linkcode DATA_REJECTED}, and the
   * failure itself is kept for the owner's diagnostics.
   */
  protected finish(id: string, failure: JobFailure): void {
    const registered = this.db.get("SELECT dataset_id FROM jobs WHERE id = ?", id)?.dataset_id;
    const shown = shownFailure(registered !== null && registered !== undefined, failure);
    this.db.run(
      `UPDATE jobs SET status = 'failed', error = ?, failure_detail = ?, inline_csv = NULL,
         lease_owner = NULL, lease_token = NULL, lease_expires = NULL, updated_at = ? WHERE id = ?`,
      JSON.stringify(shown.error),
      json(shown.detail),
      now(),
      id,
    );
  }

  /**
   * Whether a registered dataset's job may release at ε (`releaseCheckRule`, inside the
   * caller's transaction): fails the job and returns why it may not, or null when it may.
   */
  protected checkRelease(
    jobId: string,
    datasetId: string,
    epsilon: number,
  ): CompleteOutcome | null {
    return runSync(releaseCheckRule(this.#charging(), jobId, datasetId, epsilon));
  }
}
