/**
 * The service's log: one JSON line per event on standard output. Callers pass only ids, codes,
 * routes, statuses and durations; request bodies, query strings, headers (keys) and results
 * are never logged.
 *
 * @module
 */
import type { Logger } from "../jobs/worker_pool.ts";

/** A structured log line writer (see `worker_pool.ts`). */
export type { Logger };

/**
 * A logger writing `{"time", "event", ...fields}` JSON lines.
 *
 * @param write Where a line goes (default `console.log`).
 * @returns The logger.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonLogger } from "./log.ts";
 * const lines: string[] = [];
 * jsonLogger((line) => lines.push(line))("listening", { port: 8000 });
 * assert.equal(JSON.parse(lines[0]).port, 8000);
 * ```
 */
export function jsonLogger(write: (line: string) => void = console.log): Logger {
  return (event, fields = {}) =>
    write(JSON.stringify({ time: new Date().toISOString(), event, ...fields }));
}
