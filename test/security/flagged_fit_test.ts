/**
 * Issue 23: ε = 2Δm rests on Δ, a maximum over the final fit's draws; a fit that diverged or has
 * not mixed may not have explored the tails, so its Δ, and the published ε, can be understated.
 * Such a release was published with `flagged: true` only in the owner's diagnostics. Now nothing
 * is released from it: a registered dataset's job fails `data_rejected` (charged, the reason
 * `fit_flagged` in the owner's diagnostics), inline data get `fit_flagged`, and only inline data
 * may ask for a flagged release (`allowFlagged`, research), which then says so.
 */
import assert from "node:assert/strict";
import { DATA_REJECTED } from "../../src/jobs/domain_errors.ts";
import * as h from "./_helpers.ts";

/** Far too few draws for R̂ ≤ 1.01 and bulk ESS ≥ 400. */
const SHORT = { ...h.QUICK, draws: 40, chains: 2, warmup: 50 };

Deno.test("flagged fits: nothing is released from a final fit that fails its diagnostics", async () => {
  const t = await h.testApp({ workers: 1 });
  await h.withTenant(t, async ({ owner, analyst }) => {
    const { id: datasetId } = await h.registerConfidential(t, owner, 100, 40);
    const accepted = await h.post(t, "/v1/syntheses", analyst, {
      ...SHORT,
      datasetId,
      epsilon: 50,
    });
    const body = await accepted.json();
    assert.equal(accepted.status, 202, JSON.stringify(body));
    const job = await h.waitFor(t, body.location, analyst);
    assert.equal(job.status, "failed", `a release from a flagged fit: ${JSON.stringify(job)}`);
    assert.deepEqual(job.error, DATA_REJECTED);
    const diagnostics = await (await h.get(t, `${body.location}/diagnostics`, owner)).json();
    assert.equal(diagnostics.failure?.code, "fit_flagged", JSON.stringify(diagnostics));
    assert.match(diagnostics.failure.message, /R̂|bulk ESS|divergent/);
    const budget = await (await h.get(t, `/v1/datasets/${datasetId}/budget`, analyst)).json();
    assert.equal(budget.spent, 50, "charged as every failure is");

    // A registered dataset's release cannot ask to be let through.
    await h.assertRefused(
      t,
      await h.post(t, "/v1/syntheses", analyst, {
        ...SHORT,
        datasetId,
        epsilon: 5,
        allowFlagged: true,
      }),
      { status: 422, code: "flagged_not_allowed", field: "allowFlagged" },
      analyst,
      "allowFlagged on a registered dataset",
    );

    // Inline data: the owner's own; the failure is specific, and research may let it through.
    const inline = { ...SHORT, csv: h.confidentialCsv(40), seed: 1 };
    const refused = await h.post(t, "/v1/syntheses", analyst, inline);
    const refusedJob = await h.waitFor(t, (await refused.json()).location, analyst);
    assert.equal(refusedJob.status, "failed");
    assert.equal((refusedJob.error as { code: string }).code, "fit_flagged");
    const allowed = await h.post(t, "/v1/syntheses", analyst, { ...inline, allowFlagged: true });
    const allowedJob = await h.waitFor(t, (await allowed.json()).location, analyst);
    assert.equal(allowedJob.status, "succeeded", JSON.stringify(allowedJob.error));
    assert.equal((allowedJob.report as Record<string, unknown>).fitFlagged, true);
  });
});
