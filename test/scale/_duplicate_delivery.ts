/**
 * The duplicate-delivery scenario of the Redis backend, run on each kind of store: the SQLite one
 * in api_redis_test.ts, the PostgreSQL one on api_postgres_test.ts's stack (issue 36: its own
 * PostgreSQL, Redis and two workers before, about 3 CPU s).
 *
 * @module
 */
import assert from "node:assert/strict";
import { createApiKey } from "../../src/api/auth.ts";
import { apiJobKey } from "../../src/scale/scale_jobs.ts";
import { ScaleQueues } from "../../src/scale/scale_queues.ts";
import type { openRedisContext } from "../../src/scale/redis_context.ts";
import { mainApp } from "../../functions/main.ts";
import { auth, confidentialCsv, QUICK, waitForJob } from "../api/_helpers.ts";
import { until, type WorkerProcess } from "./_redis.ts";
import { outcomes as finished } from "./_stack.ts";

/** The API (in this process), its store and queue, and two live workers, on one kind of store. */
export interface DeliverySetup {
  readonly context: Awaited<ReturnType<typeof openRedisContext>>;
  readonly url: string;
  readonly workers: readonly WorkerProcess[];
  readonly logs: string[];
  /** Checks what the store kind promises of the workers' directories. */
  check(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * API submissions complete on the workers; the same job delivered twice more at once, and a fresh
 * job delivered twice at once, are each released and charged once. Stops the setup.
 *
 * @param setup The store, queue and workers.
 */
export async function duplicateDelivery(setup: DeliverySetup): Promise<void> {
  const { context, url, workers, logs, check, stop } = setup;
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
}
