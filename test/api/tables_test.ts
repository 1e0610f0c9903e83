import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { parseTabulateArgs, TabulateOptions } from "../../src/cli/tabulate.ts";
import { UsageError } from "../../src/cli/run_command.ts";
import { formatTable, runTableMethod } from "../../src/survey/table_methods.ts";
import { parseCsv } from "../../src/data/csv.ts";
import { SqliteJobStore } from "../../src/jobs/sqlite_store.ts";
import { FBS_QUICK, FIELD_SIZES, SAMPLE_CSV, SLICE_CSV } from "../survey/_reference.ts";
import { assertNoLeak, auth, closing, postJson, type TestApp, testApp } from "./_helpers.ts";

// The R-checked survey sample (Rscript test/reference/survey_tables.R, R 4.2.2, survey 4.1.1).
const REFERENCE = new URL("../reference/", import.meta.url);
const EXPECTED: Record<string, string | number>[] = JSON.parse(
  await Deno.readTextFile(new URL("survey_tables_expected.json", REFERENCE)),
).cells;

const COLUMNS = { y: "salary", weight: "w", strata: "field", by: ["field", "gender"] };

/** The design columns the owner declares public when registering the sample. */
const PUBLIC = ["field", "gender"];

/** The public bounds of salary and w the owner declares for Laplace tables. */
const BOUNDS = { salary: [0, 600_000], w: [0, 1000] };

/** fbs and fbp take log y and log w: positive lower bounds (issue 34), below every value. */
const FBS_BOUNDS = { salary: [1, 1e7], w: [0.5, 1e5] };

/** Registers the slice as the owner (admin key) with the given budget and policy; its id. */
async function registerSlice(t: TestApp, body: Record<string, unknown>): Promise<string> {
  const response = await t.app.request("/v1/datasets", {
    method: "POST",
    headers: auth(t.keys.admin),
    body: JSON.stringify({ csv: SLICE_CSV, ...body }),
  });
  return (await response.json()).id;
}

/** {@linkcode registerSlice} with the design columns public, a budget of `epsilonTotal` and `policy`. */
function registerPublic(
  t: TestApp,
  epsilonTotal: number,
  policy: Record<string, unknown> = {},
): Promise<string> {
  return registerSlice(t, { epsilonTotal, publicColumns: PUBLIC, ...policy });
}

/** GET `path` from t's app with `key` (the read key unless another is given). */
function getter(t: TestApp): (path: string, key?: string) => Promise<Response> {
  return async (path, key = t.keys.read) => await t.app.request(path, { headers: auth(key) });
}

/** Polls a table job until it has finished. */
async function finished(t: TestApp, location: string) {
  for (;;) {
    const job = await (await t.app.request(location, { headers: auth(t.keys.read) })).json();
    if (job.status === "succeeded" || job.status === "failed") return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The rows `deno task tabulate --out FILE.json` writes for the same options. */
async function commandRows(csv: string, options: Record<string, unknown>) {
  const parsed = TabulateOptions.parse({
    ...options,
    by: (options.by as string[]).join(","),
    data: "request.csv",
    out: "tables.json",
  });
  const { table } = await runTableMethod(parseCsv(csv, "request.csv"), parsed);
  return JSON.parse(formatTable(table, "json"));
}

Deno.test("`POST /v1/tables` sample reproduces R's survey package, needs diagnostics and charges nothing", async () => {
  const t = await testApp({}, false);
  const { app, keys } = t;
  await closing(t, async () => {
    const registered = await app.request(
      "/v1/datasets?epsilonTotal=5&name=survey&publicColumns=field,gender",
      {
        method: "POST",
        headers: auth(keys.admin, "text/csv"),
        body: SAMPLE_CSV,
      },
    );
    const { id: datasetId } = await registered.json();
    const ask = (key: string) =>
      postJson(t, "/v1/tables", key, { ...COLUMNS, datasetId, method: "sample" });
    const refused = await ask(keys.submit);
    assert.equal(refused.status, 403);
    assert.match((await refused.json()).error.message, /"diagnostics" scope/);
    const response = await ask(keys.diagnostics);
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.equal(body.id, undefined, "nothing is kept");
    assert.equal(body.privacy, null);
    assert.deepEqual(body.by, ["field", "gender"]);
    assert.equal(body.rows.length, 27);
    assert.deepEqual(body.rows[0].field, "all");
    for (const cell of EXPECTED) {
      const row = body.rows.find((r: Record<string, unknown>) =>
        r.field === cell.field && r.gender === cell.gender
      );
      assert.ok(row, `${cell.field}/${cell.gender} missing`);
      for (const key of ["count", "countSE", "mean", "meanSE"]) {
        assert.ok(
          Math.abs(row[key] / (cell[key] as number) - 1) < 1e-8,
          `${cell.field}/${cell.gender} ${key}`,
        );
      }
    }
    const budget = await (await app.request(`/v1/datasets/${datasetId}/budget`, {
      headers: auth(keys.read),
    })).json();
    assert.deepEqual([budget.spent, budget.releases], [0, []]);
    const doc = await (await app.request("/openapi.json", { headers: auth(keys.read) })).json();
    assert.ok(doc.paths["/v1/tables"].post.responses["202"], "openapi.json documents the job");
    assert.ok(doc.paths["/v1/tables/{id}"].get);
  });
});

Deno.test("`POST /v1/tables` laplace gives the command's rows, charges ε once per request id, and 409s past the budget", async () => {
  const t = await testApp({}, false);
  const { app, keys } = t;
  const get = getter(t);
  await closing(t, async () => {
    const datasetId = await registerPublic(t, 10, { bounds: BOUNDS });
    const request = { ...COLUMNS, method: "laplace", epsilon: 4 };
    const post = (body: unknown, idempotencyKey: string, key = keys.submit) =>
      postJson(t, "/v1/tables", key, body, idempotencyKey);
    assert.equal((await post({ ...request, datasetId }, "t-1", keys.read)).status, 403);
    const seeded = await post({ ...request, datasetId, seed: 7 }, "t-0");
    assert.equal(seeded.status, 422, "no seed on a registered dataset");
    assert.equal((await seeded.json()).error.code, "seed_not_allowed");
    const first = await post({ ...request, datasetId }, "t-1");
    assert.equal(first.status, 200);
    const table = await first.json();
    assert.equal(first.headers.get("location"), `/v1/tables/${table.id}`);
    assert.equal(table.rows.length, 27);
    assert.deepEqual(table.privacy, {
      epsilon: 4,
      guarantee: "DP",
      neighbours: "add-remove",
      seedPolicy: "fresh: a secret seed drawn from the operating system's CSPRNG, not released",
      epsilonPoint: 4 / 8,
      replicates: 0,
      bounds: { y: BOUNDS.salary, weight: BOUNDS.w },
    });
    assert.ok(table.rows.every((row: Record<string, unknown>) => row.countSE === null));

    const retry = await post({ ...request, datasetId }, "t-1");
    assert.equal(retry.status, 200);
    assert.deepEqual(await retry.json(), table, "a retry returns the stored table");
    const reused = await post({ ...request, datasetId, epsilon: 3 }, "t-1");
    assert.equal(reused.status, 422);
    const budget1 = await (await get(`/v1/datasets/${datasetId}/budget`)).json();
    assert.equal(budget1.spent, 4);
    assert.deepEqual(budget1.releases.map((r: { jobId: string }) => r.jobId), [table.id]);

    const stored = await (await get(`/v1/tables/${table.id}`)).json();
    assert.equal(stored.status, "succeeded");
    assert.equal(stored.datasetId, datasetId);
    assert.deepEqual(stored.table, {
      method: "laplace",
      by: table.by,
      rows: table.rows,
      privacy: table.privacy,
    });
    assert.equal((await get("/v1/tables/nope")).status, 404);

    // A fresh request (secure noise) charges again; the third no longer fits in ε_total = 10.
    const fresh = await post({ ...COLUMNS, datasetId, method: "laplace", epsilon: 4 }, "t-2");
    assert.equal(fresh.status, 200);
    assert.match((await fresh.json()).privacy.seedPolicy, /^fresh/);
    const over = await post({ ...COLUMNS, datasetId, method: "laplace", epsilon: 4 }, "t-3");
    assert.equal(over.status, 409);
    assert.equal((await over.json()).error.code, "budget_exceeded");
    const budget2 = await (await get(`/v1/datasets/${datasetId}/budget`)).json();
    assert.equal(budget2.spent, 8);
    assert.equal(budget2.releases.length, 2);

    // Inline data (the caller's own) have no budget and may be seeded: the command's rows.
    const inlineRequest = { ...request, seed: 7 };
    const inline = await post({ ...inlineRequest, csv: SLICE_CSV }, "t-4");
    assert.equal(inline.status, 200);
    const inlineTable = await inline.json();
    assert.deepEqual(inlineTable.rows, await commandRows(SLICE_CSV, inlineRequest));
    assert.equal(inlineTable.privacy.guarantee, "local DP", "inline data without bounds");
    // …and may carry bounds (the bounded mode): the command's rows with --y-bounds/--weight-bounds.
    const bounds = { y: [0, 100_000], weight: [0, 200] };
    const bounded = await post({ ...inlineRequest, bounds, csv: SLICE_CSV }, "t-5");
    assert.equal(bounded.status, 200);
    const boundedTable = await bounded.json();
    assert.equal(boundedTable.privacy.guarantee, "DP");
    const { table: command } = await runTableMethod(
      parseCsv(SLICE_CSV, "request.csv"),
      parseTabulateArgs([
        ...Object.entries({ ...COLUMNS, by: COLUMNS.by.join(","), method: "laplace" })
          .flatMap(([flag, value]) => [`--${flag}`, String(value)]),
        "--epsilon=4",
        "--seed=7",
        "--y-bounds=0,100000",
        "--weight-bounds=0,200",
        "--data=request.csv",
        "--out=t.json",
      ]),
    );
    assert.deepEqual(boundedTable.rows, JSON.parse(formatTable(command, "json")));
    // The clamped values are the caller's diagnostics, never in the table.
    const clamped = await (await app.request(`/v1/tables/${boundedTable.id}/diagnostics`, {
      headers: auth(keys.diagnostics),
    })).json();
    assert.ok(clamped.clamped.salary > 0 && clamped.clamped.w > 0, JSON.stringify(clamped));
    assert.ok(!JSON.stringify(boundedTable).includes("clamped"));
    // The policy sets a registered dataset's bounds.
    const own = await post({ ...request, datasetId, bounds }, "t-6");
    assert.equal(own.status, 422);
    assert.deepEqual((await own.json()).error.field, "bounds");
    const values = SLICE_CSV.split("\n").slice(1, 40).flatMap((line) => line.split(",").slice(2));
    assertNoLeak(t.logs, values);
  });
});

Deno.test("`POST /v1/tables` fbs counts without stratum sizes are refused (422 stratum_sizes_required), never ~10% low; means-only asks are accepted", async () => {
  const t = await testApp({}, false);
  const { app, keys } = t;
  await closing(t, async () => {
    const datasetId = await registerPublic(t, 100, { bounds: FBS_BOUNDS });
    const request = { ...COLUMNS, method: "fbs", epsilon: 50, m: 1 };
    const post = (body: unknown) => postJson(t, "/v1/tables", keys.submit, body);
    for (
      const [label, body, field] of [
        ["registered, no sizes in the policy", { ...request, datasetId }, "strata"],
        ["inline, no stratumSizes", { ...request, csv: SLICE_CSV }, "stratumSizes"],
        [
          "inline, counts asked for explicitly",
          { ...request, csv: SLICE_CSV, estimates: "counts-and-means" },
          "stratumSizes",
        ],
      ] as const
    ) {
      const response = await post(body);
      assert.equal(response.status, 422, label);
      const { error } = await response.json();
      assert.equal(error.code, "stratum_sizes_required", label);
      assert.equal(error.field, field, label);
      assert.match(error.message, /fbs counts and totals need .*estimates "means"/, label);
    }
    const budget = await (await app.request(`/v1/datasets/${datasetId}/budget`, {
      headers: auth(keys.read),
    })).json();
    assert.equal(budget.spent, 0, "a refused request is not charged");
    // The means alone need no sizes: accepted as a job (run in the library test).
    const means = await post({ ...request, datasetId, estimates: "means" });
    assert.equal(means.status, 202);
    await means.body?.cancel();
    const bad = await post({ ...request, csv: SLICE_CSV, estimates: "totals" });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.field, "estimates");
    // A synthesis id is not a table: an accepted synthesis's id (a job no worker runs here).
    const synthesis = await postJson(t, "/v1/syntheses", keys.submit, {
      y: "salary",
      model: "lognormal",
      mechanism: "lw",
      epsilon: 0.5,
      datasetId,
    });
    assert.equal(synthesis.status, 202);
    const synthesisId = (await synthesis.json()).id;
    const get = getter(t);
    assert.equal((await get(`/v1/syntheses/${synthesisId}`)).status, 200);
    assert.equal((await get(`/v1/tables/${synthesisId}`)).status, 404);
  });
});

Deno.test("`POST /v1/tables` fbs runs as a table job: the command's rows, its cap charged at acceptance", async () => {
  const t = await testApp({ workers: 1 });
  const { keys } = t;
  const get = getter(t);
  await closing(t, async () => {
    const datasetId = await registerPublic(t, 100, {
      stratumSizes: { field: FIELD_SIZES },
      bounds: FBS_BOUNDS,
    });
    const request = { ...COLUMNS, ...FBS_QUICK };
    const refused = await postJson(t, "/v1/tables", keys.submit, {
      ...request,
      datasetId,
      epsilon: 101,
    });
    assert.equal(refused.status, 409, "ε above the whole budget is refused up front");
    const accepted = await postJson(t, "/v1/tables", keys.submit, { ...request, datasetId });
    assert.equal(accepted.status, 202);
    const { id, location } = await accepted.json();
    assert.equal(location, `/v1/tables/${id}`);
    const job = await finished(t, location);
    assert.equal(job.status, "succeeded", JSON.stringify(job.error));
    assert.equal(job.table.rows.length, 27);
    assert.ok(job.table.rows.every((row: Record<string, unknown>) => "meanUpper" in row));
    assert.equal(job.report.model, "fbs");
    assert.equal(job.report.m, 2);
    // The synthetic weights are scaled to the declared population: the grand total is Σ N_h.
    const population = Object.values(FIELD_SIZES).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(job.table.rows[0].count / population - 1) < 1e-9, job.table.rows[0].count);
    assert.equal(job.table.privacy.epsilon, job.report.epsilon);
    assert.ok(job.report.epsilon <= 99);
    const budget = await (await get(`/v1/datasets/${datasetId}/budget`)).json();
    assert.deepEqual(budget.releases.map((r: { jobId: string }) => r.jobId), [id]);
    assert.equal(budget.spent, 99, "the cap, charged at acceptance");
    // Inline and seeded (the caller's own data): the command's rows. 1,600 draws (issue 36): at
    // seed 3 these fits pass the release checks (test/survey/fbs_sizes_test.ts runs this very
    // request), and the claim is an equality at a fixed seed, whatever the fits' length.
    const seeded = { ...request, draws: 1600, seed: 3, stratumSizes: FIELD_SIZES };
    const inline = await postJson(t, "/v1/tables", keys.submit, { ...seeded, csv: SLICE_CSV });
    assert.equal(inline.status, 202);
    const inlineLocation = (await inline.json()).location;
    const inlineJob = await finished(t, inlineLocation);
    assert.equal(inlineJob.status, "succeeded", JSON.stringify(inlineJob.error));
    assert.deepEqual(inlineJob.table.rows, await commandRows(SLICE_CSV, seeded));
  });
});

Deno.test("`POST /v1/tables` fbp on a registered dataset takes its stratum sizes from the policy", async () => {
  const t = await testApp({ workers: 1 });
  const { keys } = t;
  await closing(t, async () => {
    const fields = [...new Set(SLICE_CSV.trim().split("\n").slice(1).map((l) => l.split(",")[0]))];
    const sizes = Object.fromEntries(fields.map((field, h) => [field, 10_000 + 1000 * h]));
    const datasetId = await registerPublic(t, 100, {
      stratumSizes: { field: sizes },
      bounds: FBS_BOUNDS,
    });
    const request = {
      ...COLUMNS,
      datasetId,
      method: "fbp",
      epsilon: 99,
      m: 2,
      draws: 4000,
      chains: 4,
      warmup: 300,
    };
    const post = (body: unknown) => postJson(t, "/v1/tables", keys.submit, body);
    const own = await post({ ...request, stratumSizes: sizes });
    assert.equal(own.status, 422, "the policy sets the sizes, not the request");
    assert.equal((await own.json()).error.code, "set_by_policy");
    const accepted = await post(request);
    assert.equal(accepted.status, 202);
    const { location } = await accepted.json();
    const job = await finished(t, location);
    assert.equal(job.status, "succeeded", JSON.stringify(job.error));
    assert.equal(job.report.model, "fbp");
    assert.equal(job.table.rows.length, 27);
  });
});

Deno.test("`POST /v1/tables` names the field at fault and never echoes a value", async () => {
  const t = await testApp({}, false);
  const { keys } = t;
  await closing(t, async () => {
    const datasetId = await registerSlice(t, { epsilonTotal: 10 });
    const bad = async (body: Record<string, unknown>, status: number, field?: string) => {
      const response = await postJson(t, "/v1/tables", keys.all, {
        ...COLUMNS,
        method: "laplace",
        epsilon: 1,
        ...body,
      });
      assert.equal(response.status, status, JSON.stringify(body));
      const { error } = await response.json();
      if (field !== undefined) assert.equal(error.field, field);
      return error.message as string;
    };
    await bad({ datasetId, by: ["field"] }, 400, "by");
    await bad({ datasetId, by: ["field", "field"] }, 400, "by");
    await bad({ datasetId, by: ["field", "count"] }, 400, "by");
    await bad({ datasetId, epsilon: undefined }, 400, "epsilon");
    await bad({ csv: SLICE_CSV, method: "fbp" }, 400, "stratumSizes");
    await bad({ datasetId, method: "fbs", m: 30, draws: 20 }, 400, "m");
    await bad({ datasetId, method: "magic" }, 400, "method");
    await bad({ datasetId, out: "x.json" }, 400);
    await bad({ datasetId, by: ["field", "sex"] }, 400, "by.1");
    await bad({ datasetId: "nope" }, 404, "datasetId");
    await bad({ datasetId, csv: SLICE_CSV }, 400, "datasetId");
    const lines = SLICE_CSV.trim().split("\n");
    const cells = lines[4].split(",");
    lines[4] = [...cells.slice(0, 3), "-1"].join(",");
    const message = await bad({ csv: lines.join("\n") }, 400);
    assert.match(message, /row 4 \(line 5\), column "w": survey weights must be non-negative/);
    assert.ok(!message.includes(cells[2]), "no salary in the message");
  });
});

Deno.test("an older store (no job kinds) opens with its jobs as syntheses", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ppsynth_migrate_" });
  try {
    // The jobs table of the first release, with one finished job in it.
    const db = new DatabaseSync(`${dir}/ppsynth.sqlite`);
    db.exec(`CREATE TABLE jobs (
      id TEXT PRIMARY KEY,
      status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
      spec TEXT NOT NULL, dataset_id TEXT, inline_csv TEXT, submitted_by TEXT NOT NULL,
      enqueued INTEGER NOT NULL DEFAULT 0, lease_owner TEXT, lease_token TEXT,
      lease_expires INTEGER, attempts INTEGER NOT NULL DEFAULT 0, progress TEXT, report TEXT,
      diagnostics TEXT, dataset_count INTEGER NOT NULL DEFAULT 0, error TEXT,
      created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`);
    db.exec(`INSERT INTO jobs (id, status, spec, submitted_by, created_at, updated_at)
      VALUES ('old', 'failed', '{}', 'k', '2025-01-01', '2025-01-01')`);
    db.close();
    for (let open = 0; open < 2; open++) {
      const store = await SqliteJobStore.open(dir);
      try {
        const job = await store.job("old", "default");
        assert.equal(job?.kind, "synthesis");
        assert.equal(job?.result, null);
      } finally {
        store.close();
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`POST /v1/tables` laplace of more than PPSYNTH_SYNC_TABLE_CELLS cells runs as a table job: charged at acceptance, once per request id", async () => {
  const t = await testApp({ workers: 1, syncTableCells: 20 });
  const { keys } = t;
  const get = getter(t);
  const post = (body: unknown, idempotencyKey: string) =>
    postJson(t, "/v1/tables", keys.submit, body, idempotencyKey);
  await closing(t, async () => {
    const datasetId = await registerPublic(t, 10, { bounds: { ...BOUNDS, w: [0, 100] } });
    const request = { ...COLUMNS, datasetId, method: "laplace", epsilon: 4 };
    const accepted = await post(request, "j-1");
    assert.equal(accepted.status, 202, "27 cells > 20: a job");
    const { id, location } = await accepted.json();
    assert.equal(location, `/v1/tables/${id}`);
    const retry = await post(request, "j-1");
    assert.equal(retry.status, 202);
    assert.equal((await retry.json()).id, id, "a retry returns the same job");
    const budget = await (await get(`/v1/datasets/${datasetId}/budget`)).json();
    assert.equal(budget.spent, 4, "charged once, at acceptance");
    const job = await finished(t, location);
    assert.equal(job.status, "succeeded", JSON.stringify(job.error));
    assert.equal(job.table.rows.length, 27);
    assert.equal(job.table.privacy.guarantee, "DP");
    assert.equal(job.table.privacy.epsilon, 4);
    assert.equal(job.report, undefined, "a laplace table's privacy is its report");
    const diagnostics = await (await get(`/v1/tables/${id}/diagnostics`, keys.diagnostics))
      .json();
    assert.ok(diagnostics.clamped.w > 0, "weights above 100 were clamped");
    const after = await (await get(`/v1/datasets/${datasetId}/budget`)).json();
    assert.equal(after.spent, 4);
    assert.deepEqual(after.releases.map((r: { jobId: string }) => r.jobId), [id]);
    // Inline and seeded: the job's rows are the command's.
    const inlineRequest = { ...COLUMNS, method: "laplace", epsilon: 4, seed: 5 };
    const inline = await post({ ...inlineRequest, csv: SLICE_CSV }, "j-2");
    assert.equal(inline.status, 202);
    const inlineJob = await finished(t, (await inline.json()).location);
    assert.equal(inlineJob.status, "succeeded", JSON.stringify(inlineJob.error));
    assert.deepEqual(inlineJob.table.rows, await commandRows(SLICE_CSV, inlineRequest));
  });
});

Deno.test("table numbers are strict: JSON numbers in the API, plain decimals on the command line", async () => {
  const t = await testApp({}, false);
  const { keys } = t;
  await closing(t, async () => {
    for (const epsilon of ["0x10", "16", " 4"]) {
      const response = await postJson(t, "/v1/tables", keys.submit, {
        ...COLUMNS,
        method: "laplace",
        epsilon,
        csv: SLICE_CSV,
      });
      assert.equal(response.status, 400, epsilon);
      assert.equal((await response.json()).error.field, "epsilon");
    }
    const bad = await postJson(t, "/v1/tables", keys.submit, {
      ...COLUMNS,
      method: "laplace",
      epsilon: 1,
      bounds: { y: [0, 1], weight: [0, 1], extra: 1 },
      csv: SLICE_CSV,
    });
    assert.equal(bad.status, 400, "the bounds object is strict");
  });
  const base = ["--data=d.csv", "--y=salary", "--weight=w", "--strata=field", "--by=field,gender"];
  const args = (...extra: string[]) => [...base, "--out=t.json", "--method=laplace", ...extra];
  assert.equal(parseTabulateArgs(args("--epsilon=1e-1", "--seed=3")).epsilon, 0.1);
  for (
    const [extra, flag] of [
      [["--epsilon=0x10"], "--epsilon"],
      [["--epsilon=1", "--m=0b1"], "--m"],
      [["--epsilon=1", "--seed= 7"], "--seed"],
      [["--epsilon=1", "--y-bounds=0,10"], "--weight-bounds"],
      [["--epsilon=1", "--weight-bounds=0,10"], "--y-bounds"],
      [["--epsilon=1", "--y-bounds=0,0x10", "--weight-bounds=0,1"], "--y-bounds"],
      [["--epsilon=1", "--y-bounds=5,1", "--weight-bounds=0,1"], "--y-bounds"],
      [["--epsilon=1", "--y-bounds=0,1", "--weight-bounds=-1,1"], "--weight-bounds"],
    ] as const
  ) {
    assert.throws(
      () => parseTabulateArgs(args(...extra)),
      (error) => error instanceof UsageError && error.message.startsWith(`${flag}:`),
      extra.join(" "),
    );
  }
  const bounded = parseTabulateArgs(
    args("--epsilon=2", "--y-bounds=-1.5,2e3", "--weight-bounds=0,40"),
  );
  assert.deepEqual(bounded.bounds, { y: [-1.5, 2000], weight: [0, 40] });
  assert.throws(
    () =>
      parseTabulateArgs([
        ...base,
        "--out=t.json",
        "--method=sample",
        "--y-bounds=0,1",
        "--weight-bounds=0,1",
      ]),
    /--y-bounds: only --method laplace/,
  );
});
