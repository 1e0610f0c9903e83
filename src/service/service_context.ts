/**
 * The service's context as the environment asks for it, for `deno task serve` and every function
 * file's `deno serve` export alike: with a queue URL (PPSYNTH_QUEUE) the jobs go to Redis and run
 * on `deno task worker` processes (no pool here, nothing written locally when the store is
 * PostgreSQL: an edge function needs no writable directory); without one, jobs run in this
 * process's pool when `jobs` is set. The store is `openStore`'s either way.
 *
 * @module
 */
import { openRedisContext } from "../scale/redis_context.ts";
import type { ApiConfig } from "../api/config.ts";
import { type ApiContext, openContext, type OpenContextOptions } from "../api/context.ts";

/**
 * Opens the context: the Redis-queued one when `queueUrl` is given, else `openContext`.
 *
 * @param config The settings.
 * @param queueUrl The Redis URL (`queueUrlFromEnv`), or null.
 * @param options The log and whether this process runs jobs (without a queue).
 * @returns The context.
 */
export function openServiceContext(
  config: ApiConfig,
  queueUrl: string | null,
  options: OpenContextOptions,
): Promise<ApiContext> {
  return queueUrl === null
    ? openContext(config, options)
    : openRedisContext(config, queueUrl, options.log);
}
