/**
 * The real public-use file study's constants and plain-JSON shapes (`real_file.ts` runs it,
 * `real_file_document.ts` reports it): NHANES 2009–2010's outcomes, covariates, design columns
 * and declared levels, the settings (which name the study's input files), the record of its one
 * replicate and its summary, and the flags of a reduced run ({@linkcode REAL_FILE_FLAGS}).
 *
 * @module
 */
import { parseDecimal } from "../data/decimal.ts";
import type { StudyFlags, StudyFlagValues } from "./study.ts";
import type { ModelName } from "../models/mod.ts";
import type { UtilityReport } from "../synthesis/utility_report.ts";

/** The confidential outcomes in visit order, and their models. */
export const OUTCOMES = ["race", "hi_chol"] as const;
export const OUTCOME_MODELS: readonly ModelName[] = ["categorical", "logistic"];
/** The public covariates (kept as they are in every synthetic dataset). */
export const PUBLIC = ["agecat", "gender"] as const;
/** The public design columns (not synthesised; attached to the synthetic records by row). */
export const DESIGN = { weight: "weight", strata: "stratum", psu: "psu" } as const;
/** The declared (public) level sets: the codebook's, `?nhanes` in R's `survey`. */
export const LEVELS = {
  race: ["hispanic", "white", "black", "other"],
  hi_chol: ["0", "1"],
  agecat: ["0-19", "20-39", "40-59", "60+"],
  gender: ["male", "female"],
} as const;
/** The utility models: the analysis model, and the one the histogram's datasets can also fit. */
export const UTILITY_MODELS = ["hi_chol ~ agecat + gender + race", "hi_chol ~ agecat + gender"];

/** The settings of the run (the seed of every synthesis is the study's seed). */
export interface RealFileSettings {
  /** The CSV file (`examples/nhanes.csv`). */
  readonly data: string;
  /**
   * R's `survey` table on the whole file (`test/reference/nhanes_tables_expected.json`), compared
   * with ours when `every` is 1; null: no comparison.
   */
  readonly reference: string | null;
  /** The target total ε of LW_final and of the histogram. */
  readonly epsilons: readonly number[];
  /** Synthetic datasets per synthesis. */
  readonly m: number;
  /** Posterior draws S (all chains), chains and warmup iterations per chain. */
  readonly draws: number;
  readonly chains: number;
  readonly warmup: number;
  /** Keep every k-th record of the file (1: all; the quick test's subsample). */
  readonly every: number;
}

/** The full run of `deno task real-file` (`deno task study real_file`). */
export const REAL_FILE_SETTINGS: RealFileSettings = Object.freeze({
  data: "examples/nhanes.csv",
  reference: "test/reference/nhanes_tables_expected.json",
  epsilons: Object.freeze([5, 10, 20]),
  m: 3,
  draws: 2000,
  chains: 4,
  warmup: 500,
  every: 1,
});

/** One synthesis of the run. */
export type ArmKind = "unweighted" | "lw-final" | "histogram";

/** A survey table as plain arrays (NaN as null in JSON). */
export interface TableJson {
  readonly by: readonly [string, string];
  readonly labels: readonly [readonly string[], readonly string[]];
  readonly count: number[];
  readonly countSE: number[];
  readonly mean: number[];
  readonly meanSE: number[];
}

/** The m synthetic tables combined (q̄, √T, ν and the 95% interval per cell). */
export interface CombinedTableJson extends TableJson {
  readonly m: number;
  readonly countDf: number[];
  readonly countLower: number[];
  readonly countUpper: number[];
  readonly meanDf: number[];
  readonly meanLower: number[];
  readonly meanUpper: number[];
  /** Per cell: whether the mean's interval covers the confidential estimate. */
  readonly meanCovers: boolean[];
}

/** One synthesis: its release, fits, utility and survey table. */
export interface ArmResult {
  readonly key: string;
  readonly label: string;
  readonly kind: ArmKind;
  /** The synthesised outcomes (the histogram: hi_chol only). */
  readonly outcomes: readonly string[];
  /** The target ε (null: the unweighted synthesizer, which is not calibrated). */
  readonly targetEpsilon: number | null;
  /** The release manifest's ε (the unweighted: 2Δm of its draws, no guarantee), guarantee, Δ. */
  readonly epsilon: number;
  readonly guarantee: string;
  readonly lipschitz: number | null;
  readonly unweightedLipschitz: number | null;
  readonly g: number | null;
  readonly k: number | null;
  /** Records used (after dropping those with a missing value) and dropped. */
  readonly n: number;
  readonly dropped: number;
  /** Every fit the mechanism ran (the first is the unweighted fit), in order. */
  readonly fits: readonly {
    readonly label: string;
    readonly lipschitz: number;
    readonly warmStart: boolean;
  }[];
  /** The final fit's MCMC diagnostics (null for the histogram, which fits nothing). */
  readonly finalFit: {
    readonly label: string | null;
    readonly rhatMax: number;
    readonly essBulkMin: number;
    readonly divergences: number;
    readonly treeDepthHits: number;
    readonly flagged: boolean;
    readonly preconditionFailure: string | null;
  } | null;
  /** The mean α_i of the final weights (null: all 1). */
  readonly alphaMean: number | null;
  /**
   * The mean α_i over the records of each level of each synthesised outcome, confidential values
   * (null: all 1). Shows whom the weights down-weight.
   */
  readonly alphaByLevel: Readonly<Record<string, Readonly<Record<string, number>>>> | null;
  /** `synthesize`'s utility report (its synthesised variables, both utility models it can fit). */
  readonly utility: UtilityReport;
  /**
   * The utility report on (agecat, gender, hi_chol) alone, comparable across every arm, the
   * histogram included (its own report is this one).
   */
  readonly hiChol: UtilityReport;
  /** The survey table of hi_chol by agecat × gender over the m datasets, combined. */
  readonly table: CombinedTableJson;
}

/** A synthesis that could not be released: LW_final could not reach its target ε. */
export interface ArmFailure {
  readonly key: string;
  readonly label: string;
  readonly kind: ArmKind;
  readonly targetEpsilon: number | null;
  /** The calibration's message. */
  readonly error: string;
}

/** Whether an arm was released (else it failed to reach its ε). */
export function released(arm: ArmResult | ArmFailure): arm is ArmResult {
  return !("error" in arm);
}

/** What R's `survey` gave on the same file (the settings' `reference`). */
export interface RReference {
  /** The largest relative difference of any cell's count, mean or SE from R's. */
  readonly maxRelativeDifference: number;
  /** The range over cells of R's two-stage (PSU-clustered) SE over the stratified-only SE. */
  readonly clusteredMeanSERatio: readonly [number, number];
  readonly clusteredCountSERatio: readonly [number, number];
  /** The survey package's version. */
  readonly survey: string;
}

/** The record of the study's one replicate: every arm on the file. */
export interface RealFileRecord {
  /** Records in the file, used, and dropped for a missing value. */
  readonly n: { readonly file: number; readonly used: number; readonly dropped: number };
  /** The confidential survey table (stratified one-stage design, Taylor SEs). */
  readonly confidentialTable: TableJson;
  readonly arms: readonly (ArmResult | ArmFailure)[];
  /** R's table on the whole file against ours (null: a subsample, or no reference named). */
  readonly reference: RReference | null;
}

/** The summary: each arm's achieved ε and prevalence coverage (null: not released). */
export interface RealFileSummary {
  readonly arms: readonly {
    readonly key: string;
    readonly epsilon: number | null;
    readonly lipschitz: number | null;
    /** Prevalence cells whose combined 95% interval covers the confidential estimate. */
    readonly covered: number | null;
    readonly cells: number;
  }[];
}

/** The flags of a reduced run (`deno task study real_file --every 20 --draws 200 …`). */
export const REAL_FILE_FLAGS: StudyFlags = Object.freeze({
  every: "string",
  draws: "string",
  warmup: "string",
  m: "string",
  epsilons: "string",
});

function positiveInteger(flag: string, value: string | boolean | undefined, fallback: number) {
  if (value === undefined) return fallback;
  const parsed = parseDecimal(String(value));
  if (!Number.isSafeInteger(parsed) || parsed < 1) {
    throw new RangeError(`--${flag}: must be a positive integer`);
  }
  return parsed;
}

/**
 * The settings of a run with the flags of {@linkcode REAL_FILE_FLAGS} (a reduced run; the
 * committed files are the defaults' output).
 *
 * @param settings The full-size settings.
 * @param values The flags given.
 * @returns The settings; throws a RangeError naming a flag whose value is not a positive integer
 * (`--epsilons`: positive numbers separated by commas).
 */
export function realFileSettings(
  settings: RealFileSettings,
  values: StudyFlagValues,
): RealFileSettings {
  const epsilons = values.epsilons === undefined
    ? settings.epsilons
    : String(values.epsilons).split(",").map((text) => {
      const value = parseDecimal(text.trim());
      if (!(value > 0) || !Number.isFinite(value)) {
        throw new RangeError("--epsilons: positive numbers separated by commas");
      }
      return value;
    });
  return {
    ...settings,
    epsilons,
    m: positiveInteger("m", values.m, settings.m),
    draws: positiveInteger("draws", values.draws, settings.draws),
    warmup: positiveInteger("warmup", values.warmup, settings.warmup),
    every: positiveInteger("every", values.every, settings.every),
  };
}
