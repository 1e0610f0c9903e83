/**
 * The posteriors whose GPU HMC means are checked against a recorded NUTS fit
 * (`checkGpuHmcAgainstNuts` in `_check_means.ts`), and how that fit is made and identified.
 * `test/reference/gpu_nuts_reference.ts` records each case's NUTS means and MCSE in
 * `test/reference/gpu_nuts_expected.json`, with the case's fingerprint.
 *
 * @module
 */
import type { FitOptions } from "../../src/mcmc/fit.ts";
import type { Model, Weighting } from "../../src/models/model.ts";
import { categoricalRegression, dataset, studentTRegression, weights } from "./_glm_data.ts";

/** A model and the weighting whose pseudo posterior is sampled. */
export interface NutsCase {
  readonly model: Model;
  readonly weighting: Weighting;
}

/** The cases by name: the GLMs (`hmc_glm_test`), categorical, and the `student-t` prior's. */
export const NUTS_CASES = {
  "logistic": () => ({
    model: dataset("logistic", 600, 21),
    weighting: { alpha: weights(600, 22) },
  }),
  "normal": () => ({ model: dataset("normal", 600, 21), weighting: { alpha: weights(600, 22) } }),
  "lognormal": () => ({
    model: dataset("lognormal", 600, 21),
    weighting: { alpha: weights(600, 22) },
  }),
  // Unweighted: with these weights (effective n ≈ 170) NUTS meets the paper prior's funnel
  // (59 to 135 divergences in 8,000 draws), and the reference would be biased.
  "categorical": () => ({
    model: categoricalRegression(400, 3, 2, 31),
    weighting: { alpha: null },
  }),
  "student-t logistic": () => ({
    model: studentTRegression("logistic", 400, 3, 41),
    weighting: { alpha: weights(400, 42) },
  }),
  "student-t lognormal": () => ({
    model: studentTRegression("lognormal", 400, 2, 41),
    weighting: { alpha: weights(400, 42) },
  }),
} satisfies Record<string, () => NutsCase>;

/** A case's name. */
export type NutsCaseName = keyof typeof NUTS_CASES;

/** The reference fit: 4 chains × 2,000 draws after 500 warmup, seed 3 (none may diverge). */
export const NUTS_REFERENCE: FitOptions = { seed: 3, chains: 4, warmup: 500, draws: 2000 };

/**
 * What identifies a case's pseudo posterior: its parameters, its records, and its f64 log target
 * and gradient (`model.logDensity` under the weighting: the data, weights and prior) at the
 * starting point and at two points around it. A recorded fit is that case's only while these are
 * equal bit for bit.
 */
export function fingerprint({ model, weighting }: NutsCase): {
  model: string;
  paramNames: readonly string[];
  n: number;
  logDensity: number[];
} {
  const init = model.initialPoint();
  const logDensity: number[] = [];
  for (const shift of [0, 0.3, -0.2]) {
    const u = init.map((v, j) => v + shift * (j % 2 === 0 ? 1 : -1));
    const grad = new Float64Array(model.dim);
    logDensity.push(model.logDensity(u, grad, weighting), ...grad);
  }
  return { model: model.name, paramNames: model.paramNames, n: model.design.n, logDensity };
}
