/**
 * Jobs and the privacy-budget ledger of the embedded store (the third layer of
 * `SqliteJobStore`; the fourth, `sqlite_queue.ts`, adds the leases). They share transactions:
 * a submission persists the job and charges its cap in one, and completing a job checks the
 * release's ε against the ledger ({@linkcode SqliteJobs.checkRelease}), stores its files and
 * marks it succeeded in one. The ledger's unique job id charges a job at most once.
 *
 * @module
 */
import type { SynthesisSpec } from "../synthesis/spec.ts";
import { DATA_REJECTED, IdempotencyConflictError } from "./domain_errors.ts";
import { balance, BudgetExceededError, checkCharge, fits } from "./ledger.ts";
import { policyOf, SqliteDatasets } from "./sqlite_datasets.ts";
import { now, type Row, settle } from "./sqlite_schema.ts";
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
  ): { total: number; charges: number[]; rows: Row[] } | null {
    const dataset = this.db.get(
      "SELECT epsilon_total, tenant FROM datasets WHERE id = ?",
      datasetId,
    );
    if (dataset === undefined || (tenant !== null && dataset.tenant !== tenant)) return null;
    const rows = this.db.all(
      "SELECT job_id, epsilon, released_at FROM ledger WHERE dataset_id = ? ORDER BY seq",
      datasetId,
    );
    return {
      total: Number(dataset.epsilon_total),
      charges: rows.map((row) => Number(row.epsilon)),
      rows,
    };
  }

  budget(datasetId: string, tenant: string): Promise<Budget | null> {
    return settle(() => {
      const ledger = this.#ledger(datasetId, tenant);
      if (ledger === null) return null;
      const { spent, remaining } = balance(ledger.total, ledger.charges);
      return {
        datasetId,
        epsilonTotal: ledger.total,
        spent,
        remaining,
        releases: ledger.rows.map((row) => ({
          jobId: String(row.job_id),
          epsilon: Number(row.epsilon),
          chargedAt: String(row.released_at),
        })),
      };
    });
  }

  /** The job an earlier submission under the same idempotency key made, or null. */
  #previous(submission: Submission): Submitted | null {
    if (submission.idempotencyKey === null) return null;
    const previous = this.db.get(
      "SELECT request_hash, job_id FROM idempotency WHERE key_id = ? AND idempotency_key = ?",
      submission.keyId,
      submission.idempotencyKey,
    );
    if (previous === undefined) return null;
    if (previous.request_hash !== submission.requestHash) throw new IdempotencyConflictError();
    return { job: this.#jobView(String(previous.job_id))!, created: false };
  }

  #rememberIdempotency(submission: Submission): void {
    if (submission.idempotencyKey === null) return;
    this.db.run(
      "INSERT INTO idempotency (key_id, idempotency_key, request_hash, job_id) VALUES (?, ?, ?, ?)",
      submission.keyId,
      submission.idempotencyKey,
      submission.requestHash,
      submission.id,
    );
  }

  submit(submission: Submission): Promise<Submitted> {
    return settle(() =>
      this.db.tx(() => {
        const previous = this.#previous(submission);
        if (previous !== null) return previous;
        const epsilon = submission.spec.epsilon;
        if (submission.datasetId !== null && epsilon === undefined) {
          throw new RangeError("Invalid epsilon: a job on a registered dataset is charged it");
        }
        const time = now();
        this.db.run(
          `INSERT INTO jobs (id, kind, status, spec, dataset_id, inline_csv, submitted_by, tenant,
           created_at, updated_at) VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?)`,
          submission.id,
          submission.kind ?? "synthesis",
          JSON.stringify(submission.spec),
          submission.datasetId,
          submission.csv,
          submission.keyId,
          submission.tenant,
          time,
          time,
        );
        if (submission.datasetId !== null) {
          this.#charge(submission.datasetId, submission.tenant, submission.id, epsilon!, time);
        }
        this.#rememberIdempotency(submission);
        return { job: this.#jobView(submission.id)!, created: true };
      })
    );
  }

  releaseNow(submission: Submission, release: ImmediateRelease): Promise<Submitted> {
    return settle(() =>
      this.db.tx(() => {
        const previous = this.#previous(submission);
        if (previous !== null) return previous;
        checkCharge(release.epsilon);
        const time = now();
        const failed = "failure" in release;
        const registered = submission.datasetId !== null;
        this.db.run(
          `INSERT INTO jobs (id, kind, status, spec, dataset_id, submitted_by, tenant, progress,
           result, diagnostics, error, failure_detail, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          submission.id,
          submission.kind ?? "synthesis",
          failed ? "failed" : "succeeded",
          JSON.stringify(submission.spec),
          submission.datasetId,
          submission.keyId,
          submission.tenant,
          JSON.stringify({ stage: "done", fraction: 1 }),
          failed ? null : JSON.stringify(release.result),
          release.diagnostics === undefined ? null : JSON.stringify(release.diagnostics),
          failed ? JSON.stringify(registered ? DATA_REJECTED : release.failure) : null,
          failed && registered ? JSON.stringify(release.failure) : null,
          time,
          time,
        );
        if (registered) {
          this.#charge(
            submission.datasetId!,
            submission.tenant,
            submission.id,
            release.epsilon,
            time,
          );
        }
        this.#rememberIdempotency(submission);
        return { job: this.#jobView(submission.id)!, created: true };
      })
    );
  }

  /**
   * Charges `epsilon` for a job to the tenant's dataset (inside the caller's transaction),
   * refusing a charge that does not fit; the ledger's unique job id charges a job once.
   */
  #charge(datasetId: string, tenant: string, jobId: string, epsilon: number, time: string): void {
    checkCharge(epsilon);
    const ledger = this.#ledger(datasetId, tenant);
    if (ledger === null) throw new RangeError("Invalid datasetId: no such dataset");
    if (!fits(ledger.total, ledger.charges, epsilon)) {
      throw new BudgetExceededError(epsilon, balance(ledger.total, ledger.charges).remaining);
    }
    this.#insertCharge(jobId, datasetId, epsilon, time);
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
    const onRegistered = registered !== null && registered !== undefined;
    this.db.run(
      `UPDATE jobs SET status = 'failed', error = ?, failure_detail = ?, inline_csv = NULL,
         lease_owner = NULL, lease_token = NULL, lease_expires = NULL, updated_at = ? WHERE id = ?`,
      JSON.stringify(onRegistered ? DATA_REJECTED : failure),
      onRegistered ? JSON.stringify(failure) : null,
      now(),
      id,
    );
  }

  /**
   * Whether a registered dataset's job may release at ε: within the cap charged at acceptance,
   * or (a job accepted uncharged by an older version) charged now if it fits. Fails the job and
   * returns why otherwise, or null when it may release.
   */
  protected checkRelease(
    jobId: string,
    datasetId: string,
    epsilon: number,
  ): CompleteOutcome | null {
    try {
      checkCharge(epsilon);
    } catch {
      this.finish(jobId, {
        code: "invalid_charge",
        message: "the release's epsilon is not finite, so it cannot be charged to the budget",
      });
      return "invalid_charge";
    }
    const cap = this.db.get("SELECT epsilon FROM ledger WHERE job_id = ?", jobId);
    if (cap !== undefined) {
      if (epsilon <= Number(cap.epsilon)) return null;
      this.finish(jobId, {
        code: "budget_exceeded",
        message: "the release's epsilon exceeds the cap charged when the job was accepted",
      });
      return "budget_exceeded";
    }
    const ledger = this.#ledger(datasetId, null)!;
    if (!fits(ledger.total, ledger.charges, epsilon)) {
      this.finish(jobId, {
        code: "budget_exceeded",
        message: "the release's epsilon exceeds the dataset's remaining privacy budget; " +
          "nothing was released",
      });
      return "budget_exceeded";
    }
    this.#insertCharge(jobId, datasetId, epsilon, now());
    return null;
  }
}
