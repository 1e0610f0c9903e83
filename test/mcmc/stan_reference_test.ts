import assert from "node:assert/strict";
import { buildDesign, numericColumn } from "../../src/data/mod.ts";
import { fitModel } from "../../src/mcmc/fit.ts";
import { createModel } from "../../src/models/mod.ts";
import { assertMeansMatchStan, NB_DATA, stanSummary } from "./_stan_reference.ts";

for (const fitName of ["unweighted", "weighted"] as const) {
  Deno.test(`NUTS posterior means of the NB model match rstan's (${fitName}) within 4 combined MCSE`, () => {
    const model = createModel("negbin", buildDesign(NB_DATA, { y: "y" }, "count"));
    const alpha = fitName === "weighted" ? numericColumn(NB_DATA, "alpha") : null;
    const fit = fitModel(model, { alpha }, { seed: 11, chains: 4, warmup: 1000, draws: 1000 });
    assert.equal(fit.divergences, 0);
    assertMeansMatchStan(fit, (name) => stanSummary(fitName, name));
  });
}
