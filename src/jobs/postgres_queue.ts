/**
 * The queue half of the PostgreSQL store (the last layer of `PostgresJobStore`): enqueue, claim
 * (the oldest claimable job, taken with `FOR UPDATE SKIP LOCKED` so concurrent workers each get
 * a different job without waiting on each other, or one by id for a worker that a distributed
 * queue handed the id), renew, progress, complete, fail and recoverStale. As in the SQLite store,
 * only the current lease's holder can complete or fail a job, and completing one locks the job's
 * row, checks its charge in the ledger, stores its files and marks it succeeded in one
 * transaction, so a job delivered twice is released, and charged, once.
 *
 * @module
 */
import { claimOf, freshLease, succeededJobValues, tooManyAttempts } from "./job_row.ts";
import { PostgresJobs } from "./postgres_jobs.ts";
import { now, row, rows, run, type Sql } from "./postgres_schema.ts";
import type { Claim, CompleteOutcome, JobFailure, JobOutput, JobProgress, Lease } from "./store.ts";

/** The lease columns set by a claim ($1 owner, $2 token, $3 expiry, $4 time). */
const TAKE = `status = 'running', lease_owner = $1, lease_token = $2, lease_expires = $3,
  attempts = attempts + 1, updated_at = $4`;

/** Every part of the store: keys, datasets, jobs, ledger and the job queue. */
export class PostgresQueue extends PostgresJobs {
  async enqueue(jobId: string): Promise<void> {
    await run(
      this.db.sql,
      "UPDATE jobs SET enqueued = TRUE WHERE id = $1 AND status = 'queued' AND NOT enqueued",
      jobId,
    );
  }

  async claim(workerId: string, leaseMs: number): Promise<Lease | null> {
    const { token, values } = freshLease(workerId, leaseMs, now);
    const taken = await row(
      this.db.sql,
      `UPDATE jobs SET ${TAKE}
       WHERE id = (SELECT id FROM jobs WHERE status = 'queued' AND enqueued
                   ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      ...values,
    );
    return taken === undefined ? null : { jobId: String(taken.id), token };
  }

  async claimById(jobId: string, workerId: string, leaseMs: number): Promise<Claim | null> {
    const { token, values } = freshLease(workerId, leaseMs, now);
    const taken = await row(
      this.db.sql,
      `UPDATE jobs SET ${TAKE} WHERE id = $5 AND status IN ('queued', 'running')
       RETURNING attempts`,
      ...values,
      jobId,
    );
    return claimOf(taken, jobId, token);
  }

  /** Whether the lease is the job's current one; locks the job's row until the transaction ends. */
  async #holds(sql: Sql, lease: Lease): Promise<boolean> {
    const held = await row(
      sql,
      "SELECT 1 FROM jobs WHERE id = $1 AND status = 'running' AND lease_token = $2 FOR UPDATE",
      lease.jobId,
      lease.token,
    );
    return held !== undefined;
  }

  async renew(lease: Lease, leaseMs: number): Promise<boolean> {
    const changes = await run(
      this.db.sql,
      `UPDATE jobs SET lease_expires = $1
       WHERE id = $2 AND status = 'running' AND lease_token = $3`,
      Date.now() + leaseMs,
      lease.jobId,
      lease.token,
    );
    return changes === 1;
  }

  async progress(lease: Lease, progress: JobProgress): Promise<void> {
    await run(
      this.db.sql,
      `UPDATE jobs SET progress = $1, updated_at = $2
       WHERE id = $3 AND status = 'running' AND lease_token = $4`,
      JSON.stringify(progress),
      now(),
      lease.jobId,
      lease.token,
    );
  }

  complete(lease: Lease, release: JobOutput): Promise<CompleteOutcome> {
    return this.db.tx(async (sql): Promise<CompleteOutcome> => {
      if (!await this.#holds(sql, lease)) return "lease_lost";
      const job = (await row(sql, "SELECT dataset_id FROM jobs WHERE id = $1", lease.jobId))!;
      if (job.dataset_id !== null) {
        const refused = await this.checkRelease(
          sql,
          lease.jobId,
          String(job.dataset_id),
          release.report.epsilon,
        );
        if (refused !== null) return refused;
      }
      if (release.datasets.length > 0) {
        await run(
          sql,
          `INSERT INTO job_datasets (job_id, k, csv)
           SELECT $1, k, csv FROM unnest($2::TEXT[]) WITH ORDINALITY AS d (csv, k)`,
          lease.jobId,
          release.datasets,
        );
      }
      await run(
        sql,
        `UPDATE jobs SET status = 'succeeded', report = $1, diagnostics = $2, dataset_count = $3,
         result = $4, progress = $5, inline_csv = NULL, lease_owner = NULL, lease_token = NULL,
         lease_expires = NULL, updated_at = $6 WHERE id = $7`,
        ...succeededJobValues(release, now()),
        lease.jobId,
      );
      return "released";
    });
  }

  fail(lease: Lease, failure: JobFailure): Promise<boolean> {
    return this.db.tx(async (sql) => {
      if (!await this.#holds(sql, lease)) return false;
      await this.finish(sql, lease.jobId, failure);
      return true;
    });
  }

  recoverStale(before: number, maxAttempts: number): Promise<string[]> {
    return this.db.tx(async (sql) => {
      // Rows another transaction holds (a job being completed right now) are skipped: their
      // lease is being used.
      const stale = await rows(
        sql,
        `SELECT id, attempts FROM jobs
         WHERE status = 'running' AND lease_expires < $1::DOUBLE PRECISION
         ORDER BY seq FOR UPDATE SKIP LOCKED`,
        before,
      );
      const requeued: string[] = [];
      for (const job of stale) {
        const id = String(job.id);
        if (Number(job.attempts) >= maxAttempts) {
          await this.finish(sql, id, tooManyAttempts(job.attempts));
          continue;
        }
        await run(
          sql,
          `UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_token = NULL,
           lease_expires = NULL, updated_at = $1 WHERE id = $2`,
          now(),
          id,
        );
        requeued.push(id);
      }
      const unqueued = await rows(
        sql,
        `UPDATE jobs SET enqueued = TRUE WHERE id IN (
           SELECT id FROM jobs WHERE status = 'queued' AND NOT enqueued
           FOR UPDATE SKIP LOCKED)
         RETURNING id, seq`,
      );
      unqueued.sort((a, b) => Number(a.seq) - Number(b.seq));
      return [...requeued, ...unqueued.map((job) => String(job.id))];
    });
  }
}
