/**
 * Issue 22, medium: a failed job on a registered dataset showed the analyst how it ran. Its
 * `progress` stayed at the stage where it stopped (0.83 into the unweighted fit meant "ε
 * unreachable", null meant "data error"), and `updatedAt` and `attempts` tell when and after how
 * many tries it stopped: all data-dependent, undoing the one fixed failure message. Two jobs that
 * fail for different reasons must look the same to the analyst, field for field.
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

/** The analyst's view of a finished job without the fields the request itself determines. */
function runDetails(job: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, createdAt: _createdAt, ...rest } = job;
  return rest;
}

Deno.test("failure-detail channel: failed jobs on registered data look alike to an analyst", async () => {
  const t = await h.testApp({ workers: 1 });
  await h.withTenant(t, async ({ owner, analyst }) => {
    // y is confidential and misses one value (row 3); z is public.
    const csv = h.confidentialCsv(40).replace(/\n([^,\n]+),0\.2\n/, "\nNA,0.2\n");
    const { id: broken } = await h.register(t, owner, {
      epsilonTotal: 10,
      csv,
      publicColumns: ["z"],
    });
    const { id: whole } = await h.registerConfidential(t, owner, 10, 40);

    const failed = async (datasetId: string, extra: Record<string, unknown>) => {
      const accepted = await h.post(t, "/v1/syntheses", analyst, {
        ...h.QUICK,
        datasetId,
        ...extra,
      });
      const job = await h.acceptedJob(t, accepted, analyst);
      assert.equal(job.status, "failed", JSON.stringify(job));
      return job;
    };
    // A data error (the missing value) and an unreachable ε fail at different stages.
    const dataError = await failed(broken, { epsilon: 1 });
    const unreachable = await failed(whole, { mechanism: "lw", epsilon: 0.01 });

    for (const job of [dataError, unreachable]) {
      assert.equal(job.progress, null, `the analyst saw progress ${JSON.stringify(job.progress)}`);
      assert.equal("updatedAt" in job, false, "the analyst saw when the job stopped");
      assert.equal("attempts" in job, false, "the analyst saw how many attempts it took");
    }
    assert.deepEqual(runDetails(dataError), { ...runDetails(unreachable), datasetId: broken });

    // The owner (diagnostics scope) still sees how it ran.
    const owned = await (await h.get(t, `/v1/syntheses/${unreachable.id}`, owner)).json();
    assert.equal(typeof owned.updatedAt, "string");
    assert.equal(typeof owned.attempts, "number");
  });
});
