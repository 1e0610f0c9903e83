/**
 * What the functions share: the store, the settings, the log and (in a process that runs jobs)
 * the worker pool (syntheses and survey-table jobs). Tests build one on a temporary directory or
 * database; the server builds one from the environment (`openServiceContext`,
 * `src/api/standalone.ts`), or on the Redis queue (`src/scale/redis_context.ts`).
 *
 * @module
 */
import type { ApiConfig } from "./config.ts";
import { failureOf } from "./failure.ts";
import { jobHandler } from "./job_handler.ts";
import { openStore } from "./open_store.ts";
import type { JobStore } from "./store.ts";
import { type Logger, WorkerPool } from "./worker_pool.ts";

/** The functions' shared state. */
export interface ApiContext {
  readonly store: JobStore;
  readonly config: ApiConfig;
  readonly log: Logger;
  /** The worker pool, or null in a process that only accepts requests. */
  readonly pool: WorkerPool | null;
  /** Stops the pool (waiting for running jobs), closes the store and releases the lock. */
  close(): Promise<void>;
}

/** Options of {@linkcode openContext}. */
export interface OpenContextOptions {
  readonly log: Logger;
  /** Run jobs in this process (a pool of min(cores, config.workers) workers). */
  readonly jobs: boolean;
}

/**
 * Opens the store (`openStore`: PostgreSQL at `config.storeUrl`, else the embedded store under
 * `config.dataDir`) and, when `jobs` is set, starts the worker pool. On the embedded store it
 * first takes the data directory's exclusive lock (`server.lock`: one job-running server per
 * store, so every job found running at start was interrupted, and the pool requeues them at
 * once); on PostgreSQL several servers may run pools on one database, so a job found running is
 * requeued only once its lease has expired.
 *
 * @param config The settings.
 * @param options The log and whether to run jobs.
 * @returns The context; throws when another server holds the lock.
 */
export async function openContext(
  config: ApiConfig,
  options: OpenContextOptions,
): Promise<ApiContext> {
  const store = await openStore(config);
  const embedded = config.storeUrl === undefined;
  let lock: Deno.FsFile | null = null;
  let pool: WorkerPool | null = null;
  if (options.jobs) {
    if (embedded) {
      lock = await Deno.open(`${config.dataDir}/server.lock`, { create: true, write: true });
      if (!await lock.tryLock(true)) {
        lock.close();
        await store.close();
        throw new Error(
          `another server is running jobs on ${config.dataDir} (server.lock is held)`,
        );
      }
    }
    pool = new WorkerPool(store, jobHandler(store), {
      workers: Math.max(1, Math.min(navigator.hardwareConcurrency, config.workers)),
      leaseMs: config.leaseMs,
      pollMs: config.pollMs,
      progressIntervalMs: config.progressIntervalMs,
      maxAttempts: config.maxAttempts,
      timeLimitMs: config.jobTimeLimitMs,
      recoverAllOnStart: embedded,
      failureOf,
      log: options.log,
    });
    await pool.start();
  }
  return {
    store,
    config,
    log: options.log,
    pool,
    async close() {
      await pool?.stop();
      await store.close();
      lock?.close();
    },
  };
}
