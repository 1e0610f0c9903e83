/**
 * The queue half of the embedded store (the last layer of `SqliteJobStore`): enqueue, claim (the
 * oldest claimable job, or one by id for a worker that a distributed queue handed the id), renew,
 * progress, complete, fail and recoverStale. Every change is made under a lease: only the
 * current lease's holder can complete or fail a job, and completing one checks its charge in
 * the ledger, stores its files and marks it succeeded in one transaction, so a job delivered
 * twice is released, and charged, once.
 *
 * @module
 */
import { claimOf, freshLease, succeededJobValues, tooManyAttempts } from "./job_row.ts";
import { SqliteJobs } from "./sqlite_jobs.ts";
import { now, settle } from "./sqlite_schema.ts";
import type { Claim, CompleteOutcome, JobFailure, JobOutput, JobProgress, Lease } from "./store.ts";

/** Every part of the store: keys, datasets, jobs, ledger and the job queue. */
export class SqliteQueue extends SqliteJobs {
  enqueue(jobId: string): Promise<void> {
    return settle(() => {
      this.db.run("UPDATE jobs SET enqueued = 1 WHERE id = ? AND status = 'queued'", jobId);
    });
  }

  claim(workerId: string, leaseMs: number): Promise<Lease | null> {
    return settle(() =>
      this.db.tx(() => {
        const row = this.db.get(
          "SELECT id FROM jobs WHERE status = 'queued' AND enqueued = 1 ORDER BY rowid LIMIT 1",
        );
        if (row === undefined) return null;
        return this.#take(String(row.id), workerId, leaseMs, "'queued'")!.lease;
      })
    );
  }

  claimById(jobId: string, workerId: string, leaseMs: number): Promise<Claim | null> {
    return settle(() => this.#take(jobId, workerId, leaseMs, "'queued', 'running'"));
  }

  /**
   * Gives `workerId` a fresh lease on job `id` (a new token, attempts + 1, status running) if
   * its status is one of `from` (a constant SQL list); null otherwise. One statement.
   */
  #take(id: string, workerId: string, leaseMs: number, from: string): Claim | null {
    const { token, values } = freshLease(workerId, leaseMs, now);
    const row = this.db.get(
      `UPDATE jobs SET status = 'running', lease_owner = ?, lease_token = ?, lease_expires = ?,
       attempts = attempts + 1, updated_at = ?
       WHERE id = ? AND status IN (${from}) RETURNING attempts`,
      ...values,
      id,
    );
    return claimOf(row, id, token);
  }

  #holds(lease: Lease): boolean {
    const row = this.db.get(
      "SELECT 1 FROM jobs WHERE id = ? AND status = 'running' AND lease_token = ?",
      lease.jobId,
      lease.token,
    );
    return row !== undefined;
  }

  renew(lease: Lease, leaseMs: number): Promise<boolean> {
    return settle(() => {
      const changes = this.db.run(
        "UPDATE jobs SET lease_expires = ? WHERE id = ? AND status = 'running' AND lease_token = ?",
        Date.now() + leaseMs,
        lease.jobId,
        lease.token,
      );
      return changes === 1;
    });
  }

  progress(lease: Lease, progress: JobProgress): Promise<void> {
    return settle(() => {
      this.db.run(
        `UPDATE jobs SET progress = ?, updated_at = ?
         WHERE id = ? AND status = 'running' AND lease_token = ?`,
        JSON.stringify(progress),
        now(),
        lease.jobId,
        lease.token,
      );
    });
  }

  complete(lease: Lease, release: JobOutput): Promise<CompleteOutcome> {
    return settle(() =>
      this.db.tx((): CompleteOutcome => {
        if (!this.#holds(lease)) return "lease_lost";
        const job = this.db.get("SELECT dataset_id FROM jobs WHERE id = ?", lease.jobId)!;
        const epsilon = release.report.epsilon;
        if (job.dataset_id !== null) {
          const refused = this.checkRelease(lease.jobId, String(job.dataset_id), epsilon);
          if (refused !== null) return refused;
        }
        release.datasets.forEach((csv, j) => {
          this.db.run(
            "INSERT INTO job_datasets (job_id, k, csv) VALUES (?, ?, ?)",
            lease.jobId,
            j + 1,
            csv,
          );
        });
        this.db.run(
          `UPDATE jobs SET status = 'succeeded', report = ?, diagnostics = ?, dataset_count = ?,
           result = ?, progress = ?, inline_csv = NULL, lease_owner = NULL, lease_token = NULL,
           lease_expires = NULL, updated_at = ? WHERE id = ?`,
          ...succeededJobValues(release, now()),
          lease.jobId,
        );
        return "released";
      })
    );
  }

  fail(lease: Lease, failure: JobFailure): Promise<boolean> {
    return settle(() =>
      this.db.tx(() => {
        if (!this.#holds(lease)) return false;
        this.finish(lease.jobId, failure);
        return true;
      })
    );
  }

  recoverStale(before: number, maxAttempts: number): Promise<string[]> {
    return settle(() =>
      this.db.tx(() => {
        const stale = this.db.all(
          "SELECT id, attempts FROM jobs WHERE status = 'running' AND lease_expires < ?",
          before,
        );
        const requeued: string[] = [];
        for (const row of stale) {
          const id = String(row.id);
          if (Number(row.attempts) >= maxAttempts) {
            this.finish(id, tooManyAttempts(row.attempts));
            continue;
          }
          this.db.run(
            `UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_token = NULL,
             lease_expires = NULL, updated_at = ? WHERE id = ?`,
            now(),
            id,
          );
          requeued.push(id);
        }
        const unqueued = this.db.all(
          "SELECT id FROM jobs WHERE status = 'queued' AND enqueued = 0",
        );
        for (const row of unqueued) {
          this.db.run("UPDATE jobs SET enqueued = 1 WHERE id = ?", row.id);
          requeued.push(String(row.id));
        }
        return requeued;
      })
    );
  }
}
