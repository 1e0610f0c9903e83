/**
 * A function file's default export for `deno serve`: the app built from the environment (see
 * `configFromEnv`, and `openServiceContext`: with PPSYNTH_QUEUE the jobs go to the Redis workers,
 * and with PPSYNTH_STORE_URL as well the function writes nothing locally). When the file is the
 * program's entry point it opens the store (and starts the worker pool) at once, and SIGINT or
 * SIGTERM closes the store's and the queue's connections and exits (`deno serve` alone would
 * wait forever for them to close); when it is only imported, nothing happens until a first
 * request.
 *
 * @module
 */
import { queueUrlFromEnv } from "../scale/redis_context.ts";
import { type ApiFunction, createApp } from "../api/app.ts";
import { configFromEnv } from "../api/config.ts";
import type { ApiContext } from "../api/context.ts";
import { jsonLogger } from "../api/log.ts";
import { openServiceContext } from "./service_context.ts";

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
