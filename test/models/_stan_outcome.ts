/**
 * The recorded rstan fits of the logistic, categorical and hurdle models
 * (test/reference/outcomes_stan.R) and the check that ppsynth's NUTS posterior means agree
 * with them within 4 combined MCSE, as test/mcmc/stan_covariates_test.ts does for the NB model.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  buildDesign,
  type Dataset,
  type DesignColumns,
  numericColumn,
  readCsv,
} from "../../src/data/mod.ts";
import { mcseMean } from "../../src/mcmc/diagnostics.ts";
import { createModel, type ModelName, outcomeKind } from "../../src/models/mod.ts";
import type { Model } from "../../src/models/model.ts";
import { fitForStan, parameterChains, type StanSummary } from "../mcmc/_stan_reference.ts";

/** The recorded fits: per model, its rstan summaries and sampler diagnostics. */
export const OUTCOME_REFERENCE = JSON.parse(
  await Deno.readTextFile(new URL("../reference/outcomes_expected.json", import.meta.url)),
) as {
  coefficients: string[];
  yc_levels: string[];
  fits: Record<
    "logistic" | "categorical" | "hurdle",
    { sampler: { divergences: number }; fit: Record<string, StanSummary> }
  >;
};

/** The reference data: z, g (covariates), yb, yc, yh (outcomes) and the weights alpha. */
export const OUTCOME_DATA: Dataset = await readCsv(
  new URL("../reference/outcomes_n800.csv", import.meta.url).pathname,
);

/** One parameter's agreement: the two means and |difference| in combined MCSE. */
export interface Agreement {
  readonly name: string;
  readonly ours: number;
  readonly stan: number;
  readonly inMcse: number;
}

/**
 * Builds the model `name` on the reference data's outcome `y` (with z and g as covariates),
 * fits it α-weighted with NUTS (4 chains × 1000 warmup + 1500 draws, two threads), and asserts that every
 * posterior mean is within 4 combined MCSE of rstan's.
 *
 * @param name the model.
 * @param columns the outcome column (and declared levels, if any).
 * @param stanName our parameter name → the Stan program's.
 * @returns the model and every parameter's agreement.
 */
export async function checkAgainstStan(
  name: ModelName & keyof typeof OUTCOME_REFERENCE.fits,
  columns: Omit<DesignColumns, "x">,
  stanName: (model: Model) => Record<string, string>,
): Promise<{ model: Model; agreements: Agreement[] }> {
  const design = buildDesign(OUTCOME_DATA, { ...columns, x: ["z", "g"] }, outcomeKind(name));
  assert.deepEqual(design.coefficientNames, OUTCOME_REFERENCE.coefficients);
  const model = createModel(name, design);
  const names = stanName(model);
  const reference = OUTCOME_REFERENCE.fits[name];
  assert.deepEqual(new Set(model.paramNames), new Set(Object.keys(names)));
  assert.deepEqual(new Set(Object.values(names)), new Set(Object.keys(reference.fit)));
  assert.equal(reference.sampler.divergences, 0, "the reference fit has divergences");
  const alpha = numericColumn(OUTCOME_DATA, "alpha");
  const fit = await fitForStan(model, { alpha }, 15, 1500);
  const agreements = model.paramNames.map((param, j) => {
    const stan = reference.fit[names[param]];
    const combined = Math.hypot(mcseMean(parameterChains(fit, j)), stan.mcse_mean);
    const ours = fit.summary[param].mean;
    return { name: param, ours, stan: stan.mean, inMcse: Math.abs(ours - stan.mean) / combined };
  });
  for (const a of agreements) {
    assert.ok(a.inMcse <= 4, `${a.name}: ppsynth ${a.ours}, Stan ${a.stan}, ${a.inMcse} MCSE`);
  }
  return { model, agreements };
}
