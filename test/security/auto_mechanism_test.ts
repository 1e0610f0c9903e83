/**
 * Issue 24: `"mechanism": "auto"` chooses from public facts only — the guarantees the owner
 * allows, ε and m — so a DP-only dataset gets a DP mechanism, the report names the choice and
 * why, and no request can write the reason itself.
 */
import assert from "node:assert/strict";
import { AUTO_RULES } from "../../src/mechanisms/auto.ts";
import * as h from "./_helpers.ts";

Deno.test("mechanism auto: the owner's allowed guarantees decide, the report says so", async () => {
  const t = await h.testApp({ workers: 1 });
  await h.withTenant(t, async ({ owner, analyst }) => {
    const { id: dpOnly } = await h.register(t, owner, {
      epsilonTotal: 100,
      csv: h.confidentialCsv(40),
      publicColumns: ["z"],
      guarantee: "DP",
    });
    const { id: open } = await h.registerConfidential(t, owner, 100, 40);
    for (
      const [datasetId, mechanism, guarantee] of [
        [dpOnly, AUTO_RULES.DP, "DP"],
        [open, AUTO_RULES.aDP, "aDP"],
      ] as const
    ) {
      const job = await h.succeededSynthesis(t, analyst, {
        datasetId,
        mechanism: "auto",
        epsilon: 5,
      });
      const report = job.report as Record<string, unknown>;
      assert.equal(report.mechanism, mechanism);
      assert.equal(report.guarantee, guarantee);
      const choice = report.mechanismChoice as { requested: string; reason: string };
      assert.equal(choice.requested, "auto");
      assert.match(choice.reason, new RegExp(`${mechanism}.*frontier`));
    }
    // The reason is the service's: a request that writes one is refused.
    const forged = await h.post(t, "/v1/syntheses", analyst, {
      ...h.QUICK,
      datasetId: open,
      mechanism: "auto",
      epsilon: 5,
      autoReason: "chosen by the analyst",
    });
    assert.ok(forged.status === 400 || forged.status === 422, `status ${forged.status}`);
    assert.match(JSON.stringify(await forged.json()), /autoReason/);
    // auto without ε cannot choose.
    const noEpsilon = await h.post(t, "/v1/syntheses", analyst, {
      ...h.QUICK,
      datasetId: open,
      mechanism: "auto",
    });
    assert.ok(noEpsilon.status === 400 || noEpsilon.status === 422, `status ${noEpsilon.status}`);
    assert.match(JSON.stringify(await noEpsilon.json()), /epsilon/);
  });
});
