/**
 * A pool of N asynchronous workers in the server process, each claiming one job at a time from a
 * {@linkcode JobQueue} under a lease it renews while the job runs (a heartbeat every third of the
 * lease). A job's handler runs to the end; its result is completed (released and charged) or
 * failed only while the lease is still held, so a job handed out twice (delivery is at least
 * once) is released at most once. Stale leases are recovered periodically; a server that owns
 * the store alone recovers every running job at start, since they were running when it died.
 *
 * @module
 */
import type { JobFailure, JobProgress, JobQueue, Lease, Release } from "./store.ts";

/** Runs a claimed job to its release; throws to fail it. */
export type JobHandler = (
  lease: Lease,
  onProgress: (progress: JobProgress) => void,
) => Promise<Release>;

/** A structured log line: an event name and primitive fields (never confidential values). */
export type Logger = (event: string, fields?: Record<string, string | number | boolean>) => void;

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
  readonly #wakers = new Set<() => void>();
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
    for (const wake of [...this.#wakers]) wake();
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
      const ids = await this.#queue.recoverStale(before, this.#options.maxAttempts);
      if (ids.length > 0) {
        this.#options.log("jobs_recovered", { count: ids.length });
        this.wake();
      }
    } catch (error) {
      this.#options.log("recovery_error", { error: (error as Error).name });
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wakers.add(done);
    });
  }

  async #loop(workerId: string): Promise<void> {
    while (!this.#stopping) {
      let lease: Lease | null = null;
      try {
        lease = await this.#queue.claim(workerId, this.#options.leaseMs);
      } catch (error) {
        this.#options.log("claim_error", { error: (error as Error).name });
      }
      if (lease === null) {
        await this.#sleep(this.#options.pollMs);
        continue;
      }
      await this.#run(lease);
    }
  }

  async #run(lease: Lease): Promise<void> {
    const { leaseMs, progressIntervalMs, log, failureOf } = this.#options;
    log("job_started", { job: lease.jobId });
    const heartbeat = setInterval(() => {
      this.#queue.renew(lease, leaseMs).catch((error) =>
        log("renew_error", { job: lease.jobId, error: (error as Error).name })
      );
    }, leaseMs / 3);
    let lastWrite = -Infinity;
    let write: Promise<void> = Promise.resolve();
    const onProgress = (progress: JobProgress) => {
      const time = Date.now();
      if (time - lastWrite < progressIntervalMs) return;
      lastWrite = time;
      write = write.then(() => this.#queue.progress(lease, progress)).catch(() => {});
    };
    try {
      let release: Release | null = null;
      let failure: JobFailure | null = null;
      try {
        release = await this.#handler(lease, onProgress);
      } catch (error) {
        failure = failureOf(error);
        if (failure.code === "internal") {
          log("job_error", { job: lease.jobId, error: (error as Error)?.name ?? "unknown" });
        }
      }
      await write;
      if (release !== null) {
        const outcome = await this.#queue.complete(lease, release);
        log("job_finished", { job: lease.jobId, outcome });
      } else {
        const held = await this.#queue.fail(lease, failure!);
        log("job_finished", { job: lease.jobId, outcome: held ? failure!.code : "lease_lost" });
      }
    } catch (error) {
      log("job_store_error", { job: lease.jobId, error: (error as Error).name });
    } finally {
      clearInterval(heartbeat);
    }
  }
}
