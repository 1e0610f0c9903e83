/**
 * The edge-shaped deployment: the function files served by `deno serve` with no writable
 * directory at all (`--allow-read`, no `--allow-write`) and no PPSYNTH_DATA_DIR, given only
 * PPSYNTH_STORE_URL and PPSYNTH_QUEUE. They validate, charge, enqueue and serve results; the fits
 * run on two worker processes that share nothing with them but the URLs.
 */
import assert from "node:assert/strict";
import { freePort } from "../_poll.ts";
import { IGNORE_POSTGRES } from "../_postgres.ts";
import { FBS_QUICK, FIELD_SIZES, SLICE_CSV } from "../survey/_reference.ts";
import {
  assertNoLeak,
  confidentialCsv,
  confidentialValues,
  createKeyCommand,
} from "../api/_helpers.ts";
import { IGNORE_REDIS, until } from "./_redis.ts";
import { startStack } from "./_stack.ts";

const ROOT = new URL("../../", import.meta.url);

/** A `deno serve` of one function file, and everything it writes. */
interface Served {
  readonly base: string;
  readonly child: Deno.ChildProcess;
  readonly output: Promise<string>;
}

/**
 * Serves `functions/<file>` with network, environment and read permissions only, and an
 * environment of the two URLs (plus what Deno needs to find its cache).
 */
function serve(file: string, urls: Record<string, string>): Served {
  const port = freePort();
  const keep = ["HOME", "PATH", "DENO_DIR", "XDG_CACHE_HOME"];
  const env: Record<string, string> = { ...urls };
  for (const name of keep) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "serve",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      new URL(`functions/${file}`, ROOT).pathname,
    ],
    cwd: new URL(".", ROOT).pathname,
    clearEnv: true,
    env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
    .then((parts) => parts.join("\n"));
  return { base: `http://127.0.0.1:${port}`, child, output };
}

Deno.test({
  name:
    "edge-shaped: function files with only the two URLs and no write permission complete a synthesis and a table on two workers",
  ignore: IGNORE_REDIS || IGNORE_POSTGRES,
  async fn() {
    const stack = await startStack(2);
    const served: Served[] = [];
    try {
      const key = await createKeyCommand(stack.env, "submit,read,diagnostics,admin", "edge");
      const [main, syntheses, tables] = ["main.ts", "syntheses.ts", "tables.ts"].map((file) => {
        const s = serve(file, stack.env);
        served.push(s);
        return s;
      });
      const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
      const call = async (server: Served, path: string, init?: RequestInit) => {
        const response = await fetch(server.base + path, {
          headers,
          signal: AbortSignal.timeout(30_000),
          ...init,
        });
        assert.ok(response.status < 500, `${path}: ${response.status}`);
        return response;
      };
      const json = async (server: Served, path: string, init?: RequestInit) =>
        await (await call(server, path, init)).json();
      for (const server of served) {
        await until("a function to serve", async () => {
          const health = await fetch(`${server.base}/healthz`, {
            signal: AbortSignal.timeout(5000),
          });
          return health.ok ? true : (await health.body?.cancel(), undefined);
        }, 60_000);
      }

      // The whole service: register a dataset, submit a synthesis (charged, enqueued).
      const dataset = await json(main, "/v1/datasets", {
        method: "POST",
        body: JSON.stringify({
          epsilonTotal: 1e6,
          csv: confidentialCsv(80),
          publicColumns: ["z"],
          allowUnweighted: true,
        }),
      });
      const synthesis = await json(main, "/v1/syntheses", {
        method: "POST",
        body: JSON.stringify({
          datasetId: dataset.id,
          y: "y",
          x: ["z"],
          model: "normal",
          mechanism: "unweighted",
          epsilon: 5000,
          m: 2,
          draws: 4000,
          chains: 4,
          warmup: 300,
        }),
      });
      assert.equal(synthesis.status, "queued");
      // The tables function alone: an fbs table on a registered survey sample.
      const survey = await json(main, "/v1/datasets", {
        method: "POST",
        body: JSON.stringify({
          epsilonTotal: 100,
          csv: SLICE_CSV,
          publicColumns: ["field", "gender"],
          // FBS counts need the public population sizes of the strata.
          stratumSizes: { field: FIELD_SIZES },
          // fbs takes log y and log w: positive declared lower bounds (issue 34).
          bounds: { salary: [1, 1e7], w: [0.5, 1e5] },
        }),
      });
      const table = await json(tables, "/v1/tables", {
        method: "POST",
        body: JSON.stringify({
          datasetId: survey.id,
          y: "salary",
          weight: "w",
          strata: "field",
          by: ["field", "gender"],
          ...FBS_QUICK,
        }),
      });
      assert.equal(table.status, "queued");

      // The syntheses function alone serves the result the workers released.
      const done = await until("the synthesis", async () => {
        const job = await json(syntheses, `/v1/syntheses/${synthesis.id}`);
        return job.status === "succeeded" || job.status === "failed" ? job : undefined;
      });
      assert.equal(done.status, "succeeded", JSON.stringify(done.error));
      const csv = await call(syntheses, `/v1/syntheses/${synthesis.id}/datasets/2`);
      assert.equal((await csv.text()).trim().split("\n").length, 81);
      const tableDone = await until("the table", async () => {
        const job = await json(tables, `/v1/tables/${table.id}`);
        return job.status === "succeeded" || job.status === "failed" ? job : undefined;
      });
      assert.equal(tableDone.status, "succeeded", JSON.stringify(tableDone.error));
      assert.equal(tableDone.table.rows.length, 27);
      assert.ok(tableDone.report.epsilon <= 99);

      // Charged once each, at acceptance, whatever process read the ledger.
      const budget = await json(main, `/v1/datasets/${dataset.id}/budget`);
      assert.deepEqual(budget.releases.map((r: { jobId: string }) => r.jobId), [synthesis.id]);
      assert.equal(budget.spent, 5000);
      const viaMain = await json(main, `/v1/datasets/${survey.id}/budget`);
      assert.deepEqual(viaMain.releases.map((r: { jobId: string }) => r.jobId), [table.id]);
      assert.equal(viaMain.spent, 99);

      const ran = stack.workers.flatMap((worker) =>
        worker.lines.filter((line) => line.event === "job_finished").map((line) => line.job)
      );
      assert.deepEqual(ran.toSorted(), [synthesis.id, table.id].toSorted(), "the workers ran both");
      assert.deepEqual(await stack.strayFiles(), [], "the workers wrote nothing locally");
      for (const server of served) server.child.kill("SIGTERM");
      const logs = await Promise.all(served.map((server) => server.output));
      assert.ok(logs.join("\n").includes('"event":"request"'), "the functions logged requests");
      for (const server of served) await server.child.status;
      served.length = 0;
      logs.push(...stack.workers.flatMap((w) => w.lines.map((line) => JSON.stringify(line))));
      assertNoLeak(logs, [...confidentialValues(80), key, stack.postgres.password]);
    } catch (error) {
      // What the functions wrote says why (nothing confidential: the log holds no values).
      for (const server of served) server.child.kill("SIGKILL");
      const outputs = await Promise.all(served.map((server) => server.output));
      served.length = 0;
      throw new Error(`${(error as Error).message}\n${outputs.join("\n---\n")}`, {
        cause: error,
      });
    } finally {
      for (const server of served) {
        server.child.kill("SIGKILL");
        await server.child.status;
        await server.output;
      }
      await stack.stop();
    }
  },
});
