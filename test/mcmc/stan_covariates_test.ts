/**
 * ppsynth's NUTS posterior of the α-weighted negative binomial model with covariates (y ~ z + b)
 * against the recorded rstan fit of test/reference/nb_covariates.stan
 * (test/reference/nb_covariates_stan.R, issue 13): every posterior mean within 4 combined MCSE.
 *
 * @module
 */
import assert from "node:assert/strict";
import { buildDesign, numericColumn, readCsv } from "../../src/data/mod.ts";
import { mcseMean } from "../../src/mcmc/diagnostics.ts";
import { fitModelParallel } from "../../src/mcmc/parallel_fit.ts";
import { createModel } from "../../src/models/mod.ts";
import { parameterChains, type StanSummary } from "./_stan_reference.ts";

const REFERENCE = JSON.parse(
  await Deno.readTextFile(new URL("../reference/nb_covariates_expected.json", import.meta.url)),
) as { coefficients: string[]; fit: Record<string, StanSummary> };

const DATA = await readCsv(
  new URL("../reference/nb_covariates_n2000.csv", import.meta.url).pathname,
);

/** Our parameter name → the Stan program's: coefficient j is beta[j+1], its scale sigma_beta[j+1]. */
const STAN_NAMES: Record<string, string> = Object.fromEntries([
  ...REFERENCE.coefficients.flatMap((c, j) => [
    [c, `beta[${j + 1}]`],
    [`sigma_beta_${c}`, `sigma_beta[${j + 1}]`],
  ]),
  ["phi", "phi"],
]);

Deno.test("NUTS posterior means of the weighted NB model with covariates match rstan's within 4 combined MCSE", async () => {
  const model = createModel("negbin", buildDesign(DATA, { y: "y", x: ["z", "b"] }, "count"));
  assert.deepEqual(new Set(model.paramNames), new Set(Object.keys(STAN_NAMES)));
  const alpha = numericColumn(DATA, "alpha");
  const fit = await fitModelParallel(model, { alpha }, {
    seed: 13,
    chains: 4,
    warmup: 1000,
    draws: 2500,
    threads: 2,
  });
  assert.equal(fit.divergences, 0);
  model.paramNames.forEach((name, j) => {
    const chains = parameterChains(fit, j);
    const stan = REFERENCE.fit[STAN_NAMES[name]];
    const combined = Math.hypot(mcseMean(chains), stan.mcse_mean);
    const difference = fit.summary[name].mean - stan.mean;
    assert.ok(
      Math.abs(difference) <= 4 * combined,
      `${name}: ppsynth ${fit.summary[name].mean}, Stan ${stan.mean}, 4·MCSE ${4 * combined}`,
    );
  });
});
