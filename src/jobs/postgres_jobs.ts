/**
 * Jobs and the privacy-budget ledger of the PostgreSQL store (the third layer of
 * `PostgresJobStore`; the fourth, `postgres_queue.ts`, adds the leases). As in the SQLite store
 * they share transactions: a submission persists the job and charges its cap in one, and
 * completing a job checks the release's ε against the ledger ({@linkcode PostgresJobs.checkRelease}),
 * stores its files and marks it succeeded in one. A charge first locks its dataset's row
 * (`FOR NO KEY UPDATE`), so concurrent charges to one dataset are made one after the other, each
 * reading the ledger as the one before left it; the ledger's unique job id charges a job at most
 * once. The rules of charging are `charging.ts`'s, shared with the SQLite store; this file gives
 * them their reads and writes in PostgreSQL, with these locks.
 *
 * @module
 */
import * as charging from "./charging.ts";
import { JOB_VIEW_COLUMNS, jobInputOf, jobViewOf, ownerDiagnosticsOf } from "./job_row.ts";
import { PostgresDatasets } from "./postgres_datasets.ts";
import { isoTime, lockIdempotencyKey, now, row, rows, run, type Sql } from "./postgres_schema.ts";
import type { DatasetPolicy } from "./release_policy.ts";
import type {
  AnsweredTable,
  Budget,
  CompleteOutcome,
  JobFailure,
  JobInput,
  JobView,
  OwnerDiagnostics,
  Submission,
  Submitted,
} from "./store.ts";

/** A PostgreSQL JSONB column as read (already parsed; a missing value is null). */
const jsonb = (value: unknown): unknown => value ?? null;

/** The keys, datasets, jobs and ledger parts of the store. */
export class PostgresJobs extends PostgresDatasets {
  /**
   * The tenant's dataset's ledger (any tenant's when `tenant` is null), or null. With `lock`,
   * the dataset's row is locked until the transaction ends, so no other charge to it interleaves.
   */
  async #ledger(
    sql: Sql,
    datasetId: string,
    tenant: string | null,
    lock: boolean,
  ): Promise<charging.ReadLedger | null> {
    const dataset = await row(
      sql,
      `SELECT epsilon_total, tenant FROM datasets WHERE id = $1${lock ? " FOR NO KEY UPDATE" : ""}`,
      datasetId,
    );
    if (dataset === undefined || (tenant !== null && dataset.tenant !== tenant)) return null;
    const charges = await rows(
      sql,
      "SELECT job_id, epsilon, released_at FROM ledger WHERE dataset_id = $1 ORDER BY seq",
      datasetId,
    );
    return charging.readLedger(dataset.epsilon_total, charges);
  }

  async budget(datasetId: string, tenant: string): Promise<Budget | null> {
    const ledger = await this.#ledger(this.db.sql, datasetId, tenant, false);
    return ledger === null ? null : charging.budgetOf(datasetId, ledger, isoTime);
  }

  /**
   * The charging rule's reads and writes, in PostgreSQL, inside the caller's transaction. An
   * idempotency key's lookup takes the key's lock first, so a concurrent submission under the
   * same key waits for this transaction; a ledger read locks the dataset's row.
   */
  #charging(sql: Sql): charging.ChargingTransaction {
    return {
      now,
      previous: async (keyId, idempotencyKey) => {
        await lockIdempotencyKey(sql, keyId, idempotencyKey);
        const previous = await row(
          sql,
          "SELECT request_hash, job_id FROM idempotency WHERE key_id = $1 AND idempotency_key = $2",
          keyId,
          idempotencyKey,
        );
        return charging.previousSubmission(previous);
      },
      remember: async (keyId, idempotencyKey, requestHash, jobId) => {
        await run(
          sql,
          `INSERT INTO idempotency (key_id, idempotency_key, request_hash, job_id)
           VALUES ($1, $2, $3, $4)`,
          keyId,
          idempotencyKey,
          requestHash,
          jobId,
        );
      },
      ledger: (datasetId, tenant) => this.#ledger(sql, datasetId, tenant, true),
      charged: async (jobId) => {
        const cap = await row(sql, "SELECT epsilon FROM ledger WHERE job_id = $1", jobId);
        return cap === undefined ? null : Number(cap.epsilon);
      },
      insertJob: async (job) => {
        const row = charging.newJobRow(job);
        const places = row.map((_, k) => `$${k + 1}`).join(", ");
        await run(sql, `INSERT INTO jobs (${charging.NEW_JOB_COLUMNS}) VALUES (${places})`, ...row);
      },
      insertCharge: (jobId, datasetId, epsilon, time) =>
        this.#insertCharge(sql, jobId, datasetId, epsilon, time),
      jobView: async (id) => (await this.#jobView(sql, id))!,
      failJob: (jobId, failure) => this.finish(sql, jobId, failure),
    };
  }

  submit(submission: Submission): Promise<Submitted> {
    return this.db.tx((sql) =>
      charging.runAsync(charging.submitRule(this.#charging(sql), submission))
    );
  }

  recordAnswered(submission: Submission, release: AnsweredTable): Promise<Submitted> {
    return this.db.tx((sql) =>
      charging.runAsync(charging.recordAnsweredRule(this.#charging(sql), submission, release))
    );
  }

  async #insertCharge(
    sql: Sql,
    jobId: string,
    datasetId: string,
    epsilon: number,
    time: string,
  ): Promise<void> {
    await run(
      sql,
      "INSERT INTO ledger (job_id, dataset_id, epsilon, released_at) VALUES ($1, $2, $3, $4)",
      jobId,
      datasetId,
      epsilon,
      time,
    );
  }

  /** The job with this id (the tenant's only, unless `tenant` is null), or null. */
  async #jobView(sql: Sql, id: string, tenant: string | null = null): Promise<JobView | null> {
    const found = await row(
      sql,
      `SELECT ${JOB_VIEW_COLUMNS} FROM jobs WHERE id = $1 AND ($2::TEXT IS NULL OR tenant = $2)`,
      id,
      tenant,
    );
    return found === undefined ? null : jobViewOf(found, isoTime, jsonb);
  }

  job(id: string, tenant: string): Promise<JobView | null> {
    return this.#jobView(this.db.sql, id, tenant);
  }

  async jobInput(id: string): Promise<JobInput | null> {
    const found = await row(
      this.db.sql,
      `SELECT jobs.kind, jobs.spec, jobs.dataset_id, datasets.policy,
              COALESCE(jobs.inline_csv, datasets.csv) AS csv
       FROM jobs LEFT JOIN datasets ON datasets.id = jobs.dataset_id WHERE jobs.id = $1`,
      id,
    );
    return jobInputOf(found, (policy) => policy as DatasetPolicy, (spec) => spec);
  }

  async jobDataset(id: string, k: number, tenant: string): Promise<string | null> {
    const found = await row(
      this.db.sql,
      `SELECT job_datasets.csv FROM job_datasets JOIN jobs ON jobs.id = job_datasets.job_id
       WHERE job_datasets.job_id = $1 AND job_datasets.k = $2 AND jobs.status = 'succeeded'
       AND jobs.tenant = $3`,
      id,
      k,
      tenant,
    );
    return found === undefined ? null : String(found.csv);
  }

  async jobDiagnostics(id: string, tenant: string): Promise<OwnerDiagnostics | null> {
    const found = await row(
      this.db.sql,
      `SELECT status, diagnostics, failure_detail FROM jobs
       WHERE id = $1 AND tenant = $2 AND status IN ('succeeded', 'failed')`,
      id,
      tenant,
    );
    return ownerDiagnosticsOf(found, jsonb);
  }

  /**
   * Fails a job (inside the caller's transaction). On a registered dataset every key sees
   * {@linkcode DATA_REJECTED}, and the failure itself is kept for the owner's diagnostics.
   */
  protected async finish(sql: Sql, id: string, failure: JobFailure): Promise<void> {
    const registered = (await row(sql, "SELECT dataset_id FROM jobs WHERE id = $1", id))
      ?.dataset_id;
    await run(
      sql,
      `UPDATE jobs SET status = 'failed', error = $1, failure_detail = $2, inline_csv = NULL,
         lease_owner = NULL, lease_token = NULL, lease_expires = NULL, updated_at = $3
       WHERE id = $4`,
      ...charging.failedJobValues(registered, failure, now()),
      id,
    );
  }

  /**
   * Whether a registered dataset's job may release at ε (`releaseCheckRule`, inside the
   * caller's transaction): fails the job and returns why it may not, or null when it may.
   */
  protected checkRelease(
    sql: Sql,
    jobId: string,
    datasetId: string,
    epsilon: number,
  ): Promise<CompleteOutcome | null> {
    return charging.runAsync(
      charging.releaseCheckRule(this.#charging(sql), jobId, datasetId, epsilon),
    );
  }
}
