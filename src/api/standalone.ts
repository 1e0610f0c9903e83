/**
 * A function file's default export for `deno serve`: the app built from the environment (see
 * `configFromEnv`). When the file is the program's entry point it opens the store (and starts
 * the worker pool) at once; when it is only imported, nothing happens until a first request.
 *
 * @module
 */
import { type ApiFunction, createApp } from "./app.ts";
import { configFromEnv } from "./config.ts";
import { openContext } from "./context.ts";
import { jsonLogger } from "./log.ts";

/**
 * The `deno serve` export of a set of functions.
 *
 * @param meta The calling module's `import.meta` (its `main` decides eager start).
 * @param functions The functions to serve.
 * @param options `jobs`: run the worker pool in this process.
 * @returns `{fetch}` for `deno serve`.
 */
export function standalone(
  meta: ImportMeta,
  functions: readonly ApiFunction[],
  options: { readonly jobs: boolean },
): Deno.ServeDefaultExport {
  let app: Promise<ReturnType<typeof createApp>> | null = null;
  const build = () =>
    app ??= openContext(configFromEnv((name) => Deno.env.get(name)), {
      log: jsonLogger(),
      jobs: options.jobs,
    }).then((context) => createApp(context, functions));
  if (meta.main) build();
  return { fetch: async (request) => (await build()).fetch(request) };
}
