/**
 * A function file's default export for `deno serve`: the app built from the environment (see
 * `configFromEnv`, and `openServiceContext`: with PPSYNTH_QUEUE the jobs go to the Redis workers,
 * and with PPSYNTH_STORE_URL as well the function writes nothing locally). When the file is the
 * program's entry point it opens the store (and starts the worker pool) at once; when it is only
 * imported, nothing happens until a first request.
 *
 * @module
 */
import { queueUrlFromEnv } from "../scale/redis_context.ts";
import { type ApiFunction, createApp } from "./app.ts";
import { configFromEnv } from "./config.ts";
import { jsonLogger } from "./log.ts";
import { openServiceContext } from "./service_context.ts";

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
  let app: Promise<ReturnType<typeof createApp>> | null = null;
  const build = () => {
    const get = (name: string) => Deno.env.get(name);
    return app ??= openServiceContext(configFromEnv(get), queueUrlFromEnv(get), {
      log: jsonLogger(),
      jobs: options.jobs,
    }).then((context) => createApp(context, functions));
  };
  if (meta.main) build();
  return { fetch: async (request) => (await build()).fetch(request) };
}
