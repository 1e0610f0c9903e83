/**
 * The settings of the contraction study (Study 1, SPEC §9.1), its data generators and the weighting
 * rules it compares, and the shapes of its records and summary (plain JSON).
 *
 * @module
 */
import type { FitStats, SamplerSettings, Summary, TotalFitStats } from "./study_runner.ts";
import { STUDY_SAMPLER } from "./study_runner.ts";
import type { SampleSummary } from "../stats/sample_summary.ts";

/** A data-generating model of the study, with the paper's global Lipschitz value for it. */
export interface ContractionGenerator {
  /** "poisson": Poisson(mean) counts; "nb-mixture": 0.2·NB(100, φ = 5) + 0.8·NB(100, φ = 20). */
  readonly name: "poisson" | "nb-mixture";
  /**
   * The global Δ_α the paper reports for LW on these data (Supp 5: 3.5, i.e. ε = 7, for Poisson;
   * 6 for the NB mixture). The calibrated rules and Weighted-e target it (ε = 2Δ, m = 1).
   */
  readonly global: number;
}

/** Settings of the contraction study. */
export interface ContractionSettings {
  /** Database sizes n. */
  readonly sizes: readonly number[];
  /** Mean μ of the Poisson data. */
  readonly mean: number;
  /** The data generators, each with its global Δ. */
  readonly generators: readonly ContractionGenerator[];
  /** The fixed LW rule α_i = clamp(c·(1 − f̃_i) + g, 0, 1) (LW fixed and Weighted-e). */
  readonly c: number;
  readonly g: number;
  /**
   * The n at which each rule's synthetic data are summarised beside the data's (the supplement's
   * Figures 12 and 14: mean, median, 15th and 90th quantiles; null: none).
   */
  readonly estimandsN: number | null;
  readonly sampler: SamplerSettings;
}

/**
 * Supp 5 and the slides at full size: n ∈ {100, 400, 1000, 1600, 6400} (the slides' four sizes
 * and the supplement's n = 1000), Poisson(100) with Δ_α = 3.5 and the NB mixture with Δ_α = 6,
 * the fixed rule c = 1, g = 0.
 */
export const CONTRACTION_SETTINGS: ContractionSettings = Object.freeze({
  sizes: [100, 400, 1000, 1600, 6400],
  mean: 100,
  generators: [
    { name: "poisson", global: 3.5 },
    { name: "nb-mixture", global: 6 },
  ] as const,
  c: 1,
  g: 0,
  estimandsN: 1000,
  sampler: STUDY_SAMPLER,
});

/**
 * The weighting rules compared:
 * - "unweighted": α = 1;
 * - "lw-fixed": Algorithm 1 with the fixed c, g (the same rule on every database);
 * - "lw-calibrated": Algorithm 1 with the shift g calibrated on each database so that Δ ≤ Δ_α;
 * - "lw-final": the calibrated LW re-weighted by Algorithm 3 (k < 1; the supplement's "LW
 *   synthesizer and re-weighting strategy");
 * - "lw-fixed-final": the fixed rule re-weighted by Algorithm 3, with no calibration and no
 *   target (the supplement's strategy read without calibration: issue 25);
 * - "weighted-e": the fixed rule truncated once at Δ_α (the slides' Weighted-e).
 */
export const CONTRACTION_RULES = [
  "unweighted",
  "lw-fixed",
  "lw-calibrated",
  "lw-final",
  "lw-fixed-final",
  "weighted-e",
] as const;
export type ContractionRule = typeof CONTRACTION_RULES[number];

/** The rules' labels in the report. */
export const CONTRACTION_LABELS: Readonly<Record<ContractionRule, string>> = Object.freeze({
  unweighted: "Unweighted",
  "lw-fixed": "LW fixed",
  "lw-calibrated": "LW calibrated",
  "lw-final": "LW_final",
  "lw-fixed-final": "LW fixed + Alg. 3",
  "weighted-e": "Weighted-e",
});

/** The generators' labels in the report. */
export const GENERATOR_LABELS: Readonly<Record<ContractionGenerator["name"], string>> = Object
  .freeze({ poisson: "Poisson(100)", "nb-mixture": "NB mixture" });

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
  readonly fits: TotalFitStats;
}

/** The aggregate of the contraction study. */
export interface ContractionSummary {
  readonly generators: readonly ContractionGeneratorSummary[];
  readonly fits: TotalFitStats;
}
