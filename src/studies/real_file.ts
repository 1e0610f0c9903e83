/**
 * A real public-use file end to end (issue 15; `docs/studies/real_file.md`): NHANES 2009–2010
 * (`examples/nhanes.csv`, exported from R's `survey` dataset `nhanes` by
 * `test/reference/nhanes_export.R`) with the public covariates agecat and gender and the
 * confidential outcomes race (categorical) then hi_chol (logistic), synthesised by
 *
 * - the unweighted pseudo posterior (no calibration: the utility ceiling of the model),
 * - LW_final calibrated to each target ε (m datasets each),
 * - the perturbed histogram of hi_chol alone at each ε (one bin per declared level, 0 and 1;
 *   race and the relation to the covariates are not synthesised),
 *
 * each through {@linkcode synthesize} with its utility report, plus the weighted survey table of
 * hi_chol by agecat × gender ({@linkcode surveyTable}, stratified one-stage design, strata
 * SDMVSTRA, weights WTMEC2YR) on the confidential records and on every synthetic dataset with the
 * unsynthesised design columns attached by row, combined over m by the partial-synthesis rules.
 * The result is JSON-serialisable and a pure function of the settings (the seeds are fixed); the
 * wall times are returned beside it.
 *
 * @module
 */
import type { OutputColumn } from "../data/csv.ts";
import { datasetColumns } from "../data/csv.ts";
import { type Dataset, selectRows } from "../data/dataset.ts";
import { dropMissing } from "../data/missing.ts";
import { CalibrationError } from "../mechanisms/calibrate.ts";
import type { ModelName } from "../models/mod.ts";
import { type CombinedTable, combineTables } from "../survey/combine.ts";
import { type SurveyTable, surveyTable, tableInput } from "../survey/tables.ts";
import { SynthesisSpec } from "../synthesis/spec.ts";
import { type SynthesisResult, synthesize } from "../synthesis/synthesize.ts";
import { type UtilityReport, utilityReport } from "../synthesis/utility_report.ts";
import { outputCells, syntheticRows } from "./synthetic_rows.ts";

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

/** The settings of the run. */
export interface RealFileSettings {
  /** The CSV file (`examples/nhanes.csv`). */
  readonly data: string;
  /** The target total ε of LW_final and of the histogram. */
  readonly epsilons: readonly number[];
  /** Synthetic datasets per synthesis. */
  readonly m: number;
  /** Posterior draws S (all chains), chains and warmup iterations per chain. */
  readonly draws: number;
  readonly chains: number;
  readonly warmup: number;
  /** The seed of every synthesis (fits, synthetic draws and the histogram's noise). */
  readonly seed: number;
  /** Keep every k-th record of the file (1: all; the quick test's subsample). */
  readonly every: number;
}

/** The full run of `deno task real-file`. */
export const REAL_FILE_SETTINGS: RealFileSettings = Object.freeze({
  data: "examples/nhanes.csv",
  epsilons: Object.freeze([5, 10, 20]),
  m: 3,
  draws: 2000,
  chains: 4,
  warmup: 500,
  seed: 1,
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

/** The result of the run (the JSON file). */
export interface RealFileResult {
  readonly study: "real_file";
  readonly settings: RealFileSettings;
  /** Records in the file, used, and dropped for a missing value. */
  readonly records: { readonly file: number; readonly used: number; readonly dropped: number };
  /** The confidential survey table (stratified one-stage design, Taylor SEs). */
  readonly confidentialTable: TableJson;
  readonly arms: readonly (ArmResult | ArmFailure)[];
}

/** The run's result, with the wall time of each arm (machine-dependent, not in the JSON). */
export interface RealFileRun {
  readonly result: RealFileResult;
  readonly seconds: Readonly<Record<string, number>>;
}

/** Told when an arm starts and how its fits progress. */
export type RealFileProgress = (arm: string, stage: string, done: number, total: number) => void;

/** One finished arm, as a cache keeps it. */
export interface CachedArm {
  readonly settings: RealFileSettings;
  readonly arm: ArmResult | ArmFailure;
  readonly seconds: number;
}

/**
 * Where finished arms are kept so that an interrupted run resumes (each arm is a pure function of
 * the settings, so a kept arm of the same settings is the arm a rerun would compute).
 */
export interface ArmCache {
  get(key: string): Promise<CachedArm | undefined>;
  set(key: string, value: CachedArm): Promise<void>;
}

/** Options of {@linkcode runRealFile}. */
export interface RunRealFileOptions {
  readonly onProgress?: RealFileProgress;
  readonly cache?: ArmCache;
}

function plain(values: Float64Array): number[] {
  return Array.from(values);
}

function tableJson(table: SurveyTable): TableJson {
  return {
    by: table.by,
    labels: table.labels,
    count: plain(table.count),
    countSE: plain(table.countSE),
    mean: plain(table.mean),
    meanSE: plain(table.meanSE),
  };
}

function combinedJson(table: CombinedTable, confidential: SurveyTable): CombinedTableJson {
  return {
    ...tableJson(table),
    m: table.m,
    countDf: plain(table.countDf),
    countLower: plain(table.countLower),
    countUpper: plain(table.countUpper),
    meanDf: plain(table.meanDf),
    meanLower: plain(table.meanLower),
    meanUpper: plain(table.meanUpper),
    meanCovers: Array.from(
      confidential.mean,
      (q, r) => table.meanLower[r] <= q && q <= table.meanUpper[r],
    ),
  };
}

/** The rows of `data` whose index is a multiple of `every` (every = 1: the dataset itself). */
export function everyKth(data: Dataset, every: number): Dataset {
  if (!Number.isSafeInteger(every) || every < 1) {
    throw new RangeError(`Invalid every: must be a positive integer: every=${every}`);
  }
  if (every === 1) return data;
  return selectRows(data, Array.from({ length: Math.ceil(data.n / every) }, (_, j) => j * every));
}

/**
 * The records a synthesis of the outcomes keeps: those with no missing value in the outcomes
 * and public covariates (what `synthesize` reads with `missing: "drop"`, by the same function).
 *
 * @param data The file.
 */
export function usedRecords(data: Dataset): { data: Dataset; dropped: number } {
  return dropMissing(data, [...OUTCOMES, ...PUBLIC]);
}

/**
 * The survey table of hi_chol by agecat × gender (both margins, the grand total first): the
 * prevalence (weighted mean of the 0/1 outcome) and the weighted count of every cell, with
 * Taylor-linearised SEs of the stratified one-stage with-replacement design (strata = stratum,
 * weights = weight; the PSUs are ignored), as R's `svydesign(ids = ~1, strata = ~stratum,
 * weights = ~weight)`.
 *
 * @param data Records with hi_chol, agecat, gender, weight and stratum (no missing value).
 */
export function hiCholTable(data: Dataset): SurveyTable {
  return surveyTable(tableInput(data, {
    y: "hi_chol",
    weight: DESIGN.weight,
    strata: DESIGN.strata,
    by: ["agecat", "gender"],
    levels: { agecat: LEVELS.agecat, gender: LEVELS.gender },
  }));
}

/**
 * A synthetic dataset with the used records' design columns attached by row. Partial synthesis
 * keeps the records in order, so row i of a synthetic dataset is record i of `used`; this is
 * checked: the row counts must agree and every public covariate must equal the record's.
 *
 * @param synthetic One synthetic dataset as `synthesize` returns it.
 * @param used The records the synthesis used (after dropping missing values).
 * @param where Its name, for errors.
 */
export function withDesignColumns(
  synthetic: ReadonlyMap<string, OutputColumn>,
  used: Dataset,
  where: string,
): Dataset {
  return syntheticRows(synthetic, used, PUBLIC, [DESIGN.weight, DESIGN.strata], where);
}

/** The spec of one arm. */
function armSpec(
  kind: ArmKind,
  settings: RealFileSettings,
  epsilon: number | undefined,
): SynthesisSpec {
  const histogram = kind === "histogram";
  return SynthesisSpec.parse({
    y: histogram ? "hi_chol" : [...OUTCOMES],
    model: histogram ? "logistic" : [...OUTCOME_MODELS],
    x: [...PUBLIC],
    missing: "drop",
    // A research comparison: flagged final fits are reported (`fitFlagged`), not refused.
    allowFlagged: true,
    levels: histogram
      ? { hi_chol: [...LEVELS.hi_chol] }
      : { race: [...LEVELS.race], hi_chol: [...LEVELS.hi_chol] },
    utilityModels: histogram ? [UTILITY_MODELS[1]] : UTILITY_MODELS,
    mechanism: kind,
    ...(epsilon === undefined ? {} : { epsilon }),
    m: settings.m,
    draws: settings.draws,
    chains: settings.chains,
    warmup: settings.warmup,
    seed: settings.seed,
    backend: "cpu",
  });
}

function armLabel(kind: ArmKind, epsilon: number | undefined): string {
  if (kind === "unweighted") return "Unweighted";
  return `${kind === "lw-final" ? "LW_final" : "Histogram"} ε = ${epsilon}`;
}

/** The mean of `alpha` over the records of each level of each synthesised outcome. */
function alphaByLevel(
  alpha: readonly number[],
  used: Dataset,
  kind: ArmKind,
): Record<string, Record<string, number>> {
  const outcomes = kind === "histogram" ? ["hi_chol"] : [...OUTCOMES];
  const columns = datasetColumns(used);
  return Object.fromEntries(outcomes.map((name) => {
    const values = outputCells(columns.get(name)!);
    const levels = LEVELS[name as keyof typeof LEVELS];
    return [
      name,
      Object.fromEntries(levels.map((level) => {
        let sum = 0;
        let count = 0;
        values.forEach((value, i) => {
          if (value === level) (sum += alpha[i], count++);
        });
        return [level, sum / count];
      })),
    ];
  }));
}

function armResult(
  kind: ArmKind,
  epsilon: number | undefined,
  synthesis: SynthesisResult,
  used: Dataset,
  confidential: SurveyTable,
): ArmResult {
  const { report, diagnostics } = synthesis;
  const key = armKey(kind, epsilon);
  if (report.n !== used.n) {
    throw new RangeError(`${key}: the synthesis used ${report.n} records, expected ${used.n}`);
  }
  const tables = synthesis.datasets.map((dataset, l) =>
    hiCholTable(withDesignColumns(dataset, used, `${key} synthetic dataset ${l + 1}`))
  );
  const utility = synthesis.utility!;
  const hiChol = kind === "histogram" ? utility : utilityReport({
    confidential: datasetColumns(used),
    synthetic: synthesis.datasets,
    synthesized: [{ name: "hi_chol", kind: "categorical", levels: LEVELS.hi_chol }],
    public: [...PUBLIC],
  }, { models: [UTILITY_MODELS[1]] });
  const fit = diagnostics.fit;
  const alpha = diagnostics.alpha;
  return {
    key,
    label: armLabel(kind, epsilon),
    kind,
    outcomes: kind === "histogram" ? ["hi_chol"] : [...OUTCOMES],
    targetEpsilon: epsilon ?? null,
    epsilon: report.epsilon,
    guarantee: report.guarantee,
    lipschitz: report.lipschitz,
    unweightedLipschitz: diagnostics.unweightedLipschitz,
    g: diagnostics.g,
    k: diagnostics.k,
    n: report.n,
    dropped: diagnostics.missingDropped ?? 0,
    fits: diagnostics.refits.map((refit) => ({
      label: refit.label,
      lipschitz: refit.lipschitz,
      warmStart: refit.warmStart,
    })),
    finalFit: fit === null ? null : {
      label: diagnostics.finalFit,
      rhatMax: fit.rhatMax,
      essBulkMin: fit.essBulkMin,
      divergences: fit.divergences,
      treeDepthHits: fit.treeDepthHits,
      flagged: fit.flagged,
      preconditionFailure: fit.setup.preconditionFailure ?? null,
    },
    alphaMean: alpha === null ? null : alpha.reduce((s, a) => s + a, 0) / alpha.length,
    alphaByLevel: alpha === null ? null : alphaByLevel(alpha, used, kind),
    utility,
    hiChol,
    table: combinedJson(combineTables(tables), confidential),
  };
}

/** The arms of a run, in order: the unweighted synthesizer, LW_final and the histogram per ε. */
function armPlan(settings: RealFileSettings): { kind: ArmKind; epsilon?: number }[] {
  return [
    { kind: "unweighted" },
    ...settings.epsilons.map((epsilon) => ({ kind: "lw-final" as const, epsilon })),
    ...settings.epsilons.map((epsilon) => ({ kind: "histogram" as const, epsilon })),
  ];
}

function armKey(kind: ArmKind, epsilon: number | undefined): string {
  return kind === "unweighted" ? kind : `${kind}-${epsilon}`;
}

/**
 * Runs every arm on the file: the unweighted synthesizer, LW_final at each ε, the histogram at
 * each ε, in that order, each a {@linkcode synthesize} call with the same seed. An ε that
 * LW_final cannot reach is recorded as that arm's failure and the run goes on.
 *
 * @param data The file, as read.
 * @param settings The run's settings.
 * @param options Progress, and a cache of finished arms to resume from.
 * @returns The JSON result and the wall time of each arm (as first computed, for a cached arm).
 */
export async function runRealFile(
  data: Dataset,
  settings: RealFileSettings = REAL_FILE_SETTINGS,
  options: RunRealFileOptions = {},
): Promise<RealFileRun> {
  const onProgress = options.onProgress ?? (() => {});
  const file = everyKth(data, settings.every);
  const { data: used, dropped } = usedRecords(file);
  const confidential = hiCholTable(used);
  const arms: (ArmResult | ArmFailure)[] = [];
  const seconds: Record<string, number> = {};
  const same = JSON.stringify(settings);
  for (const { kind, epsilon } of armPlan(settings)) {
    const key = armKey(kind, epsilon);
    const label = armLabel(kind, epsilon);
    const cached = await options.cache?.get(key);
    if (cached !== undefined && JSON.stringify(cached.settings) === same) {
      onProgress(label, "cached", 1, 1);
      arms.push(cached.arm);
      seconds[key] = cached.seconds;
      continue;
    }
    const started = performance.now();
    onProgress(label, "start", 0, 1);
    let arm: ArmResult | ArmFailure;
    try {
      const synthesis = await synthesize(file, armSpec(kind, settings, epsilon), {
        onProgress: (stage, done, total) => onProgress(label, stage, done, total),
      });
      arm = armResult(kind, epsilon, synthesis, used, confidential);
    } catch (error) {
      if (!(error instanceof CalibrationError)) throw error;
      arm = { key, label, kind, targetEpsilon: epsilon ?? null, error: error.message };
    }
    arms.push(arm);
    seconds[key] = (performance.now() - started) / 1000;
    await options.cache?.set(key, { settings, arm, seconds: seconds[key] });
  }
  return {
    result: {
      study: "real_file",
      settings,
      records: { file: file.n, used: used.n, dropped },
      confidentialTable: tableJson(confidential),
      arms,
    },
    seconds,
  };
}

/** The JSON text of a result: two-space indented, with a final newline. */
export function realFileJson(result: RealFileResult): string {
  return JSON.stringify(result, null, 2) + "\n";
}
