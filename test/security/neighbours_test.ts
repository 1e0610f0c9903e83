/**
 * Attack 8 of issue 11, mixed neighbour relations: the pseudo-posterior ε = 2Δm bounds
 * add/remove neighbours, the perturbed histogram used replace-one, and the ledger added them as
 * one currency. Every release now states the one relation, `neighbours: "add-remove"`, and the
 * histogram's ε is the requested one under it (sensitivity 1).
 */
import assert from "node:assert/strict";
import * as histogramModule from "../../src/mechanisms/histogram.ts";
import * as h from "./_helpers.ts";

Deno.test("one neighbour relation: syntheses, histograms and tables all state add-remove", async () => {
  const t = await h.testApp();
  await h.withTenant(t, async ({ owner, analyst }) => {
    const { id: datasetId, info } = await h.register(t, owner, {
      epsilonTotal: 1000,
      csv: h.confidentialCsv(40),
      publicColumns: ["z"],
      bounds: { y: [0, 5] },
    });
    assert.equal(
      (info.policy as { neighbours?: string } | undefined)?.neighbours,
      "add-remove",
      "the registered policy states its neighbour relation",
    );
    const { id: surveyId } = await h.registerSurvey(t, owner, 10, { bounds: h.SURVEY_BOUNDS });

    const table = await h.post(t, "/v1/tables", analyst, {
      ...h.SURVEY_COLUMNS,
      datasetId: surveyId,
      method: "laplace",
      epsilon: 2,
    }, "table");
    const tableBody = await table.json();
    assert.equal(table.status, 200, JSON.stringify(tableBody));
    assert.equal(tableBody.privacy.neighbours, "add-remove", "the laplace table's privacy");

    const jobs: Record<string, string> = {};
    for (
      const [label, request] of [
        ["posterior", { ...h.QUICK, m: 1, epsilon: 50 }],
        ["histogram", {
          y: "y",
          x: ["z"],
          model: "normal",
          mechanism: "histogram",
          epsilon: 0.5,
          m: 3,
        }],
      ] as const
    ) {
      const response = await h.post(t, "/v1/syntheses", analyst, { ...request, datasetId }, label);
      const body = await response.json();
      assert.equal(response.status, 202, JSON.stringify(body));
      jobs[label] = body.location;
    }
    for (const [label, location] of Object.entries(jobs)) {
      const job = await h.waitFor(t, location, analyst);
      assert.equal(job.status, "succeeded", `${label}: ${JSON.stringify(job.error)}`);
      const report = job.report as Record<string, unknown>;
      assert.equal(report.neighbours, "add-remove", `the ${label} synthesis report`);
      if (label === "histogram") {
        // ε-DP at sensitivity 1 under add/remove: the release costs exactly the requested ε.
        assert.equal(
          (histogramModule as Record<string, unknown>).HISTOGRAM_SENSITIVITY,
          1,
          "the histogram's L1 sensitivity under add/remove",
        );
        assert.equal(report.epsilon, 0.5);
        assert.equal(report.epsilonPerDataset, 0.5);
        assert.equal(report.guarantee, "DP");
      }
    }
    const budget = await (await h.get(t, `/v1/datasets/${datasetId}/budget`, analyst)).json();
    assert.equal(budget.releases.length, 2);
  });
});
