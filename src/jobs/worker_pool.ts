/**
 * A pool of N asynchronous workers in the server process, each claiming one job at a time from a
 * {@linkcode JobQueue} under a lease it renews while the job runs (a heartbeat every third of the
 * lease). A job's handler runs to the end; its result is completed (released and charged) or
 * failed only while the lease is still held, so a job handed out twice (delivery is at least
 * once) is released at most once. Stale leases are recovered periodically, after the pool has
 * renewed the leases of its own running jobs (so that a late heartbeat never lets the pool take
 * back and rerun a job it is still running); a server that owns the store alone recovers every
 * running job at start, since they were running when it died.
 * Each job runs through {@linkcode runLeasedJob} (`leased_job.ts`), as on the Redis workers.
 *
 * @module
 */
import { IdleWait, type JobHandler, type Logger, runLeasedJob } from "./leased_job.ts";
import type { JobFailure, JobQueue, Lease } from "./store.ts";

export type { JobHandler, Logger };

/** Options of {@linkcode WorkerPool}. */
export interface WorkerPoolOptions {
  /** Number of concurrent workers N (at least 1). */
  readonly workers: number;
  /** Lease length in milliseconds. */
  readonly leaseMs: number;
  /** How long an idle worker waits before polling again (a submission wakes it sooner). */
  readonly pollMs: number;
  /** At most one progress write per job in this many milliseconds. */
  readonly progressIntervalMs: number;
  /** A job claimed this many times without finishing is failed, not retried. */
  readonly maxAttempts: number;
  /** A job running longer than this (ms) is stopped and failed with `time_limit` (default: none). */
  readonly timeLimitMs?: number;
  /** Requeue every running job at start: true when this process owns the store alone. */
  readonly recoverAllOnStart: boolean;
  /** The public failure of a thrown error. */
  readonly failureOf: (error: unknown) => JobFailure;
  readonly log: Logger;
}

/** N workers draining a {@linkcode JobQueue} with a {@linkcode JobHandler}. */
export class WorkerPool {
  readonly #queue: JobQueue;
  readonly #handler: JobHandler;
  readonly #options: WorkerPoolOptions;
  readonly #instance = crypto.randomUUID().slice(0, 8);
  readonly #idle = new IdleWait();
  /** The leases of the jobs this pool's workers are running. */
  readonly #running = new Set<Lease>();
  #loops: Promise<void>[] = [];
  #recovery: ReturnType<typeof setInterval> | undefined;
  #stopping = false;

  /**
   * @param queue Where jobs come from.
   * @param handler What runs a job.
   * @param options Sizes, timings and logging.
   */
  constructor(queue: JobQueue, handler: JobHandler, options: WorkerPoolOptions) {
    if (!Number.isSafeInteger(options.workers) || options.workers < 1) {
      throw new RangeError(
        `Invalid workers: must be a positive integer: workers=${options.workers}`,
      );
    }
    this.#queue = queue;
    this.#handler = handler;
    this.#options = options;
  }

  /** Recovers interrupted jobs, then starts the workers and the periodic lease recovery. */
  async start(): Promise<void> {
    const { recoverAllOnStart, leaseMs, workers } = this.#options;
    await this.#recover(recoverAllOnStart ? Infinity : Date.now());
    this.#recovery = setInterval(() => this.#recover(Date.now()), leaseMs / 2);
    this.#loops = Array.from({ length: workers }, (_, w) => this.#loop(`${this.#instance}-${w}`));
  }

  /** Wakes idle workers (a job was just enqueued). */
  wake(): void {
    this.#idle.wake();
  }

  /** Stops claiming, and resolves when every running job has finished. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#recovery);
    this.wake();
    await Promise.all(this.#loops);
  }

  async #recover(before: number): Promise<void> {
    try {
      const { leaseMs } = this.#options;
      await Promise.all(
        [...this.#running].map((lease) => this.#queue.renew(lease, leaseMs).catch(() => false)),
      );
      const ids = await this.#queue.recoverStale(before, this.#options.maxAttempts);
      if (ids.length > 0) {
        this.#options.log("jobs_recovered", { count: ids.length });
        this.wake();
      }
    } catch (error) {
      this.#options.log("recovery_error", { error: (error as Error).name });
    }
  }

  async #loop(workerId: string): Promise<void> {
    const { leaseMs, progressIntervalMs, timeLimitMs, failureOf, log } = this.#options;
    let held: Lease | null = null;
    const claim = async () => {
      try {
        const lease = await this.#queue.claim(workerId, leaseMs);
        if (lease === null) return null;
        held = lease;
        this.#running.add(lease);
        return { lease };
      } catch (error) {
        log("claim_error", { error: (error as Error).name });
        return null;
      }
    };
    while (!this.#stopping) {
      const outcome = await runLeasedJob(this.#queue, claim, this.#handler, {
        leaseMs,
        progressIntervalMs,
        timeLimitMs,
        failureOf,
        log,
        onStoreError: (job, error) => log("job_store_error", { job, error: (error as Error).name }),
      });
      if (held !== null) this.#running.delete(held);
      held = null;
      if (outcome === null) await this.#idle.sleep(this.#options.pollMs);
    }
  }
}
