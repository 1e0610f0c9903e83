/**
 * The settings of the re-weighting study (Study 2, SPEC §9.2), its synthesizers and the
 * statistics of its Table 1, and the shapes of its records and summary (plain JSON).
 *
 * @module
 */
import type { MechanismName } from "../mechanisms/mechanism.ts";
import type { FitStats, SamplerSettings, Summary, TotalFitStats } from "./study_runner.ts";
import { STUDY_SAMPLER } from "./study_runner.ts";
import type { StudyResult } from "./study.ts";
import type { SummaryIntervals } from "../stats/bootstrap.ts";
import type { SampleSummary } from "../stats/sample_summary.ts";

/** Settings of the re-weighting study. */
export interface ReweightSettings {
  /** Records per database. */
  readonly n: number;
  /** Common target ε (m = 1) of LW and CW and cap of LW_final and CW_final. */
  readonly epsilon: number;
  /** Scale c of the LW and CW weights (g is calibrated, or 0 for the unshifted CW rule). */
  readonly c: number;
  /** CW ball radius ρ (relative) or r (absolute). */
  readonly radius: number;
  readonly relativeRadius: boolean;
  /**
   * Synthetic datasets per synthesizer and database (from distinct, evenly spaced draws): the
   * first is the release whose bootstrap intervals make Table 1; the means over all of them give
   * the intervals over databases reported beside it.
   */
  readonly datasets: number;
  /** Bootstrap resamples B of each dataset's 95% confidence intervals (Table 1). */
  readonly bootstrap: number;
  readonly sampler: SamplerSettings;
}

/**
 * SPEC §9.2 at full size: n = 1000, ε = 12 (Δ ≤ 6), c = 1, ρ = 0.1 relative, 100 synthetic
 * datasets per synthesizer and database, B = 1000 bootstrap resamples.
 */
export const REWEIGHT_SETTINGS: ReweightSettings = Object.freeze({
  n: 1000,
  epsilon: 12,
  c: 1,
  radius: 0.1,
  relativeRadius: true,
  datasets: 100,
  bootstrap: 1000,
  sampler: STUDY_SAMPLER,
});

/**
 * The synthesizers, in the table's order: the paper's five (Unweighted, LW, LW_final, CW,
 * CW_final, LW and CW calibrated to the common ε), SW matched to LW's Δ, and CW with the
 * unshifted rule (c = 1, g = 0, Algorithm 2 as printed) with its re-weighted form.
 */
export const REWEIGHT_MECHANISMS = [
  "unweighted",
  "lw",
  "lw-final",
  "cw",
  "cw-final",
  "sw",
  "cw-g0",
  "cw-final-g0",
] as const;
export type ReweightMechanism = typeof REWEIGHT_MECHANISMS[number];

/** The pipeline mechanism behind each synthesizer and whether its shift is fixed at g = 0. */
export const REWEIGHT_PLANS: Readonly<
  Record<ReweightMechanism, { readonly mechanism: MechanismName; readonly unshifted: boolean }>
> = Object.freeze({
  unweighted: { mechanism: "unweighted", unshifted: false },
  lw: { mechanism: "lw", unshifted: false },
  "lw-final": { mechanism: "lw-final", unshifted: false },
  cw: { mechanism: "cw", unshifted: false },
  "cw-final": { mechanism: "cw-final", unshifted: false },
  sw: { mechanism: "sw", unshifted: false },
  "cw-g0": { mechanism: "cw", unshifted: true },
  "cw-final-g0": { mechanism: "cw-final", unshifted: true },
});

/** The synthesizers' labels in the report. */
export const REWEIGHT_LABELS: Readonly<Record<ReweightMechanism, string>> = Object.freeze({
  unweighted: "Unweighted",
  lw: "LW",
  "lw-final": "LW_final",
  cw: "CW",
  "cw-final": "CW_final",
  sw: "SW",
  "cw-g0": "CW (g = 0)",
  "cw-final-g0": "CW_final (g = 0)",
});

/** The statistics of Table 1, in its row order. */
export const TABLE_STATISTICS = ["q15", "q90", "mean", "median"] as const;

/** One synthesizer on one database. */
export interface ReweightEntry {
  /** Δ_{α,x} of the fit that generated the data. */
  readonly lipschitz: number;
  /** ε of the release (2Δ, m = 1). */
  readonly epsilon: number;
  /** The shift g (calibrated, or 0 for the unshifted CW; null when unweighted or SW). */
  readonly g: number | null;
  /** The accepted re-weighting constant k (null when none kept Δ, or not re-weighted). */
  readonly k: number | null;
  /** Mean weight ᾱ of the final fit (1 when unweighted). */
  readonly alphaMean: number;
  /** The label of the final fit (e.g. "reweight k=0.9500", "reweight toward target round 2"). */
  readonly finalFit: string;
  /** Fits the mechanism asked for (memoised ones included). */
  readonly fits: number;
  /** Each statistic's mean over the synthetic datasets (Table 1). */
  readonly synthetic: SampleSummary;
  /** The statistics of the first synthetic dataset (the release) alone. */
  readonly first: SampleSummary;
  /** Bootstrap 95% intervals of the release's statistics (Table 1). */
  readonly ci: SummaryIntervals;
  /** The ECDF measures, averaged over the synthetic datasets. */
  readonly ecdfMax: number;
  readonly ecdfMeanSquared: number;
}

/** Replicate r: the data's summary and each synthesizer's entry (null when calibration failed). */
export interface ReweightRecord {
  readonly r: number;
  readonly data: SampleSummary;
  /** Bootstrap 95% intervals of the confidential data's statistics (Table 1's Data). */
  readonly dataCi: SummaryIntervals;
  readonly unweightedLipschitz: number;
  readonly mechanisms: Readonly<Record<ReweightMechanism, ReweightEntry | null>>;
  /**
   * Replicate 0 only: the record-level bounds Δ_{α,x_i} of the synthesizers of the vector-weighted
   * paper's Figures 1–2 (absent elsewhere, and from results written before issue 25).
   */
  readonly recordLevel?: Readonly<Partial<Record<FigureMechanism, RecordLevel>>>;
  readonly fits: FitStats;
}

/** The synthesizers whose record-level bounds Figures 1–2 show (SW beside them). */
export const FIGURE_MECHANISMS = ["unweighted", "lw", "cw", "sw"] as const;
export type FigureMechanism = typeof FIGURE_MECHANISMS[number];

/** One synthesizer's record-level bounds on one database. */
export interface RecordLevel {
  /** Δ_{α,x_i} at the probabilities 0, 0.01, …, 1 (type-7 quantiles over the records). */
  readonly quantiles: readonly number[];
  /** (α_i, Δ_{α,x_i}) of every fifth record, in record order. */
  readonly pairs: readonly (readonly [number, number])[];
}

/** A statistic's 95% interval over replicates with its endpoints' bootstrap standard errors. */
export interface IntervalWithError {
  readonly interval: [number, number];
  /** Monte Carlo standard errors of the 2.5% and 97.5% quantiles (order-statistic intervals). */
  readonly errors: [number, number];
}

/** Each Table 1 statistic's {@linkcode IntervalWithError}. */
export type Intervals = Readonly<Record<typeof TABLE_STATISTICS[number], IntervalWithError>>;

/** Per-database confidence intervals of one statistic, over the databases. */
export interface PerDatabaseIntervals {
  /** Type-7 2.5%, 50% and 97.5% quantiles over databases of the lower endpoint. */
  readonly lower: [number, number, number];
  /** The same for the upper endpoint. */
  readonly upper: [number, number, number];
  /**
   * The same for the lower endpoint minus the same database's Data lower endpoint: the
   * synthesizer's shift with the database's own variation taken out (0 for Data).
   */
  readonly lowerFromData: [number, number, number];
  /** The same for the upper endpoints. */
  readonly upperFromData: [number, number, number];
  /** Median over databases of (this interval's width)/(the Data interval's width). */
  readonly widthRatio: number;
}

/** Each Table 1 statistic's {@linkcode PerDatabaseIntervals}. */
export type Bootstraps = Readonly<Record<typeof TABLE_STATISTICS[number], PerDatabaseIntervals>>;

/** One synthesizer over the replicates. */
export interface ReweightCell {
  /** Replicates where the synthesizer ran (calibration succeeded). */
  readonly replicates: number;
  /** The release's bootstrap intervals over the databases (Table 1). */
  readonly bootstrap: Bootstraps;
  /** 95% intervals over databases of the statistics averaged over each database's datasets. */
  readonly intervals: Intervals;
  /** 95% intervals of the first dataset's statistics (one synthetic dataset per database). */
  readonly intervalsOneDataset: Readonly<Record<typeof TABLE_STATISTICS[number], [number, number]>>;
  readonly lipschitz: Summary;
  readonly epsilon: Summary;
  readonly alphaMean: Summary;
  readonly ecdfMax: Summary;
  readonly ecdfMeanSquared: Summary;
  /** Shifts g (null for Unweighted and SW). */
  readonly g: Summary | null;
  /** LW_final/CW_final: the accepted k (null where none was). */
  readonly k: {
    readonly accepted: Summary | null;
    readonly none: number;
    /** Replicates whose accepted k is the paper's 0.95. */
    readonly paper: number;
    /** Replicates released by re-weighting toward the target (no shift reached it). */
    readonly towardTarget: number;
  } | null;
  /** Fits the mechanism asked for per database (memoised ones included). */
  readonly fits: Summary;
}

/** The aggregate of the re-weighting study. */
export interface ReweightSummary {
  /** The confidential data's bootstrap intervals over the databases (Table 1's Data). */
  readonly dataBootstrap: Bootstraps;
  /** 95% intervals over databases of the confidential data's statistics. */
  readonly data: Intervals;
  readonly unweightedLipschitz: Summary;
  readonly mechanisms: Readonly<Record<ReweightMechanism, ReweightCell | null>>;
  readonly fits: TotalFitStats;
}

/** The re-weighting study's result. */
export type ReweightResult = StudyResult<ReweightSettings, ReweightRecord, ReweightSummary>;
