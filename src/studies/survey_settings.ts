/**
 * The settings of the survey study (Study 4, SPEC §9.4), its synthesizers, the tables it
 * compares and the two estimands of every cell; the shapes of a replicate's record (plain JSON).
 *
 * @module
 */
import type { FitStats, SamplerSettings } from "./study_runner.ts";

/** Settings of the survey study. */
export interface SurveySettings {
  /** Population size N. */
  readonly populationSize: number;
  /** Sample size n. */
  readonly n: number;
  /**
   * The Lipschitz targets Δ* of FBS and FBP (ε = 2·Δ*·m), one arm each: the first is the
   * paper's main one (1.8, Figures 5–6 and Tables 4–5), the others its §4.4 refits (3.4,
   * Figure 7 and the supplement's Figures 14–17).
   */
  readonly lipschitz: readonly number[];
  /** The numbers of synthetic datasets m compared (Figures 6, 13), ascending. */
  readonly ms: readonly number[];
  /** The m of the paper's printed coverage tables (Appendix F, Tables 4–5). */
  readonly coverageM: number;
  /** Random-group replicates of the Laplace baseline's variance. */
  readonly laplaceReplicates: number;
  readonly sampler: SamplerSettings;
}

/**
 * SPEC §9.4 at full size: N = 100,000, n = 1000, Δ* ∈ {1.8, 3.4}, m ∈ {1, 3, 5, 10}, the
 * printed tables at m = 3. 2 × 800 draws per fit keep the share of flagged fits under 5%
 * (docs/decisions.md).
 */
export const SURVEY_SETTINGS: SurveySettings = Object.freeze({
  populationSize: 100_000,
  n: 1000,
  lipschitz: Object.freeze([1.8, 3.4]),
  ms: Object.freeze([1, 3, 5, 10]),
  coverageM: 3,
  laplaceReplicates: 10,
  sampler: Object.freeze({ chains: 2, warmup: 400, draws: 800 }),
});

/** The synthesizers, by their model names. */
export const SURVEY_SYNTHESIZERS = ["fbs", "fbp"] as const;
export type Synthesizer = typeof SURVEY_SYNTHESIZERS[number];
/** The private tables compared with the sample. */
export const SURVEY_METHODS = ["fbs", "fbp", "laplace"] as const;
export type Method = typeof SURVEY_METHODS[number];
/** The two estimands of every cell. */
export const QUANTITIES = ["count", "mean"] as const;
export type Quantity = typeof QUANTITIES[number];

/** Per cell (27, grand total first, in `cellLayout` order): counts and means. */
export interface CellValues {
  readonly count: number[];
  readonly mean: number[];
}

/** Coverage of one table at m = coverageM: per cell, 1 when the 95% interval holds Q. */
export interface CoverageEntry {
  readonly covered: CellValues;
  readonly length: CellValues;
  /** SE/estimate. */
  readonly cv: CellValues;
  /** Estimate − population value (absent from results written before issue 25's re-run). */
  readonly error?: CellValues;
}

/** How one synthesizer's calibration went on one replicate. */
export interface SynthesizerFit {
  /** Δ_{α,x} of the final fit (ε = 2·Δ·m). */
  readonly lipschitz: number;
  /** Δ_x of the unweighted fit. */
  readonly unweightedLipschitz: number;
  /** The Δ cap the final run aimed at (Δ* unless the target was out of reach). */
  readonly cap: number;
  /** Whether Δ ≤ Δ* (the study's target) was reached. */
  readonly reachedTarget: boolean;
  readonly finalFit: string;
  /** Fits made by the mechanism (memoised repeats included). */
  readonly refits: number;
}

/** One arm (one Δ*) of replicate r. */
export interface ArmRecord {
  /** The arm's Lipschitz target Δ*. */
  readonly target: number;
  readonly fits: Readonly<Record<Synthesizer, SynthesizerFit>>;
  /** RMSE ratios per method and m (key `m1`, `m3`, …). */
  readonly ratios: Readonly<Record<Method, Readonly<Record<string, CellValues>>>>;
  /** Coverage, interval length and CV per method and m. */
  readonly coverage: Readonly<Record<Method, Readonly<Record<string, CoverageEntry>>>>;
}

/** Replicate r. */
export interface SurveyRecord {
  readonly r: number;
  /** The population values Q (the same in every replicate). */
  readonly truth: CellValues;
  /** Correlation of salary and weight in the sample (the paper's −0.58). */
  readonly sampleCorrelation: number;
  /** Σ w of the sample, the total FBS and FBP scale their synthetic weights to. */
  readonly weightTotal: number;
  /** The confidential sample's own table: its coverage (the non-private benchmark). */
  readonly sample: CoverageEntry;
  /** One per Δ* of the settings, in order. */
  readonly arms: readonly ArmRecord[];
  /**
   * Replicate 0 only, at the first Δ*: the data of the survey paper's Figures 3–4, 8–9 (absent
   * elsewhere, and from results written before issue 25).
   */
  readonly figures?: SurveyFigureData;
  readonly fitStats: FitStats;
}

/** The survey paper's Figures 3–4 and 8–9 on one sample (replicate 0, the first Δ*). */
export interface SurveyFigureData {
  /** Δ_{α,(y_i,X_i,w_i)} at p = 0, 0.01, …, 1 of the unweighted and the released fit. */
  readonly bounds: Readonly<
    Record<"fbs" | "fbp", { readonly unweighted: number[]; readonly weighted: number[] }>
  >;
  /** (salary, weight) of every fourth record: the sample's, and FBS's and FBP's first dataset. */
  readonly pairs: Readonly<Record<"sample" | "fbs" | "fbp", (readonly [number, number])[]>>;
  /**
   * Figures 8–9: (salary, weight) of the same records of FBS's and FBP's first dataset with
   * synthesised weights (each drawn from the model's law of the weight given the synthetic
   * salary, `synthesizeWeights`) instead of smoothed ones (absent from results written before).
   */
  readonly synthesized?: Readonly<Record<"fbs" | "fbp", (readonly [number, number])[]>>;
}
