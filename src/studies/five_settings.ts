/**
 * The settings of the five-synthesizer study (Study 3, SPEC §9.3), its synthesizers and their
 * labels in the slides, and the shapes of its records and summary (plain JSON): what `five.ts`
 * computes and `five_document.ts` reports.
 *
 * @module
 */
import type { SampleSummary } from "../stats/sample_summary.ts";
import type { StudyResult } from "./study.ts";
import type { FitStats, SamplerSettings, Summary, TotalFitStats } from "./study_runner.ts";
import { STUDY_SAMPLER } from "./study_runner.ts";

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

/** One synthesizer at one ε on one database. */
export interface FiveEntry {
  /** Δ of the released draws (censoring: of the clamped contributions; PH: null). */
  readonly lipschitz: number | null;
  /** ε of the release. */
  readonly epsilon: number;
  /** Censoring only: max_{i,s} |α_i ℓ_i(θ_s)| before clamping. */
  readonly unclamped: number | null;
  /** Weighted: the calibrated g. */
  readonly g: number | null;
  /** Records with α_i = 0. */
  readonly zeroWeights: number;
  readonly synthetic: SampleSummary;
  readonly ecdfMax: number;
  readonly ecdfMeanSquared: number;
}

/** At one ε: each synthesizer's T (null if calibration failed), and under its other tuning. */
export interface PerEpsilon<T> {
  readonly epsilon: number;
  readonly mechanisms: Readonly<Record<FiveMechanism, T | null>>;
  /** Each tunable synthesizer under its other tuning (`RETUNED_LABELS`). */
  readonly retuned: Readonly<Record<FiveTunable, T | null>>;
}

/** Replicate r: the data's summary and, per ε, each synthesizer (null if calibration failed). */
export interface FiveRecord {
  readonly r: number;
  readonly data: SampleSummary;
  readonly epsilons: readonly (PerEpsilon<FiveEntry> & {
    /**
     * At the settings' `downscaling` ε only: Weighted-e and Censor w with downscaling (c = ε/5)
     * and without (c = 1), g = 0, measured whether or not the cap would release them.
     */
    readonly downscaling?: Readonly<
      Record<"scaled" | "unscaled", Readonly<Record<FiveDownscaled, FiveEntry | null>>>
    >;
  })[];
  readonly fits: FitStats;
}

/** One synthesizer at one ε over the replicates. */
export interface FiveCell {
  /** Replicates where it ran (calibration succeeded). */
  readonly replicates: number;
  /** Δ over replicates (null for PH). */
  readonly lipschitz: Summary | null;
  /** Share of replicates with Δ > ε/2 (null for PH). */
  readonly shareAbove: number | null;
  readonly ecdfMax: Summary;
  readonly ecdfMeanSquared: Summary;
  /** The synthetic median over replicates. */
  readonly median: Summary;
  /** Mean of (synthetic median − analytic median). */
  readonly medianBias: number;
  /** √mean (synthetic median − analytic median)². */
  readonly medianRmse: number;
  readonly zeroWeightsMean: number;
}

/** The aggregate of the five-synthesizer study. */
export interface FiveSummary {
  /** The median of Beta(a, b), by bisection on I_x(a, b). */
  readonly analyticMedian: number;
  /** The confidential data's median over replicates. */
  readonly dataMedian: Summary;
  readonly epsilons: readonly (PerEpsilon<FiveCell> & {
    /** Synthesizers from best to worst by mean max-ECDF. */
    readonly rankEcdfMax: readonly FiveMechanism[];
    /** Synthesizers from best to worst by mean mean-squared ECDF. */
    readonly rankEcdfMeanSquared: readonly FiveMechanism[];
  })[];
  readonly fits: TotalFitStats;
}

/** The five-synthesizer study's result. */
export type FiveResult = StudyResult<FiveSettings, FiveRecord, FiveSummary>;
