/**
 * The settings of the contraction study (Study 1, SPEC §9.1) and the mechanisms it compares.
 *
 * @module
 */
import { type SamplerSettings, STUDY_SAMPLER } from "./study_runner.ts";

/** Settings of the contraction study. */
export interface ContractionSettings {
  /** Database sizes n. */
  readonly sizes: readonly number[];
  /** Mean μ of the Poisson data. */
  readonly mean: number;
  /** The fixed LW rule α_i = clamp(c·(1 − f̃_i) + g, 0, 1). */
  readonly c: number;
  readonly g: number;
  /** Global target ε of Weighted-e (m = 1): records with Δ_{α,x_i} > ε/2 get α_i = 0. */
  readonly epsilon: number;
  readonly sampler: SamplerSettings;
}

/** SPEC §9.1 at full size: n ∈ {100, 400, 1600, 6400}, Poisson(100), c = 1, g = 0, ε = 7. */
export const CONTRACTION_SETTINGS: ContractionSettings = Object.freeze({
  sizes: [100, 400, 1600, 6400],
  mean: 100,
  c: 1,
  g: 0,
  epsilon: 7,
  sampler: STUDY_SAMPLER,
});

/** The mechanisms compared, by their `runMechanism` names. */
export const CONTRACTION_MECHANISMS = ["unweighted", "lw", "weighted-e"] as const;
