/**
 * Attack 2 of issue 11, chosen "public" columns: a column named in `x` is copied verbatim into
 * the synthetic CSV and a column named in `by` becomes table labels, so `x: ["salary"]` or
 * `by: ["salary", "gender"]` would release the confidential salaries. On a registered dataset,
 * naming a confidential column in x, by or strata is refused (422 `confidential_column`).
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

Deno.test("confidential columns: x, by and strata naming a confidential column are refused", async () => {
  const t = await h.testApp({}, false);
  try {
    const { owner, analyst } = await h.tenantKeys(t);
    // field and gender are public; salary and w are confidential.
    const { id: datasetId } = await h.register(t, owner, {
      epsilonTotal: 50,
      csv: h.SURVEY_CSV,
      publicColumns: ["field", "gender"],
    });
    const synthesis = {
      ...h.QUICK,
      y: "w",
      x: ["salary"],
      model: "lognormal",
      datasetId,
      epsilon: 10,
    };
    await h.assertRefused(
      t,
      await h.post(t, "/v1/syntheses", analyst, synthesis, "x-salary"),
      { status: 422, code: "confidential_column", field: "x.0" },
      analyst,
      'synthesis with x: ["salary"]',
    );
    await h.assertRefused(
      t,
      await h.post(t, "/v1/syntheses", analyst, { ...synthesis, x: ["field", "salary"] }, "x-1"),
      { status: 422, code: "confidential_column", field: "x.1" },
      analyst,
      'synthesis with x: ["field", "salary"]',
    );
    await h.assertRefused(
      t,
      await h.post(t, "/v1/syntheses", analyst, {
        ...synthesis,
        y: "salary",
        x: ["field"],
        strata: "w",
      }, "strata-w"),
      { status: 422, code: "confidential_column", field: "strata" },
      analyst,
      'synthesis with strata: "w"',
    );

    const table = { ...h.SURVEY_COLUMNS, datasetId, method: "laplace", epsilon: 1 };
    await h.assertRefused(
      t,
      await h.post(t, "/v1/tables", analyst, { ...table, by: ["salary", "gender"] }, "by-0"),
      { status: 422, code: "confidential_column", field: "by.0" },
      analyst,
      'table with by: ["salary", "gender"]',
    );
    await h.assertRefused(
      t,
      await h.post(t, "/v1/tables", analyst, { ...table, by: ["field", "w"] }, "by-1"),
      { status: 422, code: "confidential_column", field: "by.1" },
      analyst,
      'table with by: ["field", "w"]',
    );
    await h.assertRefused(
      t,
      await h.post(t, "/v1/tables", analyst, { ...table, strata: "salary" }, "strata"),
      { status: 422, code: "confidential_column", field: "strata" },
      analyst,
      'table with strata: "salary"',
    );
    const budget = await (await h.get(t, `/v1/datasets/${datasetId}/budget`, analyst)).json();
    assert.equal(budget.spent, 0, "a refused request is not charged");

    // A CSV upload that declares nothing: every column is confidential.
    const upload = await t.app.request("/v1/datasets?epsilonTotal=10", {
      method: "POST",
      headers: h.auth(owner, "text/csv"),
      body: h.SURVEY_CSV,
    });
    assert.equal(upload.status, 201);
    const { id: undeclared } = await upload.json();
    await h.assertRefused(
      t,
      await h.post(t, "/v1/tables", analyst, { ...table, datasetId: undeclared }, "undeclared"),
      { status: 422, code: "confidential_column", field: "by.0" },
      analyst,
      "a table by columns never declared public",
    );
    await h.assertRefused(
      t,
      await h.post(t, "/v1/syntheses", analyst, {
        ...synthesis,
        y: "salary",
        x: ["gender"],
        datasetId: undeclared,
      }, "undeclared-x"),
      { status: 422, code: "confidential_column", field: "x.0" },
      analyst,
      "a synthesis with x never declared public",
    );
  } finally {
    await t.close();
  }
});
