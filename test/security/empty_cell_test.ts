/**
 * Attack 3 of issue 11, exact empty cells: a Laplace table released an empty cell as
 * `mean: null`, un-noised, so a fine grouping told which cells hold no record (and so each
 * record's category). On a registered dataset the cells are the cross product of the policy's
 * declared levels, and every cell's mean is released noisy: a number, never a marker.
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

Deno.test("empty-cell probing: every declared cell is released and no mean marks an empty one", async () => {
  const t = await h.testApp({}, false);
  await h.withTenant(t, async ({ owner, analyst }) => {
    const rows = h.surveyRows();
    const fields = [...new Set(rows.map((r) => r.field))].sort();
    const occupied = new Set(rows.map((r) => `${r.field}/${r.gender}`));
    // The sample has no female unit in field2, and nobody of the declared level "x".
    assert.ok(!occupied.has("field2/female"));
    const genders = ["female", "male", "x"];
    const { id: datasetId } = await h.registerSurvey(t, owner, 10, {
      bounds: h.SURVEY_BOUNDS,
      levels: { gender: genders },
    });
    const response = await h.post(t, "/v1/tables", analyst, {
      ...h.SURVEY_COLUMNS,
      datasetId,
      method: "laplace",
      epsilon: 4,
    }, "empty-cells");
    const body = await response.json();
    assert.equal(response.status, 200, JSON.stringify(body));
    const released = body.rows as Record<string, unknown>[];
    // No value of any cell is a marker (null, NaN) that an empty cell alone would get. With
    // declared bounds no replicate SEs are released: null in every cell alike, never a marker.
    for (const key of ["countSE", "meanSE"]) {
      assert.ok(released.every((r) => r[key] === null), `${key} is null in every cell`);
    }
    const marked = released.flatMap((r) =>
      ["count", "mean"].filter((key) => typeof r[key] !== "number" || !Number.isFinite(r[key])).map(
        (key) => `${r.field}/${r.gender}: ${key}=${r[key]}`,
      )
    );
    assert.deepEqual(marked, [], "cells released with a marker instead of a noisy value");
    const cells = new Set(released.map((r) => `${r.field}/${r.gender}`));
    // Every cell of the declared cross product (and the margins) is there, empty or not.
    for (const field of ["all", ...fields]) {
      for (const gender of ["all", ...genders]) {
        assert.ok(cells.has(`${field}/${gender}`), `cell ${field}/${gender} is missing`);
      }
    }
    assert.equal(released.length, (fields.length + 1) * (genders.length + 1));
  });
});
