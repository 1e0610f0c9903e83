/**
 * Claims one job of the embedded store by its id, for a worker that was handed the id by the
 * Redis queue (the store's own `claim` takes the oldest claimable job instead). The claim is the
 * store's lease (a fresh token, attempts + 1, `status = 'running'`), so completion goes through
 * the store's `complete`, which releases and charges only under the current lease: a job
 * delivered twice is released, and its ε charged, once.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import type { Lease } from "../jobs/store.ts";

/** A claim: the store lease and how many times the job has now been claimed. */
export interface Claim {
  readonly lease: Lease;
  readonly attempts: number;
}

/** Claims jobs of the store in `dir/ppsynth.sqlite` by id. */
export class JobClaimer {
  readonly #db: DatabaseSync;

  /** @param dir The data directory of the store (`SqliteJobStore.open(dir)` made it). */
  constructor(dir: string) {
    this.#db = new DatabaseSync(`${dir}/ppsynth.sqlite`);
    this.#db.exec("PRAGMA busy_timeout = 10000");
  }

  /**
   * Takes the lease of a queued or running job (a running one was claimed by a worker whose
   * lock the queue found expired), or returns null when the job is finished or unknown.
   *
   * @param jobId The store's job id.
   * @param workerId Who holds the lease.
   * @param leaseMs Lease length in milliseconds.
   */
  claim(jobId: string, workerId: string, leaseMs: number): Claim | null {
    const token = crypto.randomUUID();
    const row = this.#db.prepare(
      `UPDATE jobs SET status = 'running', lease_owner = ?, lease_token = ?, lease_expires = ?,
       attempts = attempts + 1, updated_at = ?
       WHERE id = ? AND status IN ('queued', 'running') RETURNING attempts`,
    ).get(workerId, token, Date.now() + leaseMs, new Date().toISOString(), jobId);
    if (row === undefined) return null;
    return { lease: { jobId, token }, attempts: Number(row.attempts) };
  }

  close(): void {
    this.#db.close();
  }
}
