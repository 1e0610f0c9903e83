/**
 * The multi-machine layout in one test: a private PostgreSQL cluster (the store), a private
 * redis-server (the queue) and N `deno task worker` processes that share nothing but the two
 * URLs: each has its own empty data directory, which the tests check stays empty. Used by the
 * PostgreSQL tests of test/scale/ and by bench/api_throughput.ts.
 *
 * @module
 */
import { type PostgresServer, startPostgres } from "../_postgres.ts";
import type { RedisServer, WorkerProcess } from "./_redis.ts";
import { startRedis, startWorker, stopWorker, until } from "./_redis.ts";

/** PostgreSQL, Redis and the workers. */
export interface Stack {
  readonly postgres: PostgresServer;
  readonly redis: RedisServer;
  /** The two URLs: PPSYNTH_STORE_URL and PPSYNTH_QUEUE. */
  readonly env: { readonly PPSYNTH_STORE_URL: string; readonly PPSYNTH_QUEUE: string };
  readonly workers: WorkerProcess[];
  /** Each worker's own data directory (by worker). */
  readonly dirs: string[];
  /** Starts one more worker on its own data directory. */
  addWorker(): Promise<WorkerProcess>;
  /** The files found in the workers' data directories (none: they share only the URLs). */
  strayFiles(): Promise<string[]>;
  /** Stops the workers (SIGTERM), Redis and PostgreSQL, and removes the directories. */
  stop(): Promise<void>;
  /** SIGKILLs the workers, Redis and PostgreSQL at once, their directories left (the process is
   * exiting before a file's last test stopped them). */
  kill(): void;
}

/**
 * Starts PostgreSQL, Redis and `workers` worker processes (leases as in `startWorker`: 2 s, the
 * stalled check every 0.5 s), and waits until every worker has started.
 *
 * @param workers How many worker processes.
 * @param env More environment for the workers.
 */
export async function startStack(
  workers: number,
  env: Record<string, string> = {},
): Promise<Stack> {
  const [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  const urls = { PPSYNTH_STORE_URL: postgres.url, PPSYNTH_QUEUE: redis.url };
  const started: WorkerProcess[] = [];
  const dirs: string[] = [];
  const addWorker = async () => {
    const dir = await Deno.makeTempDir({ prefix: "ppsynth_worker_" });
    dirs.push(dir);
    const worker = startWorker(redis.url, { ...urls, PPSYNTH_DATA_DIR: dir, ...env });
    started.push(worker);
    await until(
      "a worker to start",
      () => worker.lines.some((line) => line.event === "worker_started") || undefined,
      60_000,
    );
    return worker;
  };
  try {
    await Promise.all(Array.from({ length: workers }, addWorker));
  } catch (error) {
    await Promise.all(started.map(stopWorker));
    await Promise.all([postgres.stop(), redis.stop()]);
    throw error;
  }
  return {
    postgres,
    redis,
    env: urls,
    workers: started,
    dirs,
    addWorker,
    async strayFiles() {
      const found: string[] = [];
      for (const dir of dirs) {
        for await (const entry of Deno.readDir(dir)) found.push(`${dir}/${entry.name}`);
      }
      return found;
    },
    async stop() {
      await Promise.all(started.map(stopWorker));
      await redis.stop();
      await postgres.stop();
      await Promise.all(dirs.map((dir) => Deno.remove(dir, { recursive: true })));
    },
    kill() {
      for (const worker of started) {
        try {
          worker.child.kill("SIGKILL");
        } catch {
          // already exited
        }
      }
      redis.kill();
      postgres.kill();
    },
  };
}

/** The outcomes a job id's `job_finished` lines record, over every worker. */
export function outcomes(workers: readonly WorkerProcess[], id: string): unknown[] {
  return workers.flatMap((worker) =>
    worker.lines.filter((line) => line.event === "job_finished" && line.job === id)
      .map((line) => line.outcome)
  );
}
