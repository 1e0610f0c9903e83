import assert from "node:assert/strict";
import { createApiKey } from "../../src/api/auth.ts";
import { ApiConfig } from "../../src/jobs/config.ts";
import { type ApiContext, openContext } from "../../src/jobs/context.ts";
import { mainApp } from "../../functions/main.ts";
import { IGNORE_POSTGRES, startPostgres } from "../_postgres.ts";
import { auth, confidentialCsv, QUICK, waitForJob } from "./_helpers.ts";

Deno.test({
  name:
    "two servers with their own pools on one PostgreSQL store (no queue) share the jobs, each released and charged once",
  ignore: IGNORE_POSTGRES,
  async fn() {
    const postgres = await startPostgres();
    const logs: string[] = [];
    const contexts: ApiContext[] = [];
    try {
      for (let k = 0; k < 2; k++) {
        const config = ApiConfig.parse({
          storeUrl: postgres.url,
          dataDir: "/nonexistent/ppsynth-unused",
          workers: 1,
          pollMs: 50,
          progressIntervalMs: 0,
        });
        contexts.push(
          await openContext(config, {
            jobs: true,
            log: (event, fields = {}) => logs.push(JSON.stringify({ server: k, event, ...fields })),
          }),
        );
      }
      const [a, b] = contexts.map(mainApp);
      const key =
        (await createApiKey(contexts[0].store, ["submit", "read", "diagnostics", "admin"], "all"))
          .secret;
      const registered = await a.request(
        "/v1/datasets?epsilonTotal=1000&publicColumns=z&allowUnweighted=true",
        {
          method: "POST",
          headers: auth(key, "text/csv"),
          body: confidentialCsv(40),
        },
      );
      assert.equal(registered.status, 201);
      const datasetId = (await registered.json()).id;
      const ids: string[] = [];
      for (let k = 0; k < 6; k++) {
        const response = await (k % 2 === 0 ? a : b).request("/v1/syntheses", {
          method: "POST",
          headers: auth(key),
          body: JSON.stringify({ ...QUICK, datasetId, epsilon: 100 }),
        });
        assert.equal(response.status, 202);
        ids.push((await response.json()).id);
      }
      for (const id of ids) {
        const job = await waitForJob((path) => b.request(path, { headers: auth(key) }), id);
        assert.equal(job.status, "succeeded", JSON.stringify(job.error));
        assert.equal(job.attempts, 1, "claimed once");
      }
      const released = logs.map((line) => JSON.parse(line)).filter((line) =>
        line.event === "job_finished" && line.outcome === "released"
      );
      assert.deepEqual(released.map((line) => line.job).toSorted(), ids.toSorted());
      const budget = await (await a.request(`/v1/datasets/${datasetId}/budget`, {
        headers: auth(key),
      })).json();
      assert.equal(budget.spent, 600);
      assert.equal(budget.remaining, 400);
    } finally {
      for (const context of contexts) await context.close();
      await postgres.stop();
    }
  },
});
