/**
 * Issue 22, low: the public report of a release on registered data carried the exact,
 * data-dependent Δ and ε = 2Δm (the largest |ℓ_i| over draws of the unweighted fit is a statistic
 * of the most extreme record). The analyst's view now states the charged cap as the release's ε
 * and no Δ; the achieved values go to the owner's diagnostics.
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

Deno.test("report channel: an analyst sees the charged cap, not Δ or the achieved 2Δm", async () => {
  const t = await h.testApp({ workers: 1 });
  await h.withTenant(t, async ({ owner, analyst }) => {
    const { id: datasetId } = await h.registerConfidential(t, owner, 1000, 40);
    const cap = 500;
    const accepted = await h.post(t, "/v1/syntheses", analyst, {
      ...h.QUICK,
      datasetId,
      epsilon: cap,
      m: 2,
    });
    const job = await h.waitFor(t, (await accepted.json()).location, analyst);
    assert.equal(job.status, "succeeded", JSON.stringify(job.error));
    const report = job.report as Record<string, unknown>;
    assert.equal(report.lipschitz, null, `the analyst saw Δ = ${report.lipschitz}`);
    assert.equal(report.epsilon, cap, `the analyst saw ε = ${report.epsilon}, not the cap`);
    assert.ok((report.epsilonPerDataset as number) >= cap / 2);

    const diagnostics = await (await h.get(t, `/v1/syntheses/${job.id}/diagnostics`, owner)).json();
    const achieved = diagnostics.achieved as Record<string, number>;
    assert.ok(achieved.lipschitz > 0, "the owner sees the exact Δ");
    assert.ok(achieved.epsilon <= cap && achieved.epsilon === 2 * achieved.lipschitz * 2);
  });
});
