import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

/** Inline data: a public z, a count a and an amount b. */
function csv(n: number): string {
  const rows = ["z,a,b"];
  for (let i = 0; i < n; i++) {
    const a = (i * 7) % 5;
    rows.push(`${(i % 10) / 10},${a},${(3 + 0.4 * a + ((i * 11) % 9) / 9).toFixed(4)}`);
  }
  return rows.join("\n") + "\n";
}

Deno.test("POST /v1/syntheses takes several outcomes, one model each, under one guarantee", async () => {
  const t = await h.testApp();
  try {
    const get = (path: string) =>
      t.app.request(path, { headers: { Authorization: `Bearer ${t.keys.all}` } });
    const submit = (body: Record<string, unknown>) =>
      t.app.request("/v1/syntheses", {
        method: "POST",
        headers: h.auth(t.keys.all),
        body: JSON.stringify({
          csv: csv(50),
          x: ["z"],
          mechanism: "lw",
          epsilon: 40,
          draws: 60,
          chains: 2,
          warmup: 60,
          seed: 3,
          ...body,
        }),
      });
    const accepted = await submit({ y: ["a", "b"], model: ["poisson", "normal"] });
    assert.equal(accepted.status, 202, await accepted.clone().text());
    const job = await h.waitForJob(get, (await accepted.json()).id);
    assert.equal(job.status, "succeeded", JSON.stringify(job));
    const report = job.report as Record<string, unknown>;
    assert.equal(report.model, "joint");
    assert.deepEqual(report.outcomes, [{ y: "a", model: "poisson" }, { y: "b", model: "normal" }]);
    assert.deepEqual(report.columns, ["z", "a", "b"]);
    // The owner's utility report: in the diagnostics and as a page, never for a read key.
    const id = job.id as string;
    const diagnostics = await (await get(`/v1/syntheses/${id}/diagnostics`)).json();
    assert.equal(diagnostics.utilityReport.m, 1);
    assert.ok(diagnostics.riskReport);
    const page = await get(`/v1/syntheses/${id}/report.html`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<svg/);
    const readOnly = await t.app.request(`/v1/syntheses/${id}/report.html`, {
      headers: { Authorization: `Bearer ${t.keys.read}` },
    });
    assert.equal(readOnly.status, 403);

    // Bad lists: a 422 naming the field, before any work.
    for (
      const [body, field] of [
        [{ y: ["a", "b"], model: ["poisson"] }, "model"],
        [{ y: ["a", "b"], model: ["poisson", "fbs"] }, "model"],
        [{ y: ["a", "b"], model: ["poisson", "normal"], mechanism: "cw" }, "mechanism"],
        [{ y: ["a", "c"], model: ["poisson", "normal"] }, 'column \\\\"c\\\\": missing column'],
      ] as const
    ) {
      const refused = await submit(body);
      assert.ok(refused.status === 422 || refused.status === 400, `${refused.status}`);
      const text = await refused.text();
      assert.match(text, new RegExp(field), text);
    }
  } finally {
    await t.close();
  }
});
