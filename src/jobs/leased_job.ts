/**
 * The job runtime shared by the in-process {@linkcode WorkerPool} and the Redis workers
 * (`src/scale/scale_worker.ts`): {@linkcode runLeasedJob} claims one job of a
 * {@linkcode JobQueue}, renews its lease every third of the lease while the handler runs (a renewal
 * that finds the lease gone, taken over after an expiry, stops the handler: the job is the new
 * holder's), writes its latest progress at most once per interval, stops it at its time limit (its
 * handler's AbortSignal; the failure `time_limit`), and completes (releases and charges) or fails it only under the
 * lease it still holds, so a job delivered twice is released at most once. The two
 * callers differ only in how they claim: the pool takes the oldest claimable job, a Redis worker
 * the job whose id BullMQ handed it.
 *
 * @module
 */
import type {
  Claim,
  CompleteOutcome,
  JobFailure,
  JobOutput,
  JobProgress,
  JobQueue,
  Lease,
} from "./store.ts";
import { JobTimeLimitError, timeLimitFailure } from "./work_limits.ts";

/**
 * Runs a claimed job to its release; throws to fail it. `signal` is aborted (its reason a
 * `JobTimeLimitError`) when the job runs past its time limit: the handler stops its computation
 * then (the job is failed without waiting for it).
 */
export type JobHandler = (
  lease: Lease,
  onProgress: (progress: JobProgress) => void,
  signal: AbortSignal,
) => Promise<JobOutput>;

/** A structured log line: an event name and primitive fields (never confidential values). */
export type Logger = (event: string, fields?: Record<string, string | number | boolean>) => void;

/** Options of {@linkcode runLeasedJob}. */
export interface LeasedJobOptions {
  /** Lease length in milliseconds (renewed every third of it). */
  readonly leaseMs: number;
  /** At most one progress write per job in this many milliseconds. */
  readonly progressIntervalMs: number;
  /** A claim whose attempt count exceeds this fails the job unrun (default: never). */
  readonly maxAttempts?: number;
  /**
   * Wall-clock limit of one run of the handler in milliseconds (default: none): past it the
   * handler's signal is aborted and the job failed with `time_limit` at once.
   */
  readonly timeLimitMs?: number;
  /** The public failure of a thrown error. */
  readonly failureOf: (error: unknown) => JobFailure;
  readonly log: Logger;
  /**
   * Told when completing or failing the job threw (the store could not be written). Without
   * it the error is thrown to the caller.
   */
  readonly onStoreError?: (jobId: string, error: unknown) => void;
}

/**
 * What became of a claimed job: completed ({@linkcode CompleteOutcome}), failed (its failure
 * code), its lease lost, or "store_error" (reported to `onStoreError`).
 */
export type LeasedOutcome = CompleteOutcome | string;

/**
 * Claims a job and runs it under its lease (see the module documentation), for at most
 * `timeLimitMs`: a job still running then has its handler's signal aborted and is failed with
 * the fixed `time_limit` failure, and the caller's slot is free for the next job. Logs `job_started`
 * and `job_finished` (with the outcome), `renew_error` and, for an internal failure,
 * `job_error` (the error's name only).
 *
 * @param queue The store the lease belongs to.
 * @param claim Takes a lease (null: no job to run), with the job's attempt count when known.
 * @param handler Runs the job.
 * @param options Timings, the attempt limit, failure classification and logging.
 * @returns The outcome, or null when `claim` found no job.
 */
export async function runLeasedJob(
  queue: JobQueue,
  claim: () => Promise<{ readonly lease: Lease; readonly attempts?: Claim["attempts"] } | null>,
  handler: JobHandler,
  options: LeasedJobOptions,
): Promise<LeasedOutcome | null> {
  const claimed = await claim();
  if (claimed === null) return null;
  const { lease, attempts } = claimed;
  const { leaseMs, progressIntervalMs, maxAttempts = Infinity, failureOf, log } = options;
  const job = lease.jobId;
  const finished = (outcome: string) => {
    log("job_finished", { job, outcome });
    return outcome;
  };
  if (attempts !== undefined && attempts > maxAttempts) {
    await queue.fail(lease, {
      code: "too_many_attempts",
      message: `the job was interrupted ${attempts - 1} times and is not retried again`,
    });
    return finished("too_many_attempts");
  }
  log("job_started", attempts === undefined ? { job } : { job, attempt: attempts });
  const { timeLimitMs } = options;
  const controller = new AbortController();
  const { signal } = controller;
  // Rejects when the job is stopped: at its time limit, or when its lease was lost.
  const stopped = new Promise<never>((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  const heartbeat = setInterval(() => {
    queue.renew(lease, leaseMs).then((held) => {
      if (!held && !signal.aborted) controller.abort(new LeaseLostError());
    }, (error) => log("renew_error", { job, error: (error as Error).name }));
  }, leaseMs / 3);
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (timeLimitMs !== undefined && Number.isFinite(timeLimitMs)) {
    timer = setTimeout(() => controller.abort(new JobTimeLimitError(timeLimitMs)), timeLimitMs);
  }
  let lastWrite = -Infinity;
  let write: Promise<void> = Promise.resolve();
  // One write at a time, of the latest progress: a report made while a write is in flight
  // replaces the one still waiting, so a slow store shows the job as it is now, not a backlog of
  // old reports that it works through until the job has ended.
  let waiting: JobProgress | null = null;
  const onProgress = (progress: JobProgress) => {
    if (signal.aborted) return;
    const time = Date.now();
    if (time - lastWrite < progressIntervalMs) return;
    lastWrite = time;
    const queued = waiting !== null;
    waiting = progress;
    if (queued) return;
    write = write.then(() => {
      const latest = waiting!;
      waiting = null;
      // A write still waiting when the job is stopped is dropped: the job is failed next.
      return signal.aborted ? undefined : queue.progress(lease, latest);
    }).catch(() => {});
  };
  try {
    let release: JobOutput | null = null;
    let failure: JobFailure | null = null;
    try {
      release = await Promise.race([handler(lease, onProgress, signal), stopped]);
    } catch (error) {
      if (signal.reason instanceof LeaseLostError) return finished("lease_lost");
      failure = signal.aborted ? timeLimitFailure(timeLimitMs!) : failureOf(error);
      if (failure.code === "internal") {
        log("job_error", { job, error: (error as Error)?.name ?? "unknown" });
      }
    } finally {
      clearTimeout(timer);
    }
    await write;
    if (release !== null) return finished(await queue.complete(lease, release));
    return finished(await queue.fail(lease, failure!) ? failure!.code : "lease_lost");
  } catch (error) {
    if (options.onStoreError === undefined) throw error;
    options.onStoreError(job, error);
    return "store_error";
  } finally {
    clearInterval(heartbeat);
  }
}

/** A job's lease was found taken over (it had expired): its run stops, the new holder's goes on. */
class LeaseLostError extends Error {
  override name = "LeaseLostError";
  constructor() {
    super("the job's lease was lost");
  }
}

/** Sleeps of idle job loops that a new job (or a stop) can cut short. */
export class IdleWait {
  readonly #wakers = new Set<() => void>();

  /** Resolves after `ms` milliseconds, or at the next {@linkcode IdleWait.wake}. */
  sleep(ms: number): Promise<void> {
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

  /** Ends every sleep now. */
  wake(): void {
    for (const wake of [...this.#wakers]) wake();
  }
}
