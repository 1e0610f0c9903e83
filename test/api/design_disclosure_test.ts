/**
 * Issue 24 through the API: registering a survey file with its weight declared as a design column
 * and named public is refused (400 `invalid_policy`, naming `publicColumns.2`) unless the owner
 * declares `discloseDesign: true`; the registered policy shows the design either way.
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

const NHANES = new URL("../../examples/nhanes.csv", import.meta.url).pathname;

Deno.test("registering NHANES with its weight public: 400 invalid_policy without discloseDesign", async () => {
  const t = await h.testApp({}, false);
  const { app, keys } = t;
  try {
    const csv = (await Deno.readTextFile(NHANES)).split("\n").slice(0, 301).join("\n") + "\n";
    const register = (extra: Record<string, unknown>) =>
      app.request("/v1/datasets", {
        method: "POST",
        headers: h.auth(keys.admin),
        body: JSON.stringify({
          epsilonTotal: 10,
          csv,
          surveyDesign: { weight: "weight", strata: "stratum", psu: "psu" },
          publicColumns: ["agecat", "gender", "weight"],
          ...extra,
        }),
      });
    const refused = await register({});
    assert.equal(refused.status, 400);
    const { error } = await refused.json();
    assert.equal(error.code, "invalid_policy");
    assert.equal(error.field, "publicColumns.2");
    assert.match(error.message, /survey design column.*discloseDesign: true/);

    const typo = await register({ surveyDesign: { weight: "weight", psu: "sdmvpsu" } });
    assert.equal(typo.status, 400);
    assert.equal((await typo.json()).error.field, "surveyDesign.psu");

    const disclosed = await register({ discloseDesign: true });
    assert.equal(disclosed.status, 201);
    const info = await disclosed.json();
    assert.deepEqual(info.policy.surveyDesign, { weight: "weight", strata: "stratum", psu: "psu" });
    assert.equal(info.policy.designDisclosed, true);
    const read = await app.request(`/v1/datasets/${info.id}`, { headers: h.auth(keys.read) });
    assert.deepEqual(await read.json(), info);

    // A registration without the new fields answers as before, with no design declared.
    const plain = await app.request("/v1/datasets?epsilonTotal=10&publicColumns=agecat,weight", {
      method: "POST",
      headers: h.auth(keys.admin, "text/csv"),
      body: csv,
    });
    assert.equal(plain.status, 201);
    const plainInfo = await plain.json();
    assert.deepEqual(plainInfo.policy.surveyDesign, {});
    assert.equal(plainInfo.policy.designDisclosed, false);
  } finally {
    await t.close();
  }
});
