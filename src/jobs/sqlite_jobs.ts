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
import * as charging from "./charging.ts";
import { JOB_VIEW_COLUMNS, jobInputOf, jobViewOf, ownerDiagnosticsOf } from "./job_row.ts";
import { policyOf, SqliteDatasets } from "./sqlite_datasets.ts";
import { now, settle } from "./sqlite_schema.ts";
import {
  type AnsweredTable,
  type Budget,
  type CompleteOutcome,
  type JobFailure,
  type JobInput,
  type JobView,
  type OwnerDiagnostics,
  type Submission,
  type Submitted,
} from "./store.ts";

/** A SQLite JSON column as read (JSON text, or null). */
const jsonText = (value: unknown): unknown => value === null ? null : JSON.parse(String(value));

/** The keys, datasets, jobs and ledger parts of the store. */
export class SqliteJobs extends SqliteDatasets {
  #ledger(
    datasetId: string,
    tenant: string | null,
  ): charging.ReadLedger | null {
    const dataset = this.db.get(
      "SELECT epsilon_total, tenant FROM datasets WHERE id = ?",
      datasetId,
    );
    if (dataset === undefined || (tenant !== null && dataset.tenant !== tenant)) return null;
    const rows = this.db.all(
      "SELECT job_id, epsilon, released_at FROM ledger WHERE dataset_id = ? ORDER BY seq",
      datasetId,
    );
    return charging.readLedger(dataset.epsilon_total, rows);
  }

  budget(datasetId: string, tenant: string): Promise<Budget | null> {
    return settle(() => {
      const ledger = this.#ledger(datasetId, tenant);
      return ledger === null ? null : charging.budgetOf(datasetId, ledger, String);
    });
  }

  /** The charging rule's reads and writes, in SQLite, inside the caller's transaction. */
  #charging(): charging.ChargingTransaction {
    return {
      now,
      previous: (keyId, idempotencyKey) => {
        const previous = this.db.get(
          "SELECT request_hash, job_id FROM idempotency WHERE key_id = ? AND idempotency_key = ?",
          keyId,
          idempotencyKey,
        );
        return charging.previousSubmission(previous);
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
        const row = charging.newJobRow(job);
        const places = row.map(() => "?").join(", ");
        this.db.run(`INSERT INTO jobs (${charging.NEW_JOB_COLUMNS}) VALUES (${places})`, ...row);
      },
      insertCharge: (jobId, datasetId, epsilon, time) =>
        this.#insertCharge(jobId, datasetId, epsilon, time),
      jobView: (id) => this.#jobView(id)!,
      failJob: (jobId, failure) => this.finish(jobId, failure),
    };
  }

  submit(submission: Submission): Promise<Submitted> {
    return settle(() =>
      this.db.tx(() => charging.runSync(charging.submitRule(this.#charging(), submission)))
    );
  }

  recordAnswered(submission: Submission, release: AnsweredTable): Promise<Submitted> {
    return settle(() =>
      this.db.tx(() =>
        charging.runSync(charging.recordAnsweredRule(this.#charging(), submission, release))
      )
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
    const row = this.db.get(`SELECT ${JOB_VIEW_COLUMNS} FROM jobs WHERE id = ?`, id);
    return row === undefined ? null : jobViewOf(row, String, jsonText);
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
      return jobInputOf(row, policyOf, (spec) => JSON.parse(String(spec)));
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
      return ownerDiagnosticsOf(row, jsonText);
    });
  }

  /**
   * Fails a job. On a registered dataset every key sees {@linkcode DATA_REJECTED}, and the
   * failure itself is kept for the owner's diagnostics.
   */
  protected finish(id: string, failure: JobFailure): void {
    const registered = this.db.get("SELECT dataset_id FROM jobs WHERE id = ?", id)?.dataset_id;
    this.db.run(
      `UPDATE jobs SET status = 'failed', error = ?, failure_detail = ?, inline_csv = NULL,
         lease_owner = NULL, lease_token = NULL, lease_expires = NULL, updated_at = ? WHERE id = ?`,
      ...charging.failedJobValues(registered, failure, now()),
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
    return charging.runSync(charging.releaseCheckRule(this.#charging(), jobId, datasetId, epsilon));
  }
}
