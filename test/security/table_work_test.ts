/**
 * Issue 22: a 600 × 600-cell inline Laplace table was computed on the request thread, blocking
 * the server's event loop (/healthz waited 40 s), and nothing bounded a table's cells. A Laplace
 * table is now computed in a worker (of many cells, as a job), and a table of more than
 * PPSYNTH_MAX_TABLE_CELLS cells is refused 422 too_much_work.
 */
import assert from "node:assert/strict";
import { configFromEnv } from "../../src/jobs/config.ts";
import { freePort, until } from "../_poll.ts";
import { createKeyCommand, serveCommand, serveEnv } from "../api/_helpers.ts";
import * as h from "./_helpers.ts";

/** Records whose two `by` columns have `levels` levels each, in strata of `perStratum` units. */
function wide(levels: number, perStratum = 12): Record<string, string | number>[] {
  return Array.from({ length: levels }, (_, i) => ({
    a: `a${i}`,
    b: `b${(i * 7) % levels}`,
    s: `s${Math.floor(i / perStratum)}`,
    y: 1000 + ((i * 7919) % 5000),
    w: 1 + (i % 5),
  }));
}

const COLUMNS = { y: "y", weight: "w", strata: "s", by: ["a", "b"] };

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("table work: /healthz answers within 2 s while a 600 × 600-cell inline laplace table is computed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ppsynth_table_work_" });
  const port = freePort();
  const env = serveEnv(dir, port);
  const base = `http://127.0.0.1:${port}`;
  const key = await createKeyCommand(env, "submit,read", "analyst");
  const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
  const server = serveCommand(env, "null").spawn();
  let posted: Promise<{ status: number; body: Record<string, unknown> } | null> = Promise
    .resolve(null);
  try {
    await until("the server", async () => {
      const response = await fetch(`${base}/healthz`);
      await response.body?.cancel();
      return response.ok || undefined;
    }, 60_000);
    // The attack: 601 × 601 = 361,201 cells of secure noise (and replicates) in one request.
    posted = fetch(`${base}/v1/tables`, {
      method: "POST",
      headers,
      body: JSON.stringify({ ...COLUMNS, method: "laplace", epsilon: 1, records: wide(600) }),
    }).then(async (response) => ({ status: response.status, body: await response.json() }))
      .catch(() => null);
    const answer = await Promise.race([posted, delay(3000).then(() => null)]);
    const location = answer?.status === 202 ? String(answer.body.location) : null;
    if (location !== null) {
      await until("the table job to run", async () => {
        const job = await (await fetch(base + location, { headers })).json();
        return job.status === "running" || undefined;
      }, 20_000);
    } else {
      await delay(300);
    }
    const waits: number[] = [];
    for (let k = 0; k < 5; k++) {
      const start = performance.now();
      try {
        const response = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) });
        await response.body?.cancel();
        waits.push(response.ok ? performance.now() - start : Infinity);
      } catch {
        waits.push(Infinity);
      }
      await delay(100);
    }
    assert.ok(
      waits.every((ms) => ms < 2000),
      `/healthz waited ${waits.map((ms) => ms.toFixed(0)).join(", ")} ms while the table ran`,
    );
    assert.equal(answer?.status, 202, "a table of 361,201 cells runs as a job");
    const job = await (await fetch(base + location, { headers })).json();
    assert.equal(job.status, "running", "the table was still being computed");
  } finally {
    server.kill("SIGKILL");
    await server.status;
    await posted;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("table work: a table of more than PPSYNTH_MAX_TABLE_CELLS cells is refused 422 too_much_work, uncharged", async () => {
  const t = await h.testApp({ maxTableCells: 1000 } as Record<string, number>, false);
  try {
    const { owner, analyst } = await h.tenantKeys(t);
    // 41 × 41 = 1681 cells (margins included) > 1000.
    const request = { ...COLUMNS, method: "laplace", epsilon: 1 };
    await h.assertRefused(
      t,
      await h.post(t, "/v1/tables", analyst, { ...request, records: wide(40, 2) }),
      { status: 422, code: "too_much_work", field: "by" },
      analyst,
      "an inline table of 1681 cells",
    );
    const { id: datasetId } = await h.register(t, owner, {
      epsilonTotal: 10,
      records: wide(40, 2),
      publicColumns: ["a", "b", "s"],
      bounds: { y: [0, 10_000], w: [0, 10] },
    });
    await h.assertRefused(
      t,
      await h.post(t, "/v1/tables", analyst, { ...request, datasetId }),
      { status: 422, code: "too_much_work", field: "by" },
      analyst,
      "a registered table of 1681 cells",
    );
    const budget = await (await h.get(t, `/v1/datasets/${datasetId}/budget`, analyst)).json();
    assert.equal(budget.spent, 0, "a refused table is not charged");
    // 31 × 31 = 961 cells fit.
    const fits = await h.post(t, "/v1/tables", analyst, { ...request, records: wide(30, 2) });
    assert.equal(fits.status, 200, JSON.stringify(await fits.clone().json()).slice(0, 300));
    assert.equal((await fits.json()).rows.length, 961);
  } finally {
    await t.close();
  }
  assert.equal(
    (configFromEnv((name) => name === "PPSYNTH_MAX_TABLE_CELLS" ? "1000" : undefined) as Record<
      string,
      unknown
    >).maxTableCells,
    1000,
    "PPSYNTH_MAX_TABLE_CELLS sets the cap",
  );
});
