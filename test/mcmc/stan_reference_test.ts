import assert from "node:assert/strict";
import { buildDesign, numericColumn } from "../../src/data/mod.ts";
import { fitModel } from "../../src/mcmc/fit.ts";
import { mcseMean } from "../../src/mcmc/diagnostics.ts";
import { createModel } from "../../src/models/mod.ts";
import { NB_DATA, parameterChains, stanSummary } from "./_stan_reference.ts";

for (const fitName of ["unweighted", "weighted"] as const) {
  Deno.test(`NUTS posterior means of the NB model match rstan's (${fitName}) within 4 combined MCSE`, () => {
    const model = createModel("negbin", buildDesign(NB_DATA, { y: "y" }, "count"));
    const alpha = fitName === "weighted" ? numericColumn(NB_DATA, "alpha") : null;
    const fit = fitModel(model, { alpha }, { seed: 11, chains: 4, warmup: 1000, draws: 1000 });
    assert.equal(fit.divergences, 0);
    model.paramNames.forEach((name, j) => {
      const chains = parameterChains(fit, j);
      const stan = stanSummary(fitName, name);
      const combined = Math.hypot(mcseMean(chains), stan.mcse_mean);
      const difference = fit.summary[name].mean - stan.mean;
      assert.ok(
        Math.abs(difference) <= 4 * combined,
        `${name}: ppsynth ${fit.summary[name].mean}, Stan ${stan.mean}, 4·MCSE ${4 * combined}`,
      );
    });
  });
}
