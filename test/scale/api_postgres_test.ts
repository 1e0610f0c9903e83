/**
 * The API's crash and load tests on the multi-machine layout: the store on PostgreSQL, the queue
 * on Redis, two worker processes that share nothing but the two URLs (each on its own data
 * directory, which stays empty). The same scenarios run on the embedded store in
 * test/api/crash_test.ts and test/api/load_test.ts; the duplicate-delivery test runs here on this
 * stack and on the embedded store in api_redis_test.ts.
 */
import assert from "node:assert/strict";
import { createApiKey } from "../../src/api/auth.ts";
import { ApiConfig } from "../../src/jobs/config.ts";
import { openStore } from "../../src/jobs/open_store.ts";
import { openRedisContext } from "../../src/scale/redis_context.ts";
import { mainApp } from "../../functions/main.ts";
import { freePort } from "../_poll.ts";
import { IGNORE_POSTGRES } from "../_postgres.ts";
import {
  apiClient,
  assertNoLeak,
  confidentialValues,
  serveCommand,
  startSlowJob,
  untilJobEnds,
} from "../api/_helpers.ts";
import { loadScenario } from "../api/_load.ts";
import { duplicateDelivery } from "./_duplicate_delivery.ts";
import { IGNORE_REDIS, until, type WorkerProcess } from "./_redis.ts";
import { type Stack, startStack } from "./_stack.ts";

const IGNORE = IGNORE_REDIS || IGNORE_POSTGRES;

/**
 * One stack for the file (issue 36; one per test before: a cluster's initdb and start, Redis and
 * two workers, about 3 CPU s), the PostgreSQL run of api_redis_test.ts's duplicate-delivery test
 * included: the crash test runs first and SIGKILLs one of the two workers; the next test adds a
 * fresh one, so that the duplicate deliveries and the load test each have two live workers. Each
 * test works on its own dataset, keys and jobs. Started at the top level so that no test's
 * sanitizer sees the processes; the last test stops it, and a filtered run kills it on exit.
 */
const stack = IGNORE ? null : await startStack(2);
const killStack = () => stack?.kill();
globalThis.addEventListener("unload", killStack);

/** The file's stack (the tests are ignored without it). */
function stackOf(): Stack {
  assert.ok(stack !== null);
  return stack;
}

/** The workers the crash test killed. */
const killed = new Set<WorkerProcess>();

/** Whether a worker process is still running (not one the crash test killed). */
function alive(worker: WorkerProcess): boolean {
  return !killed.has(worker);
}

/** The stack's two live workers, a fresh one started beside any the crash test left alive. */
async function liveWorkers(stack: Stack): Promise<WorkerProcess[]> {
  while (stack.workers.filter(alive).length < 2) await stack.addWorker();
  return stack.workers.filter(alive);
}

/** The API's data directory, which never exists: it has only the two URLs. */
function nowhere(stack: Stack): string {
  return `${stack.dirs[0]}-api-has-none`;
}

/**
 * The API in this process on the stack's two URLs (its data directory never exists), with
 * `settings`, and the log lines it writes.
 */
async function stackApi(
  stack: Stack,
  settings: Record<string, number>,
): Promise<{ context: Awaited<ReturnType<typeof openRedisContext>>; logs: string[] }> {
  const logs: string[] = [];
  const context = await openRedisContext(
    ApiConfig.parse({
      storeUrl: stack.env.PPSYNTH_STORE_URL,
      dataDir: nowhere(stack),
      ...settings,
    }),
    stack.env.PPSYNTH_QUEUE,
    (event, fields = {}) => logs.push(JSON.stringify({ event, ...fields })),
  );
  return { context, logs };
}

/** Every line a subprocess writes, once it has exited. */
function collect(child: Deno.ChildProcess): Promise<string> {
  return Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
    .then((parts) => parts.join("\n"));
}

Deno.test({
  name:
    "PostgreSQL + Redis: a worker and the API SIGKILLed during a job; the other worker completes it, charged once",
  ignore: IGNORE,
  async fn() {
    const stack = stackOf();
    const port = freePort();
    // The API as `deno task serve` with only the two URLs: no PPSYNTH_DATA_DIR.
    const env = { ...stack.env, PORT: String(port), PPSYNTH_HOST: "127.0.0.1" };
    const logs: string[] = [];
    type Server = { child: Deno.ChildProcess; output: Promise<string> };
    let server = null as Server | null;
    const start = () => {
      const child = serveCommand(env, "piped").spawn();
      server = { child, output: collect(child) };
    };
    try {
      // The key in this process (issue 36: `deno task keys` was a subprocess here; that command
      // on this layout is edge_test.ts's).
      const store = await openStore({
        storeUrl: stack.env.PPSYNTH_STORE_URL,
        dataDir: nowhere(stack),
      });
      const key = await createApiKey(store, ["submit", "read", "diagnostics", "admin"], "crash")
        .then(({ secret }) => secret).finally(() => store.close());
      const base = `http://127.0.0.1:${port}`;
      const api = apiClient(base, key);
      start();
      await until("the server", async () => (await fetch(`${base}/healthz`)).ok || undefined);
      const { dataset, id } = await startSlowJob(api);
      const runner = stack.workers.findIndex((worker) =>
        worker.lines.some((line) => line.event === "job_started" && line.job === id)
      );
      assert.ok(runner >= 0, "a worker started the job");
      stack.workers[runner].child.kill("SIGKILL");
      killed.add(stack.workers[runner]);
      server!.child.kill("SIGKILL");
      assert.equal((await server!.child.status).signal, "SIGKILL");
      logs.push(await server!.output);
      start();
      await until("the server again", async () => (await fetch(`${base}/healthz`)).ok || undefined);

      const job = await untilJobEnds(api, id);
      assert.equal(job.status, "succeeded", JSON.stringify(job.error));
      assert.equal(job.attempts, 2, "the interrupted job ran again, on the other worker");
      const survivor = stack.workers[1 - runner];
      // The job is succeeded in the store before the survivor's line about it reaches its stdout.
      await until(
        "the survivor's job_finished line",
        () =>
          survivor.lines.some((line) =>
            line.event === "job_finished" && line.job === id && line.outcome === "released"
          ) || undefined,
        30_000,
      );
      const budget = await api(`/v1/datasets/${dataset.id}/budget`);
      assert.deepEqual(budget.releases.map((r: { jobId: string }) => r.jobId), [id]);
      assert.equal(
        budget.spent,
        1e6,
        "the cap, charged once at acceptance, not again on the retry",
      );
      const diagnostics = await api(`/v1/syntheses/${id}/diagnostics`);
      assert.equal(diagnostics.alpha.length, 200);

      server!.child.kill("SIGTERM");
      assert.equal((await server!.child.status).code, 0, "SIGTERM stops the server cleanly");
      logs.push(await server!.output);
      server = null;

      assert.deepEqual(await stack.strayFiles(), [], "the workers wrote nothing locally");
      logs.push(...stack.workers.flatMap((w) => w.lines.map((line) => JSON.stringify(line))));
      const distinctive = (values: number[]) => values.map(String).filter((v) => v.length >= 8);
      assertNoLeak(logs, [
        ...confidentialValues(200),
        ...distinctive(diagnostics.alpha),
        ...distinctive(diagnostics.recordLipschitz),
        String(diagnostics.seed),
        key,
        stack.postgres.password,
      ]);
    } finally {
      if (server !== null) {
        const { child, output } = server;
        child.kill("SIGKILL");
        await child.status;
        await output;
      }
    }
  },
});

Deno.test({
  name:
    "API submissions on the Redis backend complete on workers; a duplicated delivery is charged once (PostgreSQL store)",
  ignore: IGNORE,
  async fn() {
    const stack = stackOf();
    const workers = await liveWorkers(stack);
    const { context, logs } = await stackApi(stack, { releaseDelayMs: 0 });
    // The API and the workers share nothing but the two URLs.
    await duplicateDelivery({
      context,
      url: stack.env.PPSYNTH_QUEUE,
      workers,
      logs,
      async check() {
        assert.deepEqual(await stack.strayFiles(), [], "the workers wrote nothing locally");
        await assert.rejects(Deno.stat(nowhere(stack)), Deno.errors.NotFound);
        const lines = [
          ...logs,
          ...stack.workers.flatMap((w) => w.lines.map((l) => JSON.stringify(l))),
        ];
        assert.ok(!lines.join("\n").includes(stack.postgres.password), "no log holds the password");
      },
      stop: () => context.close(),
    });
  },
});

Deno.test({
  name:
    "PostgreSQL + Redis: 20 concurrent submissions (each sent twice) complete on two workers, each charged once, no 5xx",
  ignore: IGNORE,
  async fn() {
    const stack = stackOf();
    const live = await liveWorkers(stack);
    const limit = 256 * 1024;
    const { context, logs } = await stackApi(stack, { maxBodyBytes: limit });
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      mainApp(context).fetch,
    );
    try {
      const all = ["submit", "read", "diagnostics", "admin"] as const;
      const key = (await createApiKey(context.store, [...all], "all")).secret;
      const { jobs } = await loadScenario(`http://127.0.0.1:${server.addr.port}`, key, {
        bodyLimit: limit,
      });
      const released = live.map((worker) =>
        worker.lines.filter((line) =>
          line.event === "job_finished" && line.outcome === "released" &&
          jobs.includes(line.job as string)
        ).length
      );
      assert.equal(released[0] + released[1], jobs.length, "each job released once");
      assert.ok(released.every((count) => count > 0), `both workers ran jobs: ${released}`);
      assert.deepEqual(await stack.strayFiles(), [], "the workers wrote nothing locally");
      logs.push(...stack.workers.flatMap((w) => w.lines.map((line) => JSON.stringify(line))));
      assertNoLeak(logs, [...confidentialValues(50), key, stack.postgres.password]);
    } finally {
      await server.shutdown();
      await context.close();
      globalThis.removeEventListener("unload", killStack);
      await stack.stop();
    }
  },
});
