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
          // 1,600 draws at seed 3 (issue 36; 4,000 before): the request's shape and the report
          // are checked.
          draws: 1600,
          chains: 4,
          warmup: 300,
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
    const html = await page.text();
    assert.match(html, /<svg/);
    // The release first: the job's report (inline data: the achieved ε), the request's target,
    // the fit's health from the owner's diagnostics.
    assert.equal(/<section id="([^"]+)"/.exec(html)?.[1], "release");
    assert.match(html, /data-field="Target ε"><th>[^<]*<\/th><td>40</);
    assert.match(html, /data-field="Guarantee"><th>[^<]*<\/th><td><strong>aDP/);
    assert.match(
      html,
      new RegExp(
        `data-field="Divergent transitions"><th>[^<]*</th><td>${diagnostics.fit.divergences}`,
      ),
    );
    assert.doesNotMatch(html, /data-field="ε achieved"/, "inline data: the report states it");
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

Deno.test("a categorical outcome on a registered dataset takes its level set from the policy", async () => {
  const t = await h.testApp();
  try {
    const rows = ["z,kind"];
    for (let i = 0; i < 40; i++) rows.push(`${(i % 4) / 4},${["red", "green", "blue"][i % 3]}`);
    const register = (levels: string) =>
      t.app.request(
        `/v1/datasets?epsilonTotal=1000&name=k&publicColumns=z${levels}`,
        { method: "POST", headers: h.auth(t.keys.admin, "text/csv"), body: rows.join("\n") },
      );
    const submit = (datasetId: string) =>
      t.app.request("/v1/syntheses", {
        method: "POST",
        headers: h.auth(t.keys.all),
        body: JSON.stringify({
          datasetId,
          y: "kind",
          x: ["z"],
          model: "categorical",
          mechanism: "unweighted",
          epsilon: 500,
          // Unseeded (a registered dataset): 4,000 draws. At 2,000, 3 of 300 such fits failed
          // their diagnostics (R̂ up to 1.018). At 4,000 (issue 36: this job's path, unseeded):
          // 7 of 1,200 failed at warmup 300 and 3 of 600 at warmup 1,000, every one by divergent
          // transitions (1 to 19) in the full-warmup refit, none by R̂ or ESS; violet (no records)
          // mixes worst, its intercept with the least bulk ESS in 584 of 600. Without z 44 of 600
          // failed (39 divergent). No request setting passed. Since a release's divergent fit is
          // refitted at target acceptance 0.95 (decisions.md), none of 300 was refused with z nor
          // without it (13 divergent fits there, all refitted clean); a refused one is still
          // retried once below, as an analyst would, after checking why it was refused.
          draws: 4000,
          chains: 4,
          warmup: 300,
        }),
      });
    // No declared level set: the levels would be read off the confidential data.
    const undeclared = await register("");
    assert.equal(undeclared.status, 201);
    const refused = await submit((await undeclared.json()).id);
    assert.equal(refused.status, 422);
    const body = await refused.json();
    assert.deepEqual([body.error.code, body.error.field], ["levels_required", "y"]);
    // A declared set the data leave: refused at registration, naming the field.
    const registerJson = (levels: string[]) =>
      t.app.request("/v1/datasets", {
        method: "POST",
        headers: h.auth(t.keys.admin),
        body: JSON.stringify({
          epsilonTotal: 1000,
          name: "k",
          csv: rows.join("\n"),
          publicColumns: ["z"],
          levels: { kind: levels },
          allowUnweighted: true,
        }),
      });
    const outside = await registerJson(["red", "green"]);
    assert.equal(outside.status, 400);
    assert.match(await outside.text(), /levels\.kind/);
    // Declared (with a level the data lack): the synthesis releases only declared levels.
    const declared = await registerJson(["red", "green", "blue", "violet"]);
    assert.equal(declared.status, 201);
    const declaredId = (await declared.json()).id;
    const get = (path: string) =>
      t.app.request(path, { headers: { Authorization: `Bearer ${t.keys.all}` } });
    // Two tries fit the budget (2 × ε 500 of 1,000).
    let job: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 2 && job.status !== "succeeded"; attempt++) {
      const accepted = await submit(declaredId);
      assert.equal(accepted.status, 202, await accepted.clone().text());
      job = await h.waitForJob(get, (await accepted.json()).id);
      if (job.status === "failed") {
        assert.equal((job.error as { code: string }).code, "data_rejected", JSON.stringify(job));
        const reason = await (await get(`/v1/syntheses/${job.id}/diagnostics`)).json();
        assert.equal(reason.failure.code, "fit_flagged", JSON.stringify(reason));
      }
    }
    assert.equal(job.status, "succeeded", JSON.stringify(job));
    const csv = await (await get((job.datasets as string[])[0])).text();
    const values = csv.trim().split("\n").slice(1).map((line) => line.split(",")[1]);
    assert.equal(values.length, 40);
    assert.ok(values.every((v) => ["red", "green", "blue", "violet"].includes(v)), csv);
  } finally {
    await t.close();
  }
});
