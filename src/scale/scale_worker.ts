/**
 * A worker process's job loop on the Redis backend (`deno task worker`): `concurrency` slots,
 * each fetching one job at a time from BullMQ by hand (the GPU-preferring queue first on a GPU
 * worker, last on a CPU worker) under a lock it extends every third of the lease. Every worker
 * runs BullMQ's stalled-job check, so the job of a worker that died (SIGKILL, lost machine) goes
 * back to waiting once its lock expires and another worker runs it; workers can join and leave
 * at any time.
 *
 * - An API job claims its store lease by id (`claimById`) and runs through `runLeasedJob`
 *   (`src/jobs/leased_job.ts`, as in the server's worker pool): the store releases and charges
 *   the ledger only under the current lease (once per job id). A job already finished when it
 *   is delivered again is acknowledged without running.
 * - A study replicate runs in this slot's `ReplicateThread` (so the lock keeps being extended
 *   while the fits compute) and its JSON record is stored with HSETNX: the first writer wins, a
 *   second run of the same replicate writes nothing (`runQueuedReplicate`, `study_fanout.ts`).
 *
 * @module
 */
import { failureOf } from "../jobs/failure.ts";
import { jobHandler } from "../jobs/job_handler.ts";
import { IdleWait, type Logger, runLeasedJob } from "../jobs/leased_job.ts";
import { openStore, type StoreLocation } from "../jobs/open_store.ts";
import type { JobStore } from "../jobs/store.ts";
import { ReplicateThread } from "../studies/replicate_scheduler.ts";
import {
  type BullJob,
  type BullWorker,
  connectRedis,
  openBullWorker,
  type RedisClient,
} from "./redis.ts";
import {
  type ApiJobData,
  CPU_QUEUE,
  GPU_QUEUE,
  type ScaleJobData,
  workerKey,
} from "./scale_jobs.ts";
import { runQueuedReplicate } from "./study_fanout.ts";

/** Options of {@linkcode ScaleWorker}. */
export interface ScaleWorkerOptions {
  /** The Redis URL. */
  readonly url: string;
  /**
   * The API's store (opened on the first API job): PostgreSQL by its URL, which is all a worker
   * on another machine needs, or the embedded store's data directory, shared with the server.
   */
  readonly store: StoreLocation;
  /** Jobs run side by side (at least 1). */
  readonly concurrency: number;
  /** What this worker advertises: "gpu" takes GPU-preferring jobs first. */
  readonly backend: "cpu" | "gpu";
  /** Lock (lease) length in milliseconds, extended every third of it. */
  readonly leaseMs: number;
  /** How often expired locks are looked for, in milliseconds. */
  readonly stalledIntervalMs: number;
  /** How long an idle slot waits before fetching again. */
  readonly pollMs: number;
  /** An API job claimed more often than this is failed, not run. */
  readonly maxAttempts: number;
  /** At most one progress write per API job in this many milliseconds. */
  readonly progressIntervalMs: number;
  /** An API job running longer than this (ms) is stopped and failed with `time_limit`. */
  readonly timeLimitMs?: number;
  readonly log: Logger;
}

/** A worker process's slots on both queues. */
export class ScaleWorker {
  readonly #options: ScaleWorkerOptions;
  readonly #id = crypto.randomUUID().slice(0, 8);
  readonly #queues: BullWorker[];
  readonly #redis: RedisClient;
  readonly #threads: ReplicateThread[];
  readonly #idle = new IdleWait();
  #store: Promise<JobStore> | null = null;
  #loops: Promise<void>[] = [];
  #advertising: ReturnType<typeof setInterval> | undefined;
  #stopping = false;

  /** @param options The queue, the store, sizes and timings. */
  constructor(options: ScaleWorkerOptions) {
    if (!Number.isSafeInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError(
        `Invalid concurrency: must be a positive integer: concurrency=${options.concurrency}`,
      );
    }
    this.#options = options;
    const order = options.backend === "gpu" ? [GPU_QUEUE, CPU_QUEUE] : [CPU_QUEUE, GPU_QUEUE];
    this.#queues = order.map((name) =>
      openBullWorker(options.url, name, {
        lockDuration: options.leaseMs,
        stalledInterval: options.stalledIntervalMs,
        maxStalledCount: options.maxAttempts,
      })
    );
    for (const queue of this.#queues) {
      queue.on("error", (error) => options.log("queue_error", { error: error.name }));
    }
    this.#redis = connectRedis(options.url);
    this.#threads = Array.from({ length: options.concurrency }, () => new ReplicateThread());
  }

  /** This worker's id (its log lines and its advertisement carry it). */
  get id(): string {
    return this.#id;
  }

  /** Advertises the worker, starts the stalled-job checks and the slots. */
  async start(): Promise<void> {
    await this.#advertise();
    this.#advertising = setInterval(() => this.#advertise(), this.#options.leaseMs / 3);
    await Promise.all(this.#queues.map((queue) => queue.startStalledCheckTimer()));
    this.#loops = this.#threads.map((_, slot) => this.#loop(slot));
    this.#options.log("worker_started", {
      worker: this.#id,
      backend: this.#options.backend,
      concurrency: this.#options.concurrency,
    });
  }

  /** Stops fetching, waits for the running jobs, and closes every connection. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#advertising);
    this.#idle.wake();
    await Promise.all(this.#loops);
    this.#threads.forEach((thread) => thread.close());
    await Promise.all(this.#queues.map((queue) => queue.close()));
    await this.#redis.del(workerKey(this.#id)).catch(() => 0);
    await this.#redis.quit();
    await (await this.#store?.catch(() => null))?.close();
  }

  async #advertise(): Promise<void> {
    const { backend, concurrency, leaseMs, log } = this.#options;
    try {
      await this.#redis.set(
        workerKey(this.#id),
        JSON.stringify({ backend, concurrency, pid: Deno.pid }),
        "PX",
        2 * leaseMs,
      );
    } catch (error) {
      log("advertise_error", { error: (error as Error).name });
    }
  }

  async #next(token: string): Promise<BullJob | null> {
    for (const queue of this.#queues) {
      const job = await queue.getNextJob(token, { block: false });
      if (job !== undefined) return job;
    }
    return null;
  }

  async #loop(slot: number): Promise<void> {
    while (!this.#stopping) {
      const token = `${this.#id}-${slot}-${crypto.randomUUID()}`;
      let job: BullJob | null = null;
      try {
        job = await this.#next(token);
      } catch (error) {
        this.#options.log("fetch_error", { worker: this.#id, error: (error as Error).name });
      }
      if (job === null) {
        await this.#idle.sleep(this.#options.pollMs);
        continue;
      }
      await this.#run(job, token, slot);
    }
  }

  async #run(job: BullJob, token: string, slot: number): Promise<void> {
    const { leaseMs, log } = this.#options;
    const heartbeat = setInterval(() => {
      job.extendLock(token, leaseMs).catch((error) =>
        log("renew_error", { job: job.id ?? "", error: (error as Error).name })
      );
    }, leaseMs / 3);
    try {
      const data = job.data as ScaleJobData;
      if (data.kind === "api") await this.#runApi(data, `${this.#id}-${slot}`);
      else await runQueuedReplicate(this.#redis, this.#threads[slot], data, log);
      await job.moveToCompleted(null, token, false);
    } catch (error) {
      log("job_error", { job: job.id ?? "", error: (error as Error).name });
      await job.moveToFailed(error as Error, token, false).catch(() => {});
    } finally {
      clearInterval(heartbeat);
    }
  }

  async #runApi(data: ApiJobData, workerId: string): Promise<void> {
    const { leaseMs, maxAttempts, progressIntervalMs, timeLimitMs, log } = this.#options;
    const store = await (this.#store ??= openStore(this.#options.store, {
      max: this.#options.concurrency + 2,
    }).catch((error) => {
      this.#store = null;
      throw error;
    }));
    const outcome = await runLeasedJob(
      store,
      () => store.claimById(data.jobId, workerId, leaseMs),
      jobHandler(store),
      { leaseMs, progressIntervalMs, maxAttempts, timeLimitMs, failureOf, log },
    );
    if (outcome === null) log("job_finished", { job: data.jobId, outcome: "already_finished" });
  }
}
