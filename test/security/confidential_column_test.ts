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
  await h.withTenant(t, async ({ owner, analyst }) => {
    // field and gender are public; salary and w are confidential.
    const { id: datasetId } = await h.registerSurvey(t, owner, 50);
    const synthesis = {
      ...h.QUICK,
      y: "w",
      x: ["salary"],
      model: "lognormal",
      datasetId,
      epsilon: 10,
    };
    /** A refused body, its idempotency key, the field named and what it is (after `what`). */
    type Case = [Record<string, unknown>, string, string, string];
    /** Asserts that each case's body posted to `path` is refused 422 `confidential_column`. */
    const refused = async (path: string, what: string, cases: Case[]) => {
      for (const [body, idempotencyKey, field, detail] of cases) {
        await h.assertRefused(
          t,
          await h.post(t, path, analyst, body, idempotencyKey),
          { status: 422, code: "confidential_column", field },
          analyst,
          what + detail,
        );
      }
    };
    await refused("/v1/syntheses", "synthesis with ", [
      [synthesis, "x-salary", "x.0", 'x: ["salary"]'],
      [{ ...synthesis, x: ["field", "salary"] }, "x-1", "x.1", 'x: ["field", "salary"]'],
      [
        { ...synthesis, y: "salary", x: ["field"], strata: "w" },
        "strata-w",
        "strata",
        'strata: "w"',
      ],
    ]);
    const table = { ...h.SURVEY_COLUMNS, datasetId, method: "laplace", epsilon: 1 };
    await refused("/v1/tables", "table with ", [
      [{ ...table, by: ["salary", "gender"] }, "by-0", "by.0", 'by: ["salary", "gender"]'],
      [{ ...table, by: ["field", "w"] }, "by-1", "by.1", 'by: ["field", "w"]'],
      [{ ...table, strata: "salary" }, "strata", "strata", 'strata: "salary"'],
    ]);
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
    await refused("/v1/tables", "a table ", [
      [
        { ...table, datasetId: undeclared },
        "undeclared",
        "by.0",
        "by columns never declared public",
      ],
    ]);
    await refused("/v1/syntheses", "a synthesis ", [
      [
        { ...synthesis, y: "salary", x: ["gender"], datasetId: undeclared },
        "undeclared-x",
        "x.0",
        "with x never declared public",
      ],
    ]);
  });
});
