/**
 * The record and summary types of the contraction study (Study 1): what `contraction.ts` computes
 * and `contraction_document.ts` reports.
 *
 * @module
 */
import type { SampleSummary } from "../stats/sample_summary.ts";
import type { ContractionGenerator, ContractionRule } from "./contraction_settings.ts";
import type { FitStats, Summary, totalFitStats } from "./study_runner.ts";

/** One rule on one database. */
export interface ContractionEntry {
  /** Δ_{α,x_r} of the final fit (max over its S draws and n records). */
  readonly lipschitz: number;
  /** Posterior mean of μ = e^{β₀} under the final fit. */
  readonly muMean: number;
  /** Records with α_i = 0. */
  readonly zeroWeights: number;
  /** The shift g of the LW weights (null when unweighted). */
  readonly g: number | null;
  /** LW_final: the accepted k (null when none was, or not re-weighted). */
  readonly k: number | null;
  /** At the settings' `estimandsN` only: one synthetic dataset's mean, median and quantiles. */
  readonly estimands?: SampleSummary;
}

/** One database: the unweighted fit's record bounds' range and each rule's result. */
export interface ContractionDatabase {
  readonly n: number;
  /** min_i f_i, f_i = max_s |ℓ_i(θ_s)| under the unweighted fit (LW's f̃ = 0 record). */
  readonly fMin: number;
  /** max_i f_i = Δ_x, the unweighted bound. */
  readonly fMax: number;
  /** Each rule's result (null when its calibration found no feasible weights). */
  readonly rules: Readonly<Record<ContractionRule, ContractionEntry | null>>;
  /** At the settings' `estimandsN` only: the data's mean, median and quantiles. */
  readonly data?: SampleSummary;
}

/** Replicate r: one database per generator and size. */
export interface ContractionRecord {
  readonly r: number;
  readonly generators: readonly {
    readonly name: ContractionGenerator["name"];
    readonly sizes: readonly ContractionDatabase[];
    readonly fits: FitStats;
  }[];
}

/** Δ over the databases of one (generator, n, rule). */
export interface ContractionCell {
  /** Databases with a result (calibration found feasible weights). */
  readonly replicates: number;
  readonly lipschitz: Summary;
  /** Type-7 5% and 95% quantiles of Δ over the databases. */
  readonly q05: number;
  readonly q95: number;
  /** max − min of Δ. */
  readonly spread: number;
  /** Databases with Δ > the generator's global Δ_α, their share and its Wilson 95% interval. */
  readonly above: number;
  readonly shareAbove: number;
  readonly shareAboveInterval: readonly [number, number];
  readonly muMean: Summary;
  readonly zeroWeights: Summary;
  /** Databases in which every weight is 0 (the fit is the prior; Δ = 0). */
  readonly allWeightsZero: number;
  /** The calibrated shifts g (calibrated rules only). */
  readonly g: Summary | null;
  /** LW_final: the accepted k (null where none was) and how many kept the LW fit. */
  readonly k: { readonly accepted: Summary | null; readonly none: number } | null;
}

/** One generator at one n. */
export interface ContractionSize {
  readonly n: number;
  /** Δ_x = f_max of the unweighted fits, and f_min. */
  readonly fMax: Summary;
  readonly fMin: Summary;
  /** The fixed rule's bound of each database by its formula (`fixedRuleBound`, contraction.ts). */
  readonly fixedRulePredicted: Summary;
  readonly rules: Readonly<Record<ContractionRule, ContractionCell | null>>;
}

/** How one rule's bounds move with n on one generator. */
export interface ContractionTrend {
  /** Per size, in size order: the 95th percentile, the median and max − min of Δ. */
  readonly q95s: readonly number[];
  readonly medians: readonly number[];
  readonly spreads: readonly number[];
  /** Per size: P(Δ > Δ_α). */
  readonly sharesAbove: readonly number[];
  /** The 95th percentile at the largest n below that at the smallest n. */
  readonly q95Falls: boolean;
  /** The 95th percentile strictly falling from each size to the next. */
  readonly q95Monotone: boolean;
  /** max − min at the largest n below that at the smallest n. */
  readonly spreadFalls: boolean;
}

/** One generator over sizes and rules. */
export interface ContractionGeneratorSummary {
  readonly name: ContractionGenerator["name"];
  readonly global: number;
  readonly sizes: readonly ContractionSize[];
  readonly trends: Readonly<Record<ContractionRule, ContractionTrend | null>>;
  readonly fits: ReturnType<typeof totalFitStats>;
}

/** The aggregate of the contraction study. */
export interface ContractionSummary {
  readonly generators: readonly ContractionGeneratorSummary[];
  readonly fits: ReturnType<typeof totalFitStats>;
}
