import assert from "node:assert/strict";
import { createApiKey } from "../../src/api/auth.ts";
import { ApiConfig } from "../../src/jobs/config.ts";
import { apiJobKey } from "../../src/scale/scale_jobs.ts";
import { ScaleQueues } from "../../src/scale/scale_queues.ts";
import { openRedisContext, queueUrlFromEnv } from "../../src/scale/redis_context.ts";
import { mainApp } from "../../functions/main.ts";
import { auth, confidentialCsv, QUICK, waitForJob } from "../api/_helpers.ts";
import { IGNORE_POSTGRES } from "../_postgres.ts";
import { IGNORE_REDIS, startRedis, startWorker, stopWorker, until } from "./_redis.ts";
import { outcomes as finished, startStack } from "./_stack.ts";

Deno.test("`queueUrlFromEnv()` selects Redis by PPSYNTH_QUEUE and refuses other URLs", () => {
  assert.equal(queueUrlFromEnv(() => undefined), null);
  assert.equal(queueUrlFromEnv(() => ""), null);
  assert.equal(queueUrlFromEnv(() => "redis://10.0.0.5:6379/2"), "redis://10.0.0.5:6379/2");
  assert.throws(() => queueUrlFromEnv(() => "http://x:6379"), /PPSYNTH_QUEUE/);
});

/** The API (in this process), its store and queue, and two workers, on one kind of store. */
interface Setup {
  readonly context: Awaited<ReturnType<typeof openRedisContext>>;
  readonly url: string;
  readonly workers: ReturnType<typeof startWorker>[];
  readonly logs: string[];
  /** Checks what the store kind promises of the workers' directories. */
  check(): Promise<void>;
  stop(): Promise<void>;
}

/** The embedded store in one data directory, shared by the API and both workers. */
async function sqliteSetup(): Promise<Setup> {
  const redis = await startRedis();
  const dir = await Deno.makeTempDir({ prefix: "ppsynth_scale_" });
  const logs: string[] = [];
  const context = await openRedisContext(
    ApiConfig.parse({ dataDir: dir, releaseDelayMs: 0 }),
    redis.url,
    (event, fields = {}) => logs.push(JSON.stringify({ event, ...fields })),
  );
  const env = { PPSYNTH_DATA_DIR: dir };
  const workers = [startWorker(redis.url, env), startWorker(redis.url, env)];
  return {
    context,
    url: redis.url,
    workers,
    logs,
    async check() {},
    async stop() {
      await Promise.all(workers.map(stopWorker));
      await context.close();
      await redis.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/**
 * PostgreSQL: the API and two workers share nothing but the two URLs (each worker has its own
 * data directory, which stays empty, and the API's data directory does not even exist).
 */
async function postgresSetup(): Promise<Setup> {
  const stack = await startStack(2);
  const logs: string[] = [];
  const nowhere = `${stack.dirs[0]}-api-has-none`;
  const context = await openRedisContext(
    ApiConfig.parse({
      dataDir: nowhere,
      storeUrl: stack.env.PPSYNTH_STORE_URL,
      releaseDelayMs: 0,
    }),
    stack.env.PPSYNTH_QUEUE,
    (event, fields = {}) => logs.push(JSON.stringify({ event, ...fields })),
  ).catch(async (error) => {
    await stack.stop();
    throw error;
  });
  return {
    context,
    url: stack.env.PPSYNTH_QUEUE,
    workers: stack.workers,
    logs,
    async check() {
      assert.deepEqual(await stack.strayFiles(), [], "the workers wrote nothing locally");
      await assert.rejects(Deno.stat(nowhere), Deno.errors.NotFound);
      const lines = [
        ...logs,
        ...stack.workers.flatMap((w) => w.lines.map((l) => JSON.stringify(l))),
      ];
      assert.ok(!lines.join("\n").includes(stack.postgres.password), "no log holds the password");
    },
    async stop() {
      await context.close();
      await stack.stop();
    },
  };
}

for (
  const [store, setup, ignore] of [
    ["SQLite", sqliteSetup, IGNORE_REDIS],
    ["PostgreSQL", postgresSetup, IGNORE_REDIS || IGNORE_POSTGRES],
  ] as const
) {
  Deno.test({
    name:
      `API submissions on the Redis backend complete on workers; a duplicated delivery is charged once (${store} store)`,
    ignore,
    async fn() {
      const { context, url, workers, logs, check, stop } = await setup();
      const queues = new ScaleQueues(url);
      try {
        assert.equal(context.pool, null, "the API process runs no jobs itself");
        const app = mainApp(context);
        const key = (await createApiKey(context.store, ["submit", "read", "admin"], "all")).secret;
        const get = (path: string) => app.request(path, { headers: auth(key) });
        const registered = await app.request(
          "/v1/datasets?epsilonTotal=1000000&publicColumns=z&allowUnweighted=true",
          { method: "POST", headers: auth(key, "text/csv"), body: confidentialCsv(80) },
        );
        assert.equal(registered.status, 201);
        const dataset = (await registered.json()).id;
        const submit = async (epsilon: number) => {
          const response = await app.request("/v1/syntheses", {
            method: "POST",
            headers: auth(key),
            body: JSON.stringify({ ...QUICK, datasetId: dataset, epsilon, m: 2 }),
          });
          assert.equal(response.status, 202, logs.slice(-3).join("\n"));
          return (await response.json()).id as string;
        };
        const ids = [await submit(1000), await submit(2000)];
        for (const id of ids) {
          const job = await waitForJob(get, id);
          assert.equal(job.status, "succeeded", JSON.stringify(job.error));
          const csv = await get(`/v1/syntheses/${id}/datasets/2`);
          assert.equal(csv.status, 200);
          assert.match(await csv.text(), /^y,z\n/);
        }

        // The same job delivered twice more, at once, to both workers (as a redelivery after a
        // lost lock would be): nothing runs to a second release, nothing is charged again.
        const first = ids[0];
        const before = await (await get(`/v1/datasets/${dataset}/budget`)).json();
        await queues.add({ kind: "api", jobId: first }, `${apiJobKey(first)}-again-1`);
        await queues.add({ kind: "api", jobId: first }, `${apiJobKey(first)}-again-2`);
        // A fresh job also delivered twice at once: one delivery releases it, the other not.
        const third = await submit(4000);
        await queues.add({ kind: "api", jobId: third }, `${apiJobKey(third)}-again`);
        const job = await waitForJob(get, third);
        assert.equal(job.status, "succeeded", JSON.stringify(job.error));
        await until(
          "both extra deliveries of the first job",
          () => finished(workers, first).length === 3 ? true : undefined,
        );
        assert.deepEqual(finished(workers, first).toSorted(), [
          "already_finished",
          "already_finished",
          "released",
        ]);
        await until(
          "both deliveries of the third job",
          () => finished(workers, third).length === 2 ? true : undefined,
        );
        assert.equal(finished(workers, third).filter((o) => o === "released").length, 1);
        const budget = await (await get(`/v1/datasets/${dataset}/budget`)).json();
        assert.deepEqual(
          budget.releases.map((r: { jobId: string }) => r.jobId),
          [...before.releases.map((r: { jobId: string }) => r.jobId), third],
        );
        assert.deepEqual(
          budget.releases.map((r: { jobId: string }) => r.jobId).toSorted(),
          [...ids, third].toSorted(),
        );
        assert.equal(budget.spent, 7000, "each job's cap charged once, at acceptance");
        await check();
      } finally {
        await queues.close();
        await stop();
      }
    },
  });
}
