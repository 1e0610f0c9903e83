/**
 * The service as deployed. {@linkcode openServiceContext} opens its context as the environment
 * asks, for `deno task serve` and every function file's `deno serve` export alike: with a queue URL
 * (PPSYNTH_QUEUE) the jobs go to Redis and run on `deno task worker` processes (no pool here,
 * nothing written locally when the store is PostgreSQL: an edge function needs no writable
 * directory); without one, jobs run in this process's pool when `jobs` is set. The store is
 * `openStore`'s either way.
 *
 * {@linkcode standalone} is a function file's default export for `deno serve`: the app built from
 * the environment (see `configFromEnv`; with PPSYNTH_QUEUE the jobs go to the Redis workers, and
 * with PPSYNTH_STORE_URL as well the function writes nothing locally). When the file is the
 * program's entry point it opens the store (and starts the worker pool) at once, and SIGINT or
 * SIGTERM closes the store's and the queue's connections and exits (`deno serve` alone would
 * wait forever for them to close); when it is only imported, nothing happens until a first
 * request.
 *
 * @module
 */
import { configFromEnv } from "../jobs/config.ts";
import type { ApiConfig } from "../jobs/config.ts";
import { type ApiContext, openContext, type OpenContextOptions } from "../jobs/context.ts";
import { openRedisContext, queueUrlFromEnv } from "../scale/redis_context.ts";
import { type ApiFunction, createApp } from "./app.ts";
import { jsonLogger } from "./log.ts";

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

/** How long a stopping function waits for its connections (and running jobs) to close. */
const STOP_GRACE_MS = 10_000;

/**
 * The `deno serve` export of a set of functions.
 *
 * @param meta The calling module's `import.meta` (its `main` decides eager start).
 * @param functions The functions to serve.
 * @param options `jobs`: run the worker pool in this process (when no queue is configured).
 * @returns `{fetch}` for `deno serve`.
 */
export function standalone(
  meta: ImportMeta,
  functions: readonly ApiFunction[],
  options: { readonly jobs: boolean },
): Deno.ServeDefaultExport {
  let context: Promise<ApiContext> | null = null;
  let app: Promise<ReturnType<typeof createApp>> | null = null;
  const log = jsonLogger();
  const build = () => {
    const get = (name: string) => Deno.env.get(name);
    context ??= openServiceContext(configFromEnv(get), queueUrlFromEnv(get), {
      log,
      jobs: options.jobs,
    });
    return app ??= context.then((opened) => createApp(opened, functions));
  };
  if (meta.main) {
    build();
    const stop = () => {
      log("stopping");
      // A job still running when the grace time ends is run again (its lease expires).
      setTimeout(() => Deno.exit(0), STOP_GRACE_MS);
      context!.then((opened) => opened.close()).finally(() => Deno.exit(0));
    };
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      try {
        Deno.addSignalListener(signal, stop);
      } catch {
        // A platform without the signal.
      }
    }
  }
  return { fetch: async (request) => (await build()).fetch(request) };
}
