/**
 * The record and summary types of the five-synthesizer study (Study 3): what `five.ts` computes
 * and `five_document.ts` reports.
 *
 * @module
 */
import type { SampleSummary } from "../stats/sample_summary.ts";
import type { FiveDownscaled, FiveMechanism, FiveSettings, FiveTunable } from "./five_settings.ts";
import type { StudyResult } from "./study.ts";
import type { FitStats, Summary, TotalFitStats } from "./study_runner.ts";

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
