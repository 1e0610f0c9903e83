/**
 * Attack 4 of issue 11, bounds probing: the perturbed histogram failed at zero ε with "row 0 is
 * outside the bounds", so an analyst choosing `lower`/`upper` learnt whether any value lay
 * outside them. On a registered dataset the bounds come from the owner's policy, values outside
 * them are clamped (the job succeeds), and a request's own bounds are refused.
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

const LOWER = 0;
const UPPER = 3;

Deno.test("bounds probing: registered bounds clamp, and a request's own bounds are refused", async () => {
  const t = await h.testApp();
  await h.withTenant(t, async ({ owner, analyst }) => {
    // y in (2, 4): about half of the values lie above the registered upper bound 3.
    const y = h.confidentialValues(50).map(Number);
    assert.ok(y.some((v) => v > UPPER) && y.some((v) => v < UPPER));
    const records = y.map((value, i) => ({ y: value, z: (i % 5) / 5 }));
    const { id: datasetId } = await h.register(t, owner, {
      epsilonTotal: 10,
      records,
      publicColumns: ["z"],
      bounds: { y: [LOWER, UPPER] },
    });
    const histogram = { ...h.HISTOGRAM_OF_Y, m: 2, datasetId };

    // The probe: the analyst's own bounds, tighter than the data, at any ε.
    await h.assertRefused(
      t,
      await h.post(
        t,
        "/v1/syntheses",
        analyst,
        { ...histogram, lower: 2.5, upper: 3.5 },
        "probe-1",
      ),
      { status: 422 },
      analyst,
      "a histogram with the request's own lower/upper",
    );
    await h.assertRefused(
      t,
      await h.post(t, "/v1/syntheses", analyst, { ...histogram, upper: 3.9 }, "probe-2"),
      { status: 422 },
      analyst,
      "a histogram with the request's own upper",
    );

    // The data lie partly outside the registered bounds: clamped, the job succeeds.
    const accepted = await h.post(t, "/v1/syntheses", analyst, histogram, "clamped");
    const { location } = await accepted.json();
    assert.equal(accepted.status, 202);
    const job = await h.waitFor(t, location, analyst);
    assert.equal(
      job.status,
      "succeeded",
      `the job failed on the data: ${JSON.stringify(job.error)}`,
    );
    for (const path of job.datasets as string[]) {
      const csv = await (await h.get(t, path, analyst)).text();
      const lines = csv.trim().split("\n");
      const column = lines[0].split(",").indexOf("y");
      const values = lines.slice(1).map((line) => Number(line.split(",")[column]));
      assert.equal(values.length, y.length);
      assert.ok(values.every((v) => v >= LOWER && v <= UPPER), "synthetic y within the bounds");
    }
  });
});
