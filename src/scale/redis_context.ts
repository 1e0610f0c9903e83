/**
 * The API's context on the Redis backend: the store (PostgreSQL at `config.storeUrl`, else the
 * embedded store under `config.dataDir`) with its queue on Redis ({@linkcode RedisQueuedStore})
 * and no worker pool in the API process; jobs run in `deno task worker` processes sharing the
 * store (the database's URL, or the data directory). Selected by PPSYNTH_QUEUE.
 *
 * @module
 */
import type { ApiConfig } from "../jobs/config.ts";
import type { ApiContext } from "../jobs/context.ts";
import { openStore } from "../jobs/open_store.ts";
import type { Logger } from "../jobs/worker_pool.ts";
import { checkQueueUrl } from "./redis.ts";
import { RedisQueuedStore } from "./redis_store.ts";
import { ScaleQueues } from "./scale_queues.ts";

/**
 * The queue URL of the environment: PPSYNTH_QUEUE, or null for the embedded queue.
 *
 * @param get Reads one variable (`Deno.env.get`).
 * @returns The checked redis:// URL, or null when unset or empty.
 */
export function queueUrlFromEnv(get: (name: string) => string | undefined): string | null {
  const url = get("PPSYNTH_QUEUE");
  if (url === undefined || url === "") return null;
  try {
    return checkQueueUrl(url);
  } catch {
    throw new RangeError("Invalid PPSYNTH_QUEUE: must be a redis:// or rediss:// URL");
  }
}

/**
 * Opens the store with its queue on Redis and enqueues the jobs a crashed process had persisted
 * but not enqueued.
 *
 * @param config The settings (`storeUrl` or `dataDir`, `maxAttempts`).
 * @param url The Redis URL.
 * @param log The log.
 */
export async function openRedisContext(
  config: ApiConfig,
  url: string,
  log: Logger,
): Promise<ApiContext> {
  const underlying = await openStore(config);
  const queues = new ScaleQueues(url);
  const store = new RedisQueuedStore(underlying, queues);
  let recovered: string[];
  try {
    recovered = await store.enqueueUnqueued(config.maxAttempts);
  } catch (error) {
    await queues.close();
    await store.close();
    throw error;
  }
  if (recovered.length > 0) log("jobs_recovered", { count: recovered.length });
  return {
    store,
    config,
    log,
    pool: null,
    async close() {
      await queues.close();
      await store.close();
    },
  };
}
