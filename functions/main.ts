/**
 * Every function mounted together: `deno serve functions/main.ts` (port from `--port`), or
 * `deno task serve` (src/cli/serve.ts: PORT, graceful shutdown). Runs the synthesis worker pool.
 *
 * @module
 */
import { type ApiFunction, createApp } from "../src/api/app.ts";
import type { ApiContext } from "../src/jobs/context.ts";
import { standalone } from "../src/api/standalone.ts";
import { datasets } from "./datasets.ts";
import { health } from "./health.ts";
import { lipschitz } from "./lipschitz.ts";
import { report } from "./report.ts";
import { syntheses } from "./syntheses.ts";
import { tables } from "./tables.ts";

/** The functions of the service. */
export const FUNCTIONS: readonly ApiFunction[] = [
  health,
  datasets,
  syntheses,
  lipschitz,
  tables,
  report,
];

/**
 * The whole service's app on a context.
 *
 * @param context The store, settings, log and pool.
 * @returns The app.
 */
export function mainApp(context: ApiContext) {
  return createApp(context, FUNCTIONS);
}

/** `deno serve functions/main.ts`: every function, with the worker pool. */
export default standalone(import.meta, FUNCTIONS, { jobs: true });
