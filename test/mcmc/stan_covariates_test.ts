/**
 * ppsynth's NUTS posterior of the α-weighted negative binomial model with covariates (y ~ z + b)
 * against the recorded rstan fit of test/reference/nb_covariates.stan
 * (test/reference/nb_covariates_stan.R, issue 13): every posterior mean within 4 combined MCSE.
 *
 * @module
 */
import assert from "node:assert/strict";
import { buildDesign, numericColumn, readCsv } from "../../src/data/mod.ts";
import { createModel } from "../../src/models/mod.ts";
import { assertMeansMatchStan, fitForStan, type StanSummary } from "./_stan_reference.ts";

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
  const fit = await fitForStan(model, { alpha }, 13, 2500);
  assertMeansMatchStan(fit, (name) => REFERENCE.fit[STAN_NAMES[name]]);
});
