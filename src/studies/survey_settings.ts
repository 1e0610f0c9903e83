/**
 * The settings of the survey study (Study 4, SPEC §9.4), its synthesizers, the tables it
 * compares and the two estimands of every cell.
 *
 * @module
 */
import type { SamplerSettings } from "./study_runner.ts";

/** Settings of the survey study. */
export interface SurveySettings {
  /** Population size N. */
  readonly populationSize: number;
  /** Sample size n. */
  readonly n: number;
  /** The Lipschitz target Δ* of FBS and FBP (ε = 2·Δ*·m). */
  readonly lipschitz: number;
  /** The numbers of synthetic datasets m compared (Figure 6), ascending. */
  readonly ms: readonly number[];
  /** The m of the coverage tables (Appendix F). */
  readonly coverageM: number;
  /** Random-group replicates of the Laplace baseline's variance. */
  readonly laplaceReplicates: number;
  readonly sampler: SamplerSettings;
}

/** SPEC §9.4 at full size: N = 100,000, n = 1000, Δ* = 1.8, m ∈ {1, 3, 5}, coverage at m = 3. */
export const SURVEY_SETTINGS: SurveySettings = Object.freeze({
  populationSize: 100_000,
  n: 1000,
  lipschitz: 1.8,
  ms: Object.freeze([1, 3, 5]),
  coverageM: 3,
  laplaceReplicates: 10,
  sampler: Object.freeze({ chains: 2, warmup: 400, draws: 500 }),
});

/** The synthesizers, by their model names. */
export const SURVEY_SYNTHESIZERS = ["fbs", "fbp"] as const;
export type Synthesizer = typeof SURVEY_SYNTHESIZERS[number];
/** The private tables compared with the sample. */
export const SURVEY_METHODS = ["fbs", "fbp", "laplace"] as const;
export type Method = typeof SURVEY_METHODS[number];
/** The tables whose coverage is recorded (the sample is the non-private benchmark). */
export const COVERAGE_METHODS = ["sample", "fbs", "fbp", "laplace"] as const;
export type CoverageMethod = typeof COVERAGE_METHODS[number];
/** The two estimands of every cell. */
export const QUANTITIES = ["count", "mean"] as const;
export type Quantity = typeof QUANTITIES[number];
