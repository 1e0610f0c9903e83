/**
 * The rstan reference fits of the negative binomial model (test/reference/nb_stan.R) and their
 * data, shared by the CPU NUTS and the GPU HMC reference tests.
 *
 * @module
 */
import { readCsv } from "../../src/data/mod.ts";

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
