/**
 * Attack 6 of issue 11, free failed jobs: a request without `epsilon` ran on the data and failed
 * with `budget_exceeded` or `epsilon_unreachable` at no charge, each failure a free bit about Δ.
 * On a registered dataset `epsilon` is required, and the requested ε is charged when the job is
 * accepted, never refunded, whatever the outcome.
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

Deno.test("failed-job channel: epsilon is required, and a failing job is charged at acceptance", async () => {
  const t = await h.testApp();
  await h.withTenant(t, async ({ owner, analyst }) => {
    const { id: datasetId } = await h.registerConfidential(t, owner, 1, 40);
    const budget = async () =>
      (await (await h.get(t, `/v1/datasets/${datasetId}/budget`, analyst)).json()) as {
        spent: number;
        remaining: number;
        releases: { jobId: string; epsilon: number }[];
      };

    // The probe without ε: it would run on the data and fail (or not) for free.
    await h.assertRefused(
      t,
      await h.post(t, "/v1/syntheses", analyst, { ...h.QUICK, datasetId }, "no-epsilon"),
      { status: 422, code: "epsilon_required", field: "epsilon" },
      analyst,
      "a synthesis without epsilon",
    );
    assert.equal((await budget()).spent, 0, "a refused request is not charged");

    // A job that cannot reach its ε: charged as soon as it is accepted, and still after it fails.
    const epsilon = 0.01;
    const accepted = await h.post(t, "/v1/syntheses", analyst, {
      ...h.QUICK,
      mechanism: "lw",
      epsilon,
      datasetId,
    }, "unreachable");
    const body = await accepted.json();
    assert.equal(accepted.status, 202, JSON.stringify(body));
    const atAcceptance = await budget();
    assert.equal(
      atAcceptance.spent,
      epsilon,
      "the requested ε is charged when the job is accepted",
    );
    const job = await h.waitFor(t, body.location, analyst);
    assert.equal(job.status, "failed", "the job was meant to fail (ε unreachable)");
    const afterFailure = await budget();
    assert.equal(afterFailure.spent, epsilon, "a failed job is never refunded");

    // A request that does not fit what is left is refused up front, and charges nothing.
    const over = await h.post(t, "/v1/syntheses", analyst, {
      ...h.QUICK,
      mechanism: "lw",
      epsilon: 1,
      datasetId,
    }, "over");
    assert.equal(over.status, 409);
    assert.equal((await over.json()).error.code, "budget_exceeded");
    assert.equal((await budget()).spent, epsilon);

    // A retry of the failed request (same Idempotency-Key) is the same job, not a second charge.
    const retry = await h.post(t, "/v1/syntheses", analyst, {
      ...h.QUICK,
      mechanism: "lw",
      epsilon,
      datasetId,
    }, "unreachable");
    assert.equal((await retry.json()).id, body.id);
    assert.equal((await budget()).spent, epsilon);
  });
});
