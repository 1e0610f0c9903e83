/**
 * CPS1988's parttime fit of the recorded rstan reference (test/reference/cps1988_stan.R,
 * `cps1988_expected.json`): the design, the default logistic model on it and the reference, for
 * `cps1988_stan_test.ts` and `bench/gpu_vs_stan.ts`.
 *
 * @module
 */
import { buildDesign, readCsv } from "../../src/data/mod.ts";
import { createModel } from "../../src/models/mod.ts";

/** One coefficient of the rstan summary. */
export interface StanCoefficient {
  readonly mean: number;
  readonly sd: number;
  readonly ess_bulk: number;
}

/** The recorded rstan fit (the fields the comparisons read). */
export const CPS1988_REFERENCE = JSON.parse(
  await Deno.readTextFile(new URL("../reference/cps1988_expected.json", import.meta.url)),
) as {
  coefficients: string[];
  data: { n: number; outcome_levels: string[] };
  sampler: { divergences: number; sampling_wall_seconds: number; ess_bulk_per_second_min: number };
  fit: Record<string, StanCoefficient>;
};

const DATA = await readCsv(new URL("../../examples/cps1988.csv", import.meta.url).pathname);

/** The design of the reference fit, its text covariates' levels declared as the R script codes them. */
export const CPS1988_DESIGN = buildDesign(DATA, {
  y: "parttime",
  x: ["education", "experience", "ethnicity", "smsa"],
  levels: ["no", "yes"],
  covariateLevels: { ethnicity: ["cauc", "afam"], smsa: ["no", "yes"] },
}, "binary");

/** ppsynth's default logistic model (the `student-t` prior) on it. */
export const CPS1988_MODEL = createModel("logistic", {
  ...CPS1988_DESIGN,
  coefficientPrior: "student-t",
});
