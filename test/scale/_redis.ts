/**
 * Shared pieces of the Redis-backend tests: a private redis-server on a free loopback port (no
 * persistence), worker subprocesses whose log is collected, and polling. Without redis-server
 * the tests are skipped, except in CI (`.ci/run` installs it).
 */
import { freePort, until, untilListening } from "../_poll.ts";
export { until };

/** Whether the tests can run: redis-server is installed (or CI, where its absence fails). */
export const HAS_REDIS = await (async () => {
  try {
    const { success } = await new Deno.Command("redis-server", { args: ["--version"] }).output();
    return success;
  } catch {
    return false;
  }
})();

/** Skip the Redis tests when redis-server is missing outside CI. */
export const IGNORE_REDIS = !HAS_REDIS && Deno.env.get("CI") !== "true";

/** A running redis-server. */
export interface RedisServer {
  readonly url: string;
  stop(): Promise<void>;
  /** SIGKILLs it at once (a file's exit before its last test stopped it). */
  kill(): void;
}

/** Starts `redis-server` on 127.0.0.1 and a free port, with persistence off. */
export async function startRedis(): Promise<RedisServer> {
  const port = freePort();
  const child = new Deno.Command("redis-server", {
    args: ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  await untilListening("redis-server", port, 20_000);
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
    kill() {
      try {
        child.kill("SIGKILL");
      } catch {
        // already exited
      }
    },
  };
}

const WORKER = new URL("../../src/cli/worker.ts", import.meta.url).pathname;
const WORKER_PERMISSIONS = [
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-sys",
];

/** A `deno task worker` subprocess and the JSON log lines it has written so far. */
export interface WorkerProcess {
  readonly child: Deno.ChildProcess;
  readonly lines: Record<string, unknown>[];
  /** Resolves once it exited and its output is read. */
  readonly done: Promise<void>;
}

/**
 * Starts a worker subprocess on the queue with short leases (2 s lock, stalled check every
 * 0.5 s), so a killed worker's job is retried within seconds.
 *
 * @param url The Redis URL.
 * @param env More environment (PPSYNTH_DATA_DIR for API jobs).
 * @param args More arguments.
 */
export function startWorker(
  url: string,
  env: Record<string, string> = {},
  args: string[] = [],
): WorkerProcess {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...WORKER_PERMISSIONS, WORKER, "--queue", url, ...args],
    env: {
      PPSYNTH_LEASE_MS: "2000",
      PPSYNTH_STALLED_INTERVAL_MS: "500",
      PPSYNTH_POLL_MS: "100",
      PPSYNTH_PROGRESS_INTERVAL_MS: "50",
      ...env,
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: Record<string, unknown>[] = [];
  const read = async (stream: ReadableStream<Uint8Array>) => {
    let rest = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      rest += chunk;
      const parts = rest.split("\n");
      rest = parts.pop()!;
      for (const line of parts) {
        try {
          lines.push(JSON.parse(line));
        } catch {
          lines.push({ event: "text", text: line });
        }
      }
    }
  };
  const done = Promise.all([read(child.stdout), read(child.stderr), child.status]).then(() => {});
  return { child, lines, done };
}

/** Stops a worker: SIGTERM (finishes its job) unless it already exited. */
export async function stopWorker(worker: WorkerProcess): Promise<void> {
  try {
    worker.child.kill("SIGTERM");
  } catch {
    // already exited
  }
  await worker.done;
}
