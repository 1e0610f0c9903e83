/**
 * A side channel beside attacks 4–5 of issue 11: while a job on a registered dataset runs, its
 * progress (the fits' stages and fractions: how many refits calibration takes, where a failing
 * job stops) depends on the data. An analyst polling the job sees no progress until it has
 * finished; the owner (diagnostics scope) does, and reads a failed table's reason.
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

Deno.test("progress channel: an analyst sees no progress of a running job on registered data", async () => {
  const t = await h.testApp({ workers: 1 });
  try {
    const { owner, analyst } = await h.tenantKeys(t);
    const { id: datasetId } = await h.register(t, owner, {
      epsilonTotal: 1e9,
      csv: h.confidentialCsv(200),
      publicColumns: ["z"],
    });
    const accepted = await h.post(t, "/v1/syntheses", analyst, {
      datasetId,
      y: "y",
      x: ["z"],
      model: "normal",
      mechanism: "lw",
      epsilon: 1e6,
      c: 1,
      g: 0.2,
      draws: 4000,
      chains: 2,
      warmup: 300,
    });
    assert.equal(accepted.status, 202);
    const { id } = await accepted.json();
    let ownerSawProgress = false;
    let analystPolls = 0;
    for (const deadline = Date.now() + 120_000;;) {
      assert.ok(Date.now() < deadline, "the job never finished");
      const seen = await (await h.get(t, `/v1/syntheses/${id}`, analyst)).json();
      if (seen.status === "succeeded" || seen.status === "failed") break;
      analystPolls++;
      assert.equal(seen.progress, null, `the analyst saw ${JSON.stringify(seen.progress)}`);
      const owned = await (await h.get(t, `/v1/syntheses/${id}`, owner)).json();
      if (owned.status === "running" && owned.progress !== null) ownerSawProgress = true;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(analystPolls > 0 && ownerSawProgress, "the job was seen running, with progress");
    const done = await (await h.get(t, `/v1/syntheses/${id}`, analyst)).json();
    assert.deepEqual(done.progress, { stage: "done", fraction: 1 });
  } finally {
    await t.close();
  }
});

Deno.test("a failed table's reason is in the owner's table diagnostics, not in the analyst's view", async () => {
  const t = await h.testApp({}, false);
  try {
    const { owner, analyst } = await h.tenantKeys(t);
    const rows = h.surveyRows().map((r, i) => i === 7 ? { ...r, w: 0 } : r);
    const { id: datasetId } = await h.register(t, owner, {
      epsilonTotal: 10,
      records: rows,
      publicColumns: ["field", "gender"],
    });
    const response = await h.post(t, "/v1/tables", analyst, {
      ...h.SURVEY_COLUMNS,
      datasetId,
      method: "laplace",
      epsilon: 2,
    }, "failing-table");
    assert.equal(response.status, 422);
    assert.equal((await response.json()).error.code, "data_rejected");
    const budget = await (await h.get(t, `/v1/datasets/${datasetId}/budget`, analyst)).json();
    const [{ jobId }] = budget.releases;
    const view = await (await h.get(t, `/v1/tables/${jobId}`, analyst)).json();
    assert.equal(view.error.code, "data_rejected");
    assert.equal((await h.get(t, `/v1/tables/${jobId}/diagnostics`, analyst)).status, 403);
    const reason = await h.get(t, `/v1/tables/${jobId}/diagnostics`, owner);
    assert.equal(reason.status, 200);
    const { failure } = await reason.json();
    assert.equal(failure.code, "invalid_data");
    assert.match(failure.message, /row 8 .*survey weights must be strictly positive/);
  } finally {
    await t.close();
  }
});
