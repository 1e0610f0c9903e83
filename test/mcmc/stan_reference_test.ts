import assert from "node:assert/strict";
import { buildDesign, numericColumn, readCsv } from "../../src/data/mod.ts";
import { fitModel } from "../../src/mcmc/fit.ts";
import { mcseMean } from "../../src/mcmc/diagnostics.ts";
import { createModel } from "../../src/models/mod.ts";

interface StanSummary {
  mean: number;
  mcse_mean: number;
}
const REFERENCE = JSON.parse(
  await Deno.readTextFile(new URL("../reference/nb_stan_expected.json", import.meta.url)),
) as { fits: Record<"unweighted" | "weighted", Record<string, StanSummary>> };
const DATA = await readCsv(new URL("../reference/nb_mixture_n1000.csv", import.meta.url).pathname);

/** Our parameter name → the Stan program's. */
const STAN_NAMES: Record<string, string> = {
  intercept: "beta",
  sigma_beta_intercept: "sigma_beta",
  phi: "phi",
};

for (const fitName of ["unweighted", "weighted"] as const) {
  Deno.test(`NUTS posterior means of the NB model match rstan's (${fitName}) within 4 combined MCSE`, () => {
    const model = createModel("negbin", buildDesign(DATA, { y: "y" }, "count"));
    const alpha = fitName === "weighted" ? numericColumn(DATA, "alpha") : null;
    const fit = fitModel(model, { alpha }, { seed: 11, chains: 4, warmup: 1000, draws: 1000 });
    assert.equal(fit.divergences, 0);
    model.paramNames.forEach((name, j) => {
      const chains = Array.from({ length: fit.chains }, (_, c) =>
        Float64Array.from(
          { length: fit.drawsPerChain },
          (_, s) => fit.draws[(c * fit.drawsPerChain + s) * fit.dim + j],
        ));
      const stan = REFERENCE.fits[fitName][STAN_NAMES[name]];
      const combined = Math.hypot(mcseMean(chains), stan.mcse_mean);
      const difference = fit.summary[name].mean - stan.mean;
      assert.ok(
        Math.abs(difference) <= 4 * combined,
        `${name}: ppsynth ${fit.summary[name].mean}, Stan ${stan.mean}, 4·MCSE ${4 * combined}`,
      );
    });
  });
}
