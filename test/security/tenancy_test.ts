/**
 * Attack 7 of issue 11, no tenancy: the owner of a key was stored but never read, so any key
 * read any dataset's diagnostics (α, per-record Δ, seed) and releases, and spent any budget. A
 * key of another tenant now gets 404 (existence is not disclosed) on every dataset, budget, job,
 * release, diagnostics and table of a tenant, and cannot spend its budget.
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

Deno.test("cross-tenant: tenant b gets 404 on everything of tenant a and cannot spend its budget", async () => {
  const t = await h.testApp();
  try {
    const a = await h.tenantKeys(t, "a");
    const b = await h.keyOf(t, ["submit", "read", "diagnostics", "admin"], "b");

    const { id: datasetId } = await h.registerConfidential(t, a.owner, 1000, 40);
    const { id: surveyId } = await h.registerSurvey(t, a.owner, 100, { bounds: h.SURVEY_BOUNDS });
    const submitted = await h.post(t, "/v1/syntheses", a.analyst, {
      ...h.QUICK,
      m: 1,
      epsilon: 50,
      datasetId,
    }, "a-synthesis");
    const { id: jobId, location } = await submitted.json();
    assert.equal(submitted.status, 202);
    const tableResponse = await h.post(t, "/v1/tables", a.analyst, {
      ...h.SURVEY_COLUMNS,
      datasetId: surveyId,
      method: "laplace",
      epsilon: 1,
    }, "a-table");
    const { id: tableId } = await tableResponse.json();
    assert.equal(tableResponse.status, 200);
    const job = await h.waitFor(t, location, a.analyst);
    assert.equal(job.status, "succeeded", JSON.stringify(job.error));

    // What tenant a's own keys read (200), tenant b must not see (404).
    const paths: [string, string][] = [
      [`/v1/syntheses/${jobId}/diagnostics`, a.owner],
      [`/v1/syntheses/${jobId}/datasets/1`, a.analyst],
      [`/v1/syntheses/${jobId}`, a.analyst],
      [`/v1/datasets/${datasetId}/budget`, a.analyst],
      [`/v1/tables/${tableId}`, a.analyst],
      [`/v1/datasets/${datasetId}`, a.analyst],
    ];
    for (const [path, own] of paths) {
      const theirs = await h.get(t, path, b);
      const text = await theirs.text();
      assert.equal(theirs.status, 404, `tenant b read ${path}: ${text.slice(0, 200)}`);
      assert.equal(JSON.parse(text).error.code, "not_found");
      assert.equal((await h.get(t, path, own)).status, 200, `tenant a reads ${path}`);
    }

    // Spending a's budget with a's datasetId: 404 on datasetId, nothing charged.
    const before = await (await h.get(t, `/v1/datasets/${datasetId}/budget`, a.analyst)).json();
    const beforeSurvey = await (await h.get(t, `/v1/datasets/${surveyId}/budget`, a.analyst))
      .json();
    const attempts: [string, Record<string, unknown>][] = [
      ["/v1/syntheses", { ...h.QUICK, m: 1, epsilon: 10, datasetId }],
      ["/v1/tables", { ...h.SURVEY_COLUMNS, datasetId: surveyId, method: "laplace", epsilon: 1 }],
      ["/v1/tables", { ...h.SURVEY_COLUMNS, datasetId: surveyId, method: "sample" }],
    ];
    for (const [path, request] of attempts) {
      const response = await h.post(t, path, b, request, crypto.randomUUID());
      const body = await response.json();
      assert.equal(
        response.status,
        404,
        `tenant b used a's dataset at ${path}: ${JSON.stringify(body).slice(0, 200)}`,
      );
      assert.equal(body.error.field, "datasetId");
    }
    const after = await (await h.get(t, `/v1/datasets/${datasetId}/budget`, a.analyst)).json();
    const afterSurvey = await (await h.get(t, `/v1/datasets/${surveyId}/budget`, a.analyst)).json();
    assert.deepEqual(after, before, "tenant b's attempts changed a's budget");
    assert.deepEqual(afterSurvey, beforeSurvey, "tenant b's attempts changed a's budget");
  } finally {
    await t.close();
  }
});
