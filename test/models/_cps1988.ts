/**
 * CPS1988's parttime fit of the recorded rstan reference (test/reference/cps1988_stan.R,
 * `cps1988_expected.json`): the design, the default logistic model on it and the reference, for
 * `cps1988_stan_test.ts` and `bench/gpu_vs_stan.ts`.
 *
 * @module
 */
import { buildDesign, type Design, readCsv } from "../../src/data/mod.ts";
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

/**
 * The records of `design` with equal covariates and outcome merged into one, each weighted by
 * its count: Σ_i ℓ(θ; x_i, y_i) = Σ_g c_g·ℓ(θ; x_g, y_g), so the α-weighted model on the merged
 * design with α_g = c_g has the unweighted model's log density (up to rounding) at 1/10 of the
 * records on CPS1988 (2,906 distinct rows of 28,155).
 *
 * @param design A design, unweighted.
 * @returns The merged design (rows in order of first appearance) and the counts as α.
 */
export function mergeEqualRecords(design: Design): { design: Design; alpha: Float64Array } {
  const { n, k } = design;
  const index = new Map<string, number>();
  const rows: number[] = [];
  const counts: number[] = [];
  for (let i = 0; i < n; i++) {
    const key = [design.y[i], ...design.x.subarray(i * k, (i + 1) * k)].join(",");
    const group = index.get(key);
    if (group === undefined) {
      index.set(key, rows.length);
      rows.push(i);
      counts.push(1);
    } else counts[group]++;
  }
  const x = new Float64Array(rows.length * k);
  rows.forEach((i, g) => x.set(design.x.subarray(i * k, (i + 1) * k), g * k));
  return {
    design: { ...design, n: rows.length, x, y: Float64Array.from(rows, (i) => design.y[i]) },
    alpha: Float64Array.from(counts),
  };
}
