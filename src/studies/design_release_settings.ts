/**
 * The design release's settings and shapes (issue 24; `design_release.ts` runs it): the settings
 * of the full run and of `--quick` and the release's spec, and the result's plain-JSON shapes (the release, the
 * design-based tables both ways, the weights, the held-out check and the verdicts).
 *
 * @module
 */
import { SynthesisSpec } from "../synthesis/spec.ts";
import { DESIGN, LEVELS, OUTCOME_MODELS, OUTCOMES, PUBLIC } from "./real_file_settings.ts";
import type { MechanismName } from "../mechanisms/mechanism.ts";
import { type SurveyTable } from "../survey/tables.ts";
import { type SynthesisProgress } from "../synthesis/synthesize.ts";
import { type FinalFit } from "./final_fit.ts";

/** The settings of a run. */
export interface DesignReleaseSettings {
  /** The CSV file (`examples/nhanes.csv`). */
  readonly data: string;
  /** Keep every k-th record of the file (1: all; the quick run's subsample). */
  readonly every: number;
  readonly mechanism: MechanismName;
  /** The target total ε of the m datasets. */
  readonly epsilon: number;
  readonly m: number;
  /** Posterior draws S (all chains), chains and warmup iterations per chain. */
  readonly draws: number;
  readonly chains: number;
  readonly warmup: number;
  /** The seed of the synthesis and of the held-out split. */
  readonly seed: number;
  /** Quantile bins of a weight in the held-out check (20: ventiles). */
  readonly bins: number;
  /** The held-out verdict's margin: the synthetic weight may add at most this much accuracy. */
  readonly margin: number;
}

/**
 * The full run of `deno task design-release`: SW at ε = 10, m = 1, seed 1, `SynthesisSpec`'s
 * default sampler (4 chains, S = 4000 draws, 1000 warmup iterations per chain).
 */
export const DESIGN_RELEASE_SETTINGS: DesignReleaseSettings = Object.freeze({
  data: "examples/nhanes.csv",
  every: 1,
  mechanism: "sw",
  epsilon: 10,
  m: 1,
  draws: 4000,
  chains: 4,
  warmup: 1000,
  seed: 1,
  bins: 20,
  margin: 0.02,
});

/** The reduced run of `--quick` (every 20th record, short chains): for the tests. */
export const QUICK_DESIGN_RELEASE: DesignReleaseSettings = Object.freeze({
  ...DESIGN_RELEASE_SETTINGS,
  every: 20,
  draws: 200,
  chains: 2,
  warmup: 150,
});

/** An estimate with its standard error and 95 % interval. */
export interface Estimate {
  readonly estimate: number;
  readonly se: number;
  readonly lower: number;
  readonly upper: number;
}

/** One cell of the hi_chol table, both ways. */
export interface CellComparison {
  /** The cell's labels ("all" for a margin). */
  readonly agecat: string;
  readonly gender: string;
  /** The confidential design's prevalence (a share in [0, 1]) and weighted count. */
  readonly confidential: { readonly prevalence: Estimate; readonly count: Estimate };
  /** The synthetic file's, combined over the m datasets (one-stage design, no strata). */
  readonly synthetic: { readonly prevalence: Estimate; readonly count: Estimate };
  /** Synthetic − confidential prevalence. */
  readonly prevalenceDifference: number;
  /** Whether the synthetic estimate lies in the confidential 95 % interval (null: empty cell). */
  readonly prevalenceCovered: boolean | null;
  readonly countCovered: boolean | null;
}

/** The hi_chol table both ways, and its summary. */
export interface TableComparison {
  readonly by: readonly [string, string];
  readonly cells: readonly CellComparison[];
  readonly summary: {
    /** Cells compared (both estimates finite), and those whose prevalence was covered. */
    readonly cells: number;
    readonly covered: number;
    /** covered / cells. */
    readonly coverage: number;
    readonly countCovered: number;
    readonly countCoverage: number;
    /** The largest |synthetic − confidential| prevalence, and where. */
    readonly maxAbsPrevalenceDifference: number;
    readonly maxAt: { readonly agecat: string; readonly gender: string };
    /** The population estimate (the grand total's weighted count) both ways. */
    readonly totalConfidential: number;
    readonly totalSynthetic: number;
  };
}

/** One level's weighted share (and weighted count, share × the population estimate), both ways. */
export interface ShareComparison {
  readonly level: string;
  readonly confidential: { readonly share: Estimate; readonly count: number };
  readonly synthetic: { readonly share: Estimate; readonly count: number };
  readonly shareDifference: number;
  /** Whether the synthetic share lies in the confidential 95 % interval. */
  readonly shareCovered: boolean;
}

/** A file's weights. */
export interface WeightSummary {
  readonly n: number;
  /** Type-7 quantiles at 5, 25, 50, 75 and 95 %. */
  readonly quantiles: readonly { readonly p: number; readonly value: number }[];
  readonly sum: number;
  readonly mean: number;
  /** The mean weight per race level (the file's own race). */
  readonly meanByRace: Readonly<Record<string, number>>;
}

/** The held-out accuracies of race (`stats/held_out.ts`, half held out). */
export interface HeldOutCheck {
  readonly outcome: string;
  readonly seed: number;
  readonly bins: number;
  /** (a) The public covariates alone. */
  readonly publicOnly: number;
  /** (b) Public + the released synthetic weight's quantile bin (aligned by row). */
  readonly syntheticWeight: number;
  /** (c) Public + the confidential weight's quantile bin (the weight released as it is). */
  readonly confidentialWeight: number;
  /** Public + every released synthetic column (race, hi_chol, the weight's bin): for reference. */
  readonly allReleased: number;
  readonly margin: number;
  /** (b) ≤ (a) + margin: the released columns predict race no better than the public ones. */
  readonly noBetter: boolean;
}

/** The release as made. */
export interface DesignRelease {
  readonly mechanism: string;
  /** What `mechanism: "auto"` picks for the same public facts with aDP allowed. */
  readonly autoPicks: string;
  readonly targetEpsilon: number;
  readonly epsilon: number;
  readonly epsilonPerDataset: number;
  readonly guarantee: string;
  /** Δ of the final fit (the joint record's, the weight's conditional included). */
  readonly lipschitz: number | null;
  readonly n: number;
  readonly m: number;
  /** The synthesised outcomes in visit order with their models (the weight last). */
  readonly outcomes: readonly { readonly y: string; readonly model: string }[];
  /** The synthetic file's columns (the report's). */
  readonly columns: readonly string[];
  /** Fits the mechanism ran, and the final fit's health. */
  readonly fits: number;
  readonly finalFit: FinalFit | null;
  /** Records of the first synthetic dataset whose weight equals the confidential record's. */
  readonly weightRowsEqual: number;
}

/** The verdicts, decided in code. */
export interface DesignVerdicts {
  /**
   * No design column is released unsynthesised: neither the stratum nor the PSU is a column,
   * the weight column is one of the synthesised outcomes, and no record keeps its weight.
   */
  readonly noUnsynthesisedDesignColumn: boolean;
  /** The held-out verdict ({@linkcode HeldOutCheck.noBetter}). */
  readonly heldOutNoBetter: boolean;
  /** The share of table cells whose synthetic prevalence lies in the confidential interval. */
  readonly tableCoverage: number;
  /** Whether the final fit failed its diagnostics. */
  readonly finalFitFlagged: boolean;
}

/** The result of a run (the JSON file). */
export interface DesignReleaseResult {
  readonly study: "design_release";
  readonly settings: DesignReleaseSettings;
  /** Records in the file (after `every`), used, and dropped for a missing value. */
  readonly records: { readonly file: number; readonly used: number; readonly dropped: number };
  /** The design columns of the confidential file. */
  readonly design: { readonly weight: string; readonly strata: string; readonly psu: string };
  readonly verdicts: DesignVerdicts;
  readonly release: DesignRelease;
  readonly table: TableComparison;
  readonly race: readonly ShareComparison[];
  readonly weights: {
    readonly confidential: WeightSummary;
    /** The first synthetic dataset's weights (its own race for `meanByRace`). */
    readonly synthetic: WeightSummary;
    /** The synthetic weights' mean per confidential race level of the aligned record. */
    readonly syntheticByConfidentialRace: Readonly<Record<string, number>>;
  };
  readonly heldOut: HeldOutCheck;
}

/** A file's design: its weight column and its strata (null: one stage, no strata). */
export interface DesignColumns {
  readonly weight: string;
  readonly strata: string | null;
}

/** The tables of one file: hi_chol by agecat × gender, and each race level's indicator. */
export interface DesignTables {
  readonly hiChol: SurveyTable;
  /** One table per race level (in `levels` order) of the level's indicator; row 0 is overall. */
  readonly race: readonly SurveyTable[];
}

/** Options of {@linkcode runDesignRelease}. */
export interface RunDesignReleaseOptions {
  readonly onProgress?: SynthesisProgress;
}

/** The JSON text of a result: two-space indented, with a final newline. */
export function designReleaseJson(result: DesignReleaseResult): string {
  return JSON.stringify(result, null, 2) + "\n";
}

/** The spec of the release. */
export function designReleaseSpec(settings: DesignReleaseSettings): SynthesisSpec {
  return SynthesisSpec.parse({
    y: [...OUTCOMES],
    model: [...OUTCOME_MODELS],
    x: [...PUBLIC],
    weight: DESIGN.weight,
    missing: "drop",
    // A study: a flagged final fit is reported (`finalFitFlagged`), not refused.
    allowFlagged: true,
    levels: Object.fromEntries(Object.entries(LEVELS).map(([name, l]) => [name, [...l]])),
    mechanism: settings.mechanism,
    epsilon: settings.epsilon,
    m: settings.m,
    draws: settings.draws,
    chains: settings.chains,
    warmup: settings.warmup,
    seed: settings.seed,
    backend: "cpu",
  });
}
