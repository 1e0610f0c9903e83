/**
 * `deno task worker`: a worker on the Redis backend, pulling synthesis and table jobs of the
 * HTTP API and study replicates.
 *
 *     deno task worker [--queue redis://HOST:PORT] [--concurrency N] [--backend cpu|gpu]
 *       [--data-dir DIR]
 *
 * --queue defaults to PPSYNTH_QUEUE; --concurrency (default 1) jobs run side by side; a
 * `--backend gpu` worker advertises the GPU and takes GPU-preferring jobs first. API jobs read
 * and write the API's store: PostgreSQL when PPSYNTH_STORE_URL is set (then the worker needs
 * nothing else of the API's machine; the URL is read from the environment only, since a
 * command line, password included, is visible to every local user), else the embedded store in
 * --data-dir (default PPSYNTH_DATA_DIR, else ./data), shared with the server. Lease and attempts
 * come from PPSYNTH_LEASE_MS (30 s; the stalled-job check runs as often, or
 * PPSYNTH_STALLED_INTERVAL_MS), PPSYNTH_MAX_ATTEMPTS (3), PPSYNTH_POLL_MS (1 s) and
 * PPSYNTH_PROGRESS_INTERVAL_MS (500 ms); an API job running past PPSYNTH_JOB_TIME_LIMIT_MS (30 min)
 * is stopped and failed with `time_limit`. SIGINT and SIGTERM finish the running jobs and exit,
 * within the lease time whatever Redis does (a job still running then, or a worker that cannot
 * reach Redis, is left to the lease); a killed worker's jobs are run again by the others once
 * their locks expire. Log: one JSON line per event on standard output.
 *
 * @module
 */
import { configFromEnv } from "../jobs/config.ts";
import { jsonLogger } from "../api/log.ts";
import { parseDecimal } from "../data/decimal.ts";
import { checkQueueUrl } from "../scale/redis.ts";
import { ScaleWorker } from "../scale/scale_worker.ts";
import { parseFlags, runCommand, UsageError } from "./run_command.ts";

/** A parsed `deno task worker` command line. */
export interface WorkerArgs {
  readonly queue: string;
  readonly concurrency: number;
  readonly backend: "cpu" | "gpu";
  readonly dataDir: string;
}

/**
 * Parses the command line (see the module documentation).
 *
 * @param args The arguments after the command.
 * @param get Reads an environment variable (PPSYNTH_QUEUE, PPSYNTH_DATA_DIR).
 */
export function parseWorkerArgs(
  args: string[],
  get: (name: string) => string | undefined,
): WorkerArgs {
  const { values } = parseFlags({
    args,
    options: {
      queue: { type: "string" },
      concurrency: { type: "string" },
      backend: { type: "string" },
      "data-dir": { type: "string" },
    },
  });
  const queue = values.queue ?? get("PPSYNTH_QUEUE");
  if (queue === undefined || queue === "") {
    throw new UsageError("--queue: give a redis:// URL (or set PPSYNTH_QUEUE)");
  }
  try {
    checkQueueUrl(queue);
  } catch {
    throw new UsageError("--queue: must be a redis:// or rediss:// URL");
  }
  const concurrency = values.concurrency === undefined ? 1 : parseDecimal(values.concurrency);
  if (!Number.isSafeInteger(concurrency) || concurrency < 1 || concurrency > 1024) {
    throw new UsageError("--concurrency: must be an integer from 1 to 1024");
  }
  const backend = values.backend ?? "cpu";
  if (backend !== "cpu" && backend !== "gpu") {
    throw new UsageError("--backend: must be cpu or gpu");
  }
  return {
    queue,
    concurrency,
    backend,
    dataDir: values["data-dir"] ?? (get("PPSYNTH_DATA_DIR") || "./data"),
  };
}

async function main(): Promise<void> {
  const get = (name: string) => Deno.env.get(name);
  const args = parseWorkerArgs(Deno.args, get);
  const config = configFromEnv(get);
  const stalled = Number(get("PPSYNTH_STALLED_INTERVAL_MS") || config.leaseMs);
  if (!Number.isSafeInteger(stalled) || stalled < 100) {
    throw new RangeError("Invalid PPSYNTH_STALLED_INTERVAL_MS: must be an integer ≥ 100");
  }
  const log = jsonLogger();
  const worker = new ScaleWorker({
    url: args.queue,
    store: { storeUrl: config.storeUrl, dataDir: args.dataDir },
    concurrency: args.concurrency,
    backend: args.backend,
    leaseMs: config.leaseMs,
    stalledIntervalMs: stalled,
    pollMs: config.pollMs,
    maxAttempts: config.maxAttempts,
    progressIntervalMs: config.progressIntervalMs,
    timeLimitMs: config.jobTimeLimitMs,
    log,
  });
  await worker.start();
  const { promise: stopped, resolve } = Promise.withResolvers<void>();
  const stop = () => {
    log("stopping", { worker: worker.id });
    // Within the lease time, whatever Redis does: a job still running is requeued by its lease.
    const deadline = setTimeout(() => {
      log("stop_timeout", { worker: worker.id, ms: config.leaseMs });
      resolve();
    }, config.leaseMs);
    worker.stop().finally(() => {
      clearTimeout(deadline);
      resolve();
    });
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await stopped;
  Deno.exit(0);
}

if (import.meta.main) await runCommand("worker", main);
