/**
 * The settings of the five-synthesizer study (Study 3, SPEC §9.3), its synthesizers and their
 * labels in the slides.
 *
 * @module
 */
import { type SamplerSettings, STUDY_SAMPLER } from "./study_runner.ts";

/** Settings of the five-synthesizer study. */
export interface FiveSettings {
  /** Records per database. */
  readonly n: number;
  /** Shapes (a, b) of the Beta data. */
  readonly shape: readonly [number, number];
  /** Targets ε (m = 1). */
  readonly epsilons: readonly number[];
  /** Weighted-e and Censor w use LW weights with c = ε/reference, g = 0. */
  readonly reference: number;
  /**
   * The ε at which Weighted-e and Censor w also run without downscaling (c = 1, g = 0), the
   * slides' "fine tuning with downscaling" comparison (null: none).
   */
  readonly downscaling: number | null;
  /** Histogram bins (null: ⌈n^{1/3}⌉). */
  readonly bins: number | null;
  readonly sampler: SamplerSettings;
}

/**
 * SPEC §9.3 at full size: n = 2000, Beta(0.5, 3), ε ∈ {5, 4, 3}, c_ε = ε/5, and the slides'
 * downscaling comparison at ε = 4.
 */
export const FIVE_SETTINGS: FiveSettings = Object.freeze({
  n: 2000,
  shape: [0.5, 3] as const,
  epsilons: [5, 4, 3],
  reference: 5,
  downscaling: 4,
  bins: null,
  sampler: STUDY_SAMPLER,
});

/** The five synthesizers, by their `runMechanism` names ("lw" is Weighted). */
export const FIVE_MECHANISMS = ["lw", "weighted-e", "censored-w", "censored", "histogram"] as const;
export type FiveMechanism = typeof FIVE_MECHANISMS[number];

/** The slides' labels. */
export const FIVE_LABELS: Readonly<Record<FiveMechanism, string>> = Object.freeze({
  lw: "Weighted",
  "weighted-e": "Weighted-e",
  "censored-w": "Censor w",
  censored: "Censor uw",
  histogram: "PH",
});

/**
 * The synthesizers run under both tunings (issue 25): the slides tune Weighted by calibration and
 * Weighted-e and Censor w by the fixed rule c = ε/5, g = 0, so each is also run the other way.
 */
export const FIVE_TUNABLE = ["lw", "weighted-e", "censored-w"] as const;
export type FiveTunable = typeof FIVE_TUNABLE[number];

/**
 * The labels of the other tuning: Weighted at the slides' fixed rule (uncalibrated: its Δ, and
 * so its ε, is what the rule gives), Weighted-e and Censor w with Weighted's calibrated weights
 * (c = 1 and the database's calibrated g).
 */
export const RETUNED_LABELS: Readonly<Record<FiveTunable, string>> = Object.freeze({
  lw: "Weighted (c = ε/5, g = 0)",
  "weighted-e": "Weighted-e (calibrated g)",
  "censored-w": "Censor w (calibrated g)",
});

/** The synthesizers of the slides' downscaling comparison. */
export const FIVE_DOWNSCALED = ["weighted-e", "censored-w"] as const;
export type FiveDownscaled = typeof FIVE_DOWNSCALED[number];
