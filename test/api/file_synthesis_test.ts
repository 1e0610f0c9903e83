/**
 * Issue 35: whole-file syntheses through the API. The owner declares the file schema once, in
 * the release policy; an analyst's `y: "all"` releases every column under it (the public report
 * states the charged cap, the CSVs keep the input's header and re-encode under the schema, the
 * owner's diagnostics hold each file's utility); what a whole file cannot take is refused 422
 * before any data are read, uncharged; a schema that does not match the columns is refused at
 * registration, naming the column.
 */
import assert from "node:assert/strict";
import { parseCsv } from "../../src/data/csv.ts";
import { encodeFile } from "../../src/data/file_encoding.ts";
import { parseFileSchema } from "../../src/data/file_schema.ts";
import {
  assertRefused,
  auth,
  get,
  post,
  register,
  testApp,
  waitFor,
  withTenant,
} from "../security/_helpers.ts";
import type { TestApp } from "./_helpers.ts";
import { fileCsv, SCHEMA } from "../synthesis/_file_fixture.ts";

const CSV = fileCsv(200);
const HEADER = "REGION,SEX,AGE,KIDS,INCOME,WT";
/** K = 2 (seconds a job); the final fit passes its label-invariant checks on most seeds. */
const GIBBS = { classes: 2, chains: 2, warmup: 100, draws: 400 } as const;

/** Asserts that a released CSV has the file's header and re-encodes under the schema. */
function assertUnderSchema(csv: string): void {
  assert.equal(csv.split(/\r?\n/)[0], HEADER);
  const data = parseCsv(csv, "synthetic-1.csv");
  assert.equal(data.n, 200);
  encodeFile(data, parseFileSchema(SCHEMA, "schema"));
}

async function spent(t: TestApp, key: string, id: string): Promise<number> {
  const response = await get(t, `/v1/datasets/${id}/budget`, key);
  return (await response.json()).spent;
}

Deno.test("API whole file: declared in the policy, released under it (a public column given), the cap as its ε", async () => {
  const t = await testApp();
  await withTenant(t, async ({ owner, analyst }) => {
    const { id } = await register(t, owner, {
      epsilonTotal: 100,
      csv: CSV,
      fileSchema: SCHEMA,
      publicColumns: ["REGION"],
    });
    const info = await (await get(t, `/v1/datasets/${id}`, analyst)).json();
    assert.deepEqual(
      info.policy.fileSchema.columns.map((c: { name: string }) => c.name),
      HEADER.split(","),
    );
    // The registered path runs without a seed, so a fit may be flagged (then data_rejected,
    // charged): up to three requests.
    let job: Record<string, unknown> | null = null;
    for (let attempt = 0; attempt < 3 && job?.status !== "succeeded"; attempt++) {
      const response = await post(t, "/v1/syntheses", analyst, {
        datasetId: id,
        y: "all",
        x: ["REGION"],
        epsilon: 20,
        ...GIBBS,
      });
      const body = await response.json();
      assert.equal(response.status, 202, JSON.stringify(body));
      job = await waitFor(t, body.location, analyst);
      if (job.status === "failed") {
        assert.equal((job.error as { code: string }).code, "data_rejected");
        const reason = await (await get(t, `/v1/syntheses/${job.id}/diagnostics`, owner)).json();
        assert.equal(reason.failure.code, "fit_flagged", JSON.stringify(reason));
      }
    }
    assert.equal(job!.status, "succeeded", JSON.stringify(job!.error));
    const report = job!.report as Record<string, unknown>;
    assert.equal(report.model, "bayes-net", "auto's whole-file model");
    assert.deepEqual(report.given, ["REGION"], "the public column released as it is");
    assert.equal(report.mechanism, "lw", "auto's mechanism on the network");
    assert.equal(report.epsilon, 20);
    assert.equal(report.epsilonPerDataset, 20);
    assert.equal(report.lipschitz, null);
    assert.deepEqual(report.columns, HEADER.split(","));
    const csv = await (await get(t, `/v1/syntheses/${job!.id}/datasets/1`, analyst)).text();
    assertUnderSchema(csv);
    const diagnostics = await (await get(t, `/v1/syntheses/${job!.id}/diagnostics`, owner))
      .json();
    assert.equal(diagnostics.utility.length, 1);
    assert.equal(typeof diagnostics.utility[0].kMarginal, "number");
    assert.ok(diagnostics.achieved.epsilon <= 20);
    // Analysts see no utility, Δ or seed.
    assert.equal(
      (await get(t, `/v1/syntheses/${job!.id}/diagnostics`, analyst)).status,
      403,
    );
  });
});

Deno.test("API whole file: inline data with their own schema, seed and allowFlagged", async () => {
  const t = await testApp();
  await withTenant(t, async ({ analyst }) => {
    const response = await post(t, "/v1/syntheses", analyst, {
      csv: CSV,
      fileSchema: SCHEMA,
      y: "all",
      model: "latent-class",
      mechanism: "sw",
      epsilon: 20,
      m: 2,
      seed: 7,
      allowFlagged: true,
      ...GIBBS,
    });
    const body = await response.json();
    assert.equal(response.status, 202, JSON.stringify(body));
    const job = await waitFor(t, body.location, analyst);
    assert.equal(job.status, "succeeded", JSON.stringify(job.error));
    const report = job.report as { model: string; m: number; epsilon: number };
    assert.equal(report.model, "latent-class");
    assert.equal(report.m, 2);
    assert.ok(report.epsilon <= 20);
    for (const k of [1, 2]) {
      assertUnderSchema(
        await (await get(t, `/v1/syntheses/${job.id}/datasets/${k}`, analyst))
          .text(),
      );
    }
  });
});

Deno.test("API whole file: refused before the data, uncharged", async () => {
  const t = await testApp();
  await withTenant(t, async ({ owner, analyst }) => {
    const plain = (await register(t, owner, { epsilonTotal: 100, csv: CSV })).id;
    const declared = (await register(t, owner, { epsilonTotal: 100, csv: CSV, fileSchema: SCHEMA }))
      .id;
    const cases: [
      string,
      Record<string, unknown>,
      { status: number; code: string; field: string },
    ][] = [
      ["no file schema in the policy", { datasetId: plain }, {
        status: 422,
        code: "file_schema_required",
        field: "y",
      }],
      ["x naming a confidential column", { datasetId: declared, x: ["SEX", "REGION"] }, {
        status: 422,
        code: "confidential_column",
        field: "x.0",
      }],
      ["another model", { datasetId: declared, model: "normal" }, {
        status: 422,
        code: "invalid_file_request",
        field: "model",
      }],
      ["a one-dimensional mechanism", { datasetId: declared, mechanism: "cw" }, {
        status: 422,
        code: "invalid_file_request",
        field: "mechanism",
      }],
      ["a seed", { datasetId: declared, seed: 1 }, {
        status: 422,
        code: "seed_not_allowed",
        field: "seed",
      }],
      ["allowFlagged", { datasetId: declared, allowFlagged: true }, {
        status: 422,
        code: "flagged_not_allowed",
        field: "allowFlagged",
      }],
      ["a schema of its own", { datasetId: declared, fileSchema: SCHEMA }, {
        status: 422,
        code: "set_by_policy",
        field: "fileSchema",
      }],
      ["too much work", { datasetId: declared, chains: 64, warmup: 100_000 }, {
        status: 422,
        code: "too_much_work",
        field: "warmup",
      }],
      ["inline data without a schema", { csv: CSV }, {
        status: 422,
        code: "file_schema_required",
        field: "fileSchema",
      }],
    ];
    for (const [what, request, expected] of cases) {
      const response = await post(t, "/v1/syntheses", analyst, {
        y: "all",
        epsilon: 5,
        ...GIBBS,
        ...request,
      });
      await assertRefused(t, response, expected, analyst, what);
    }
    assert.equal(await spent(t, owner, plain), 0);
    assert.equal(await spent(t, owner, declared), 0);
  });
});

Deno.test("API whole file: a schema that does not match the columns is refused at registration, naming the column", async () => {
  const t = await testApp();
  await withTenant(t, async ({ owner }) => {
    const registerWith = (fileSchema: unknown) =>
      t.app.request("/v1/datasets", {
        method: "POST",
        headers: auth(owner),
        body: JSON.stringify({ epsilonTotal: 10, csv: CSV, fileSchema }),
      });
    const renamed = {
      ...SCHEMA,
      columns: SCHEMA.columns.map((c) => c.name === "AGE" ? { ...c, name: "AGEP" } : c),
      rules: [],
    };
    let response = await registerWith(renamed);
    let { error } = await response.json();
    assert.equal(response.status, 400);
    assert.equal(error.code, "invalid_policy");
    assert.equal(error.field, "fileSchema.columns.2");
    assert.match(error.message, /"AGEP"/);
    response = await registerWith({
      ...SCHEMA,
      columns: SCHEMA.columns.filter((c) => c.name !== "WT"),
    });
    ({ error } = await response.json());
    assert.equal(response.status, 400);
    assert.match(error.message, /"WT"/);
    // A malformed column: parseFileSchema names it and the field.
    response = await registerWith({
      ...SCHEMA,
      columns: SCHEMA.columns.map((c) => c.name === "AGE" ? { name: "AGE", kind: "count" } : c),
    });
    ({ error } = await response.json());
    assert.equal(response.status, 400);
    assert.match(error.message, /column "AGE"/);
  });
});

Deno.test("API whole file: the Gibbs sweeps run off the event loop — /healthz answers while the job runs, and the time limit stops it", async () => {
  // The attack (issue 34's class of stall): a whole-file job of many sweeps, then /healthz. In the
  // server's thread the sweeps held every other request for the whole fit.
  // A 2 s time limit (4 s before issue 36): in the server's thread the sweeps would hold the event
  // loop for the whole fit (40,000 sweeps), past any limit, whose timer cannot fire meanwhile;
  // off it, 2 s of probes every 100 ms see the loop free.
  const t = await testApp({ jobTimeLimitMs: 2000 });
  await withTenant(t, async ({ analyst }) => {
    const posted = performance.now();
    const response = await post(t, "/v1/syntheses", analyst, {
      csv: fileCsv(2000),
      fileSchema: SCHEMA,
      y: "all",
      mechanism: "unweighted",
      seed: 3,
      allowFlagged: true,
      classes: 20,
      chains: 1,
      warmup: 20_000,
      draws: 20_000,
    });
    const body = await response.json();
    assert.equal(response.status, 202, JSON.stringify(body));
    // The server shares this thread: a probe every 100 ms — its lateness (the time the event loop
    // was held) with a /healthz and a status read — until the job ends (its 2 s time limit), at most 60 s.
    // The submission's own answer first: the pool starts the job as it is accepted.
    const waits: number[] = [performance.now() - posted];
    let ended = false;
    for (let k = 0; k < 600 && !ended; k++) {
      const due = performance.now() + 100;
      await new Promise((resolve) => setTimeout(resolve, 100));
      const health = await t.app.request("/healthz");
      await health.body?.cancel();
      const seen = await (await get(t, `/v1/syntheses/${body.id}`, analyst)).json();
      waits.push(performance.now() - due);
      ended = seen.status !== "running" && seen.status !== "queued";
    }
    assert.ok(
      waits.every((ms) => ms < 1000),
      `the event loop was held ${Math.max(...waits).toFixed(0)} ms during the job`,
    );
    const job = await waitFor(t, body.location, analyst);
    assert.equal(job.status, "failed");
    assert.equal((job.error as { code: string }).code, "time_limit");
  });
});
