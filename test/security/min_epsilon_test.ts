/**
 * Issue 22, medium: ε had no lower limit (1e-300 was accepted), so every `data_rejected` bit was
 * free: naming a confidential column as a negbin weight asks "is any value ≤ 0?" at no cost.
 * Every request on a registered dataset now asks for at least the policy's `minEpsilon`
 * (owner-declared, default 0.01).
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

Deno.test("near-zero epsilon: refused below the policy's minimum, syntheses and tables alike", async () => {
  const t = await h.testApp({ workers: 1 });
  await h.withTenant(t, async ({ owner, analyst }) => {
    const { id: datasetId, info } = await h.registerConfidential(t, owner, 10, 40);
    for (const epsilon of [1e-9, 1e-300, 0.0099]) {
      await h.assertRefused(
        t,
        await h.post(t, "/v1/syntheses", analyst, { ...h.QUICK, datasetId, epsilon }),
        { status: 422, code: "epsilon_too_small", field: "epsilon" },
        analyst,
        `a synthesis at epsilon ${epsilon}`,
      );
    }
    assert.equal((info.policy as Record<string, unknown>).minEpsilon, 0.01, "the default minimum");
    const { id: survey } = await h.registerSurvey(t, owner, 10, {
      bounds: { salary: [0, 300_000], w: [0, 1000] },
    });
    await h.assertRefused(
      t,
      await h.post(t, "/v1/tables", analyst, {
        datasetId: survey,
        ...h.SURVEY_COLUMNS,
        method: "laplace",
        epsilon: 1e-9,
      }),
      { status: 422, code: "epsilon_too_small", field: "epsilon" },
      analyst,
      "a laplace table at epsilon 1e-9",
    );

    // An owner may raise the minimum; it is part of the public policy.
    const { id: strict, info: strictInfo } = await h.register(t, owner, {
      epsilonTotal: 10,
      csv: h.confidentialCsv(40),
      publicColumns: ["z"],
      minEpsilon: 0.5,
    });
    assert.equal((strictInfo.policy as Record<string, unknown>).minEpsilon, 0.5);
    await h.assertRefused(
      t,
      await h.post(t, "/v1/syntheses", analyst, { ...h.QUICK, datasetId: strict, epsilon: 0.25 }),
      { status: 422, code: "epsilon_too_small", field: "epsilon" },
      analyst,
      "a synthesis below the owner's minimum",
    );
    const ok = await h.post(t, "/v1/syntheses", analyst, {
      ...h.QUICK,
      datasetId: strict,
      epsilon: 0.5,
    });
    assert.equal(ok.status, 202, "the minimum itself is accepted");
    await h.waitFor(t, (await ok.json()).location, analyst);
    for (const id of [datasetId, survey]) {
      const budget = await (await h.get(t, `/v1/datasets/${id}/budget`, analyst)).json();
      assert.equal(budget.spent, 0, "refused requests are not charged");
    }
  });
});
