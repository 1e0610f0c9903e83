/**
 * `deno task serve`: the HTTP API (every function of `functions/main.ts`) on PORT (default
 * 8000), with its embedded store under PPSYNTH_DATA_DIR (default ./data), or on PostgreSQL with
 * PPSYNTH_STORE_URL=postgres://…, and the synthesis worker pool. With PPSYNTH_QUEUE=redis://…
 * the jobs go to BullMQ on Redis instead and `deno task worker` processes them (docs: README
 * "Running at scale"). SIGINT and SIGTERM stop accepting requests and exit; a job still running
 * is requeued at the next start (embedded store) or once its lease expires (PostgreSQL), as
 * after a crash.
 *
 * @module
 */
import { configFromEnv } from "../jobs/config.ts";
import { jsonLogger } from "../api/log.ts";
import { openServiceContext } from "../api/standalone.ts";
import { mainApp } from "../../functions/main.ts";
import { queueUrlFromEnv } from "../scale/redis_context.ts";

async function main(): Promise<void> {
  const config = configFromEnv((name) => Deno.env.get(name));
  const log = jsonLogger();
  const queue = queueUrlFromEnv((name) => Deno.env.get(name));
  const context = await openServiceContext(config, queue, { log, jobs: true });
  const app = mainApp(context);
  const server = Deno.serve({
    port: config.port,
    hostname: config.hostname,
    onListen: ({ hostname, port }) => log("listening", { hostname, port }),
  }, app.fetch);
  const stop = async () => {
    log("stopping");
    await server.shutdown();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await server.finished;
}

if (import.meta.main) {
  try {
    await main();
  } catch (error) {
    console.error(`serve: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
