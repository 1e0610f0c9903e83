/**
 * Issue 22: an owner may restrict a dataset to releases with a formal DP guarantee. With
 * `guarantee: "DP"` in the policy, the pseudo posterior mechanisms (asymptotic DP) and the
 * synthetic tables built on them are refused, naming the policy; censoring is accepted.
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

Deno.test("guarantee policy: a DP-only dataset refuses aDP mechanisms", async () => {
  const t = await h.testApp({ workers: 1 });
  await h.withTenant(t, async ({ owner, analyst }) => {
    const { id: datasetId, info } = await h.register(t, owner, {
      epsilonTotal: 100,
      csv: h.confidentialCsv(40),
      publicColumns: ["z"],
      guarantee: "DP",
    });
    for (const mechanism of ["unweighted", "lw", "lw-final", "sw", "weighted-e"]) {
      const error = await h.assertRefused(
        t,
        await h.post(t, "/v1/syntheses", analyst, { ...h.QUICK, datasetId, mechanism, epsilon: 5 }),
        { status: 422, code: "guarantee_not_allowed", field: "mechanism" },
        analyst,
        `${mechanism} on a DP-only dataset`,
      );
      assert.match(error.message, /release policy/);
    }
    assert.equal((info.policy as Record<string, unknown>).guarantee, "DP");
    const job = await h.succeededSynthesis(t, analyst, {
      datasetId,
      mechanism: "censored",
      epsilon: 5,
    });
    assert.equal((job.report as Record<string, unknown>).guarantee, "DP");

    // The default policy allows both.
    const { id: open } = await h.registerConfidential(t, owner, 10, 40);
    const lw = await h.post(t, "/v1/syntheses", analyst, {
      ...h.QUICK,
      datasetId: open,
      mechanism: "lw",
      c: 1,
      g: 0,
      epsilon: 5,
    });
    assert.equal(lw.status, 202);
    await h.waitFor(t, (await lw.json()).location, analyst);
  });
});
