/**
 * The rstan reference fits of the negative binomial model (test/reference/nb_stan.R) and their
 * data, shared by the CPU NUTS and the GPU HMC reference tests; and the NUTS side of every
 * comparison with a recorded rstan fit.
 *
 * @module
 */
import assert from "node:assert/strict";
import { readCsv } from "../../src/data/mod.ts";
import { mcseMean } from "../../src/mcmc/diagnostics.ts";
import type { Fit } from "../../src/mcmc/fit.ts";
import { fitModelParallel } from "../../src/mcmc/parallel_fit.ts";
import type { Model, Weighting } from "../../src/models/model.ts";

/** One parameter of an rstan summary. */
export interface StanSummary {
  readonly mean: number;
  readonly mcse_mean: number;
}

const REFERENCE = JSON.parse(
  await Deno.readTextFile(new URL("../reference/nb_stan_expected.json", import.meta.url)),
) as { fits: Record<"unweighted" | "weighted", Record<string, StanSummary>> };

/** The data of the reference fits: y and the weights alpha. */
export const NB_DATA = await readCsv(
  new URL("../reference/nb_mixture_n1000.csv", import.meta.url).pathname,
);

/** Our parameter name → the Stan program's. */
const STAN_NAMES: Record<string, string> = {
  intercept: "beta",
  sigma_beta_intercept: "sigma_beta",
  phi: "phi",
};

/** rstan's summary of our parameter `name` in the weighted or unweighted fit. */
export function stanSummary(fit: "unweighted" | "weighted", name: string): StanSummary {
  return REFERENCE.fits[fit][STAN_NAMES[name]];
}

/** One parameter's draws of a fit, per chain (the input of R̂, ESS and MCSE). */
export function parameterChains(
  fit: { draws: Float64Array; chains: number; drawsPerChain: number; dim: number },
  j: number,
): Float64Array[] {
  return Array.from({ length: fit.chains }, (_, c) =>
    Float64Array.from(
      { length: fit.drawsPerChain },
      (_, s) => fit.draws[(c * fit.drawsPerChain + s) * fit.dim + j],
    ));
}

/**
 * NUTS on `model` as the rstan comparisons run it: 4 chains of `draws` after 1000 warmup, on two
 * threads; asserts that no draw diverged.
 */
export async function fitForStan(
  model: Model,
  weighting: Weighting,
  seed: number,
  draws: number,
): Promise<Fit> {
  const fit = await fitModelParallel(model, weighting, {
    seed,
    chains: 4,
    warmup: 1000,
    draws,
    threads: 2,
  });
  assert.equal(fit.divergences, 0);
  return fit;
}

/**
 * Asserts that every posterior mean of `fit` is within 4 combined MCSE, √(MCSE² + rstan's
 * mcse_mean²), of rstan's; `stanOf(name)` is rstan's summary of our parameter `name`.
 */
export function assertMeansMatchStan(fit: Fit, stanOf: (name: string) => StanSummary): void {
  fit.paramNames.forEach((name, j) => {
    const stan = stanOf(name);
    const combined = Math.hypot(mcseMean(parameterChains(fit, j)), stan.mcse_mean);
    const difference = fit.summary[name].mean - stan.mean;
    assert.ok(
      Math.abs(difference) <= 4 * combined,
      `${name}: ppsynth ${fit.summary[name].mean}, Stan ${stan.mean}, 4·MCSE ${4 * combined}`,
    );
  });
}
