/**
 * Attack 5 of issue 11, data-dependent errors: a job or table on confidential data that failed
 * on the data said which row, value or level was at fault (model rules, single-unit strata,
 * histogram bounds, FBP stratum sizes), a free answer about the data. On a registered dataset
 * such a failure gives one fixed code and message (`data_rejected`), the same whatever the data.
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

/** Asserts a public message names no row, line or cell value. */
function assertSilent(message: string, values: readonly string[], what: string): void {
  assert.doesNotMatch(
    message,
    /\b(row|line|record)s?\b/i,
    `${what}: the message names a row: ${message}`,
  );
  for (const value of values) {
    assert.ok(!message.includes(value), `${what}: the message holds "${value}": ${message}`);
  }
}

Deno.test("error channel: a job failing on registered data answers one fixed data_rejected message", async () => {
  const t = await h.testApp();
  await h.withTenant(t, async ({ owner, analyst }) => {
    const y = h.confidentialValues(30).map((v) => Math.round(Number(v) * 3));
    // Two datasets that break the Poisson model's rule at different rows, in different ways.
    const negative = y.map((v, i) => ({ y: i === 3 ? -7 : v, z: i % 3 }));
    const fractional = y.map((v, i) => ({ y: i === 17 ? 4.25 : v, z: i % 3 }));
    const messages: string[] = [];
    for (const [label, records] of [["negative", negative], ["fractional", fractional]] as const) {
      const { id: datasetId } = await h.register(t, owner, {
        epsilonTotal: 100,
        records,
        publicColumns: ["z"],
      });
      const submitted = await h.post(t, "/v1/syntheses", analyst, {
        y: "y",
        x: ["z"],
        model: "poisson",
        mechanism: "unweighted",
        epsilon: 50,
        draws: 40,
        chains: 2,
        warmup: 50,
        datasetId,
      }, `${label}-registered`);
      const job = await h.acceptedJob(t, submitted, analyst);
      assert.equal(job.status, "failed");
      const error = job.error as { code: string; message: string };
      assert.equal(error.code, "data_rejected", `${label}: ${JSON.stringify(error)}`);
      assertSilent(error.message, ["-7", "4.25"], label);
      messages.push(error.message);
    }
    assert.equal(messages[0], messages[1], "the message depends on the data");
  });
});

Deno.test("error channel: a laplace table failing on registered data answers 422 data_rejected, charged", async () => {
  const t = await h.testApp({}, false);
  await h.withTenant(t, async ({ owner, analyst }) => {
    const rows = h.surveyRows();
    // A: one unit alone in its stratum (field8 cut to one unit): the variance rule fails on a row.
    let kept = 0;
    const lone = rows.filter((r) => r.field !== "field8" || kept++ === 0);
    // B: one weight that is not positive: the design rule fails on a row.
    const equal = rows.map((r, i) => i === 7 ? { ...r, w: 0 } : r);
    const messages: string[] = [];
    const reasons = { lone: /alone in its stratum/, equal: /row 8 .*strictly positive/ };
    for (const [label, records] of [["lone", lone], ["equal", equal]] as const) {
      const { id: datasetId } = await h.register(t, owner, {
        epsilonTotal: 10,
        records,
        publicColumns: ["field", "gender"],
        bounds: h.SURVEY_BOUNDS,
      });
      const response = await h.post(t, "/v1/tables", analyst, {
        ...h.SURVEY_COLUMNS,
        datasetId,
        method: "laplace",
        epsilon: 2,
      }, label);
      const body = await response.json();
      assert.equal(response.status, 422, `${label}: ${response.status} ${JSON.stringify(body)}`);
      assert.equal(body.error.code, "data_rejected", label);
      assertSilent(body.error.message, ["field8", "row", "alone", "positive"], label);
      messages.push(body.error.message);
      const budget = await (await h.get(t, `/v1/datasets/${datasetId}/budget`, analyst)).json();
      assert.equal(budget.spent, 2, `${label}: the failed table is charged`);
      // The reason is the owner's: in the table's diagnostics, never in the analyst's view.
      const [{ jobId }] = budget.releases;
      const view = await (await h.get(t, `/v1/tables/${jobId}`, analyst)).json();
      assert.equal(view.error.code, "data_rejected");
      assert.equal((await h.get(t, `/v1/tables/${jobId}/diagnostics`, analyst)).status, 403);
      const reason = await h.get(t, `/v1/tables/${jobId}/diagnostics`, owner);
      assert.equal(reason.status, 200);
      const { failure } = await reason.json();
      assert.equal(failure.code, "invalid_data", label);
      assert.match(failure.message, reasons[label]);
    }
    assert.equal(messages[0], messages[1], "the message depends on the data");
  });
});
