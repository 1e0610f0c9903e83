/**
 * The record types of the survey study (Study 4): what `survey.ts` computes per replicate,
 * `survey_aggregate.ts` aggregates and `survey_document.ts` reports.
 *
 * @module
 */
import type { FitStats } from "./study_runner.ts";
import type { CellValues, CoverageEntry } from "./survey_metrics.ts";
import type { Method, Synthesizer } from "./survey_settings.ts";

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
