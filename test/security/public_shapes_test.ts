/**
 * Issue 34, F6 and F7: the public shapes of a release on registered data told the analyst what
 * only the owner may know.
 *
 * - F7: the stated `epsilonPerDataset` was the whole cap (not cap/m) exactly when weighted-e's
 *   achieved Δ was 0, that is when every record had been truncated. It is now cap/m for every
 *   mechanism whose datasets compose, whatever the achieved Δ.
 * - F6: the time from acceptance to the analyst's terminal state told the owner-only refit count
 *   and the kind of failure. A job on registered data is now shown to an analyst as running
 *   until a release time fixed from the request at acceptance (`PPSYNTH_RELEASE_DELAY_MS`).
 *   Its test is in `release_time_test.ts`, which `deno task test` runs alone (a wall-clock claim;
 *   scripts/test_quick.ts's SERIAL_FILES).
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

Deno.test("F7: a weighted-e release whose every record was truncated states ε per dataset = cap/m", async () => {
  const t = await h.testApp({ workers: 1 });
  await h.withTenant(t, async ({ owner, analyst }) => {
    const { id: datasetId } = await h.registerConfidential(t, owner, 1, 200);
    const cap = 0.02;
    const m = 2;
    const job = await h.succeededSynthesis(t, analyst, {
      datasetId,
      mechanism: "weighted-e",
      epsilon: cap,
      m,
      // g 1: LW's weights all 1, so every record's Δ at that fit is far above ε/(2m) and is
      // truncated (at g 0 a record of LW weight near 0 kept it, and its refit missed the cap:
      // CalibrationError in 2 of 145 unseeded jobs); 3,000 draws for the prior-only final fit
      // (at QUICK's 2,000: R̂ up to 1.0099, bulk ESS down to 406). Issue 36: at g 1 and 3,000
      // draws 0 of 300 unseeded jobs failed (R̂ ≤ 1.0093, bulk ESS ≥ 772; 7.5 CPU s a job).
      g: 1,
      draws: 3000,
    });
    const diagnostics = await (await h.get(t, `/v1/syntheses/${job.id}/diagnostics`, owner))
      .json();
    // The owner's precondition: every record was truncated (Δ = 0), the case that leaked.
    assert.equal((diagnostics.achieved as { lipschitz: number }).lipschitz, 0);
    const report = job.report as { epsilon: number; epsilonPerDataset: number };
    assert.equal(report.epsilon, cap);
    assert.ok(
      Math.abs(report.epsilonPerDataset - cap / m) < 1e-12,
      `the analyst read ε per dataset = ${report.epsilonPerDataset}, not cap/m = ${cap / m}: ` +
        "every record was truncated",
    );
  });
});
