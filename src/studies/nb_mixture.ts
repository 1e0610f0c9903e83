/**
 * The skewed count data of SPEC §9.2 (vector-weighted paper §3.2):
 * y ~ 0.2·NB(μ = 100, φ = 5) + 0.8·NB(μ = 100, φ = 20).
 *
 * @module
 */
import { sampleNegBinomial } from "../random/distributions.ts";
import type { Rng } from "../random/rng.ts";

/** Mixture weight of the over-dispersed component. */
export const MIXTURE_WEIGHT = 0.2;

/**
 * Draws n counts from the NB mixture of SPEC §9.2.
 *
 * @param rng The random stream.
 * @param n How many records.
 */
export function simulateNbMixture(rng: Rng, n: number): Float64Array {
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const phi = rng.uniform() < MIXTURE_WEIGHT ? 5 : 20;
    y[i] = sampleNegBinomial(rng, 100, phi);
  }
  return y;
}
