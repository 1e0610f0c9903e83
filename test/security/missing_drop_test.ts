/**
 * Issue 22, critical: with `missing: "drop"` an analyst could name any confidential column as
 * `weight` (also for a model that takes no weight); the release's n and its public `x` column in
 * file order then showed exactly which records miss that confidential value (18 of 18 recovered
 * at ε = 2e-12). On a registered dataset no record is ever dropped. (A weight of a model other
 * than FBS/FBP is now synthesised as the record's last outcome, issue 24; it is read, never used
 * to select rows.)
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

/** 60 records: y and income confidential, z public; income is missing in every fifth record. */
function csv(): { text: string; missing: number[] } {
  const missing: number[] = [];
  const lines = ["y,z,income"];
  h.confidentialValues(60).forEach((y, i) => {
    if (i % 5 === 3) missing.push(i);
    lines.push(`${y},${i / 100},${i % 5 === 3 ? "NA" : 1000 + i}`);
  });
  return { text: lines.join("\n") + "\n", missing };
}

Deno.test("missing-drop channel: a confidential column's missing values never select rows", async () => {
  const t = await h.testApp({ workers: 1 });
  await h.withTenant(t, async ({ owner, analyst }) => {
    const { text } = csv();
    const { id: datasetId } = await h.register(t, owner, {
      epsilonTotal: 2000,
      csv: text,
      publicColumns: ["z"],
    });
    // The attack: income as the weight of a normal model, records missing it dropped.
    await h.assertRefused(
      t,
      await h.post(t, "/v1/syntheses", analyst, {
        ...h.QUICK,
        datasetId,
        epsilon: 500,
        weight: "income",
        missing: "drop",
      }),
      { status: 422, code: "missing_drop_not_allowed", field: "missing" },
      analyst,
      "a confidential column named as the weight (synthesised as an outcome), records dropped",
    );
    // Dropping on the outcome itself shows which records miss it just the same.
    await h.assertRefused(
      t,
      await h.post(t, "/v1/syntheses", analyst, {
        ...h.QUICK,
        y: "income",
        datasetId,
        epsilon: 500,
        missing: "drop",
      }),
      { status: 422, code: "missing_drop_not_allowed", field: "missing" },
      analyst,
      "missing: drop on a registered dataset",
    );
    const budget = await (await h.get(t, `/v1/datasets/${datasetId}/budget`, analyst)).json();
    assert.equal(budget.spent, 0, "refused requests are not charged");
  });
});
