/**
 * A worker process's job loop on the Redis backend (`deno task worker`): `concurrency` slots,
 * each fetching one job at a time from BullMQ by hand (the GPU-preferring queue first on a GPU
 * worker, last on a CPU worker) under a lock it extends every third of the lease. Every worker
 * runs BullMQ's stalled-job check, so the job of a worker that died (SIGKILL, lost machine) goes
 * back to waiting once its lock expires and another worker runs it; workers can join and leave
 * at any time.
 *
 * - An API job claims its store lease by id, runs the job handler and completes through the
 *   store, which releases and charges the ledger only under the current lease (once per job id).
 *   A job already finished when it is delivered again is acknowledged without running.
 * - A study replicate runs in a thread of this slot (`study_worker.ts`, so the lock keeps being
 *   extended while the fits compute) and its JSON record is stored with HSETNX: the first
 *   writer wins, a second run of the same replicate writes nothing.
 *
 * @module
 */
import { failureOf } from "../jobs/failure.ts";
import { jobHandler } from "../jobs/job_handler.ts";
import { SqliteJobStore } from "../jobs/sqlite_store.ts";
import type { JobFailure, JobProgress, Release } from "../jobs/store.ts";
import type { Logger } from "../jobs/worker_pool.ts";
import type { ReplicateJob, WorkerMessage } from "../studies/study_worker.ts";
import { JobClaimer } from "./claim_job.ts";
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
  errorsKey,
  GPU_QUEUE,
  RECORD_TTL_S,
  recordsKey,
  type ReplicateJobData,
  type ScaleJobData,
  workerKey,
} from "./scale_jobs.ts";
import { studyByName } from "../studies/registry.ts";

/** Options of {@linkcode ScaleWorker}. */
export interface ScaleWorkerOptions {
  /** The Redis URL. */
  readonly url: string;
  /** The data directory of the shared store (API jobs; opened on the first one). */
  readonly dataDir: string;
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
  readonly log: Logger;
}

/** What a study thread answers for one replicate. */
type ThreadAnswer = { record: unknown } | { error: string };

/** A thread running one study replicate at a time. */
class StudyThread {
  #worker: Worker | null = null;

  run(job: ReplicateJob<unknown>): Promise<ThreadAnswer> {
    const worker = this.#worker ??= new Worker(
      new URL("../studies/study_worker.ts", import.meta.url).href,
      { type: "module" },
    );
    return new Promise((resolve) => {
      worker.onmessage = (event: MessageEvent<WorkerMessage<unknown>>) => {
        const message = event.data;
        if (message.type === "record") resolve({ record: message.record });
        else if (message.type === "error") resolve({ error: message.message });
      };
      worker.onerror = (event) => {
        event.preventDefault();
        this.close();
        resolve({ error: `study thread failed: ${event.message}` });
      };
      worker.postMessage(job);
    });
  }

  close(): void {
    this.#worker?.terminate();
    this.#worker = null;
  }
}

/** A worker process's slots on both queues. */
export class ScaleWorker {
  readonly #options: ScaleWorkerOptions;
  readonly #id = crypto.randomUUID().slice(0, 8);
  readonly #queues: BullWorker[];
  readonly #redis: RedisClient;
  readonly #threads: StudyThread[];
  readonly #wakers = new Set<() => void>();
  #store: { store: SqliteJobStore; claimer: JobClaimer } | null = null;
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
    this.#threads = Array.from({ length: options.concurrency }, () => new StudyThread());
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
    for (const wake of [...this.#wakers]) wake();
    await Promise.all(this.#loops);
    this.#threads.forEach((thread) => thread.close());
    await Promise.all(this.#queues.map((queue) => queue.close()));
    await this.#redis.del(workerKey(this.#id)).catch(() => 0);
    await this.#redis.quit();
    this.#store?.claimer.close();
    this.#store?.store.close();
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
        await this.#sleep(this.#options.pollMs);
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
      else await this.#runReplicate(data, slot);
      await job.moveToCompleted(null, token, false);
    } catch (error) {
      log("job_error", { job: job.id ?? "", error: (error as Error).name });
      await job.moveToFailed(error as Error, token, false).catch(() => {});
    } finally {
      clearInterval(heartbeat);
    }
  }

  async #openStore(): Promise<{ store: SqliteJobStore; claimer: JobClaimer }> {
    if (this.#store === null) {
      const store = await SqliteJobStore.open(this.#options.dataDir);
      this.#store = { store, claimer: new JobClaimer(this.#options.dataDir) };
    }
    return this.#store;
  }

  async #runApi(data: ApiJobData, workerId: string): Promise<void> {
    const { leaseMs, maxAttempts, progressIntervalMs, log } = this.#options;
    const { store, claimer } = await this.#openStore();
    const claim = claimer.claim(data.jobId, workerId, leaseMs);
    if (claim === null) {
      log("job_finished", { job: data.jobId, outcome: "already_finished" });
      return;
    }
    const { lease } = claim;
    if (claim.attempts > maxAttempts) {
      await store.fail(lease, {
        code: "too_many_attempts",
        message: `the job was interrupted ${claim.attempts - 1} times and is not retried again`,
      });
      log("job_finished", { job: data.jobId, outcome: "too_many_attempts" });
      return;
    }
    log("job_started", { job: data.jobId, attempt: claim.attempts });
    const renew = setInterval(() => {
      store.renew(lease, leaseMs).catch(() => false);
    }, leaseMs / 3);
    let lastWrite = -Infinity;
    let write: Promise<void> = Promise.resolve();
    const onProgress = (progress: JobProgress) => {
      const time = Date.now();
      if (time - lastWrite < progressIntervalMs) return;
      lastWrite = time;
      write = write.then(() => store.progress(lease, progress)).catch(() => {});
    };
    try {
      let release: Release | null = null;
      let failure: JobFailure | null = null;
      try {
        release = await jobHandler(store)(lease, onProgress);
      } catch (error) {
        failure = failureOf(error);
      }
      await write;
      if (release !== null) {
        log("job_finished", { job: data.jobId, outcome: await store.complete(lease, release) });
      } else {
        const held = await store.fail(lease, failure!);
        log("job_finished", { job: data.jobId, outcome: held ? failure!.code : "lease_lost" });
      }
    } finally {
      clearInterval(renew);
    }
  }

  async #runReplicate(data: ReplicateJobData, slot: number): Promise<void> {
    const { study } = studyByName(data.study);
    this.#options.log("replicate_started", { run: data.run, study: data.study, r: data.r });
    const answer = await this.#threads[slot].run({
      module: study.module,
      r: data.r,
      seed: data.seed,
      settings: data.settings,
    });
    if ("error" in answer) {
      await this.#redis.hset(errorsKey(data.run), String(data.r), answer.error);
      await this.#redis.expire(errorsKey(data.run), RECORD_TTL_S);
      throw new Error(`replicate ${data.r} failed`);
    }
    const written = await this.#redis.hsetnx(
      recordsKey(data.run),
      String(data.r),
      JSON.stringify(answer.record),
    );
    await this.#redis.expire(recordsKey(data.run), RECORD_TTL_S);
    this.#options.log("replicate_finished", {
      run: data.run,
      r: data.r,
      outcome: written === 1 ? "stored" : "already_stored",
    });
  }
}
