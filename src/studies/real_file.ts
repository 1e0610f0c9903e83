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
import { type Column, columnFromCells, type Dataset, getColumn } from "../data/dataset.ts";
import { dropMissing } from "../data/missing.ts";
import type { ModelName } from "../models/mod.ts";
import { type CombinedTable, combineTables } from "../survey/combine.ts";
import { type SurveyTable, surveyTable, tableInput } from "../survey/tables.ts";
import { SynthesisSpec } from "../synthesis/spec.ts";
import { type SynthesisResult, synthesize } from "../synthesis/synthesize.ts";
import { type UtilityReport, utilityReport } from "../synthesis/utility_report.ts";

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
  draws: 4000,
  chains: 4,
  warmup: 1000,
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

/** The result of the run (the JSON file). */
export interface RealFileResult {
  readonly study: "real_file";
  readonly settings: RealFileSettings;
  /** Records in the file, used, and dropped for a missing value. */
  readonly records: { readonly file: number; readonly used: number; readonly dropped: number };
  /** The confidential survey table (stratified one-stage design, Taylor SEs). */
  readonly confidentialTable: TableJson;
  readonly arms: readonly ArmResult[];
}

/** The run's result, with the wall time of each arm (machine-dependent, not in the JSON). */
export interface RealFileRun {
  readonly result: RealFileResult;
  readonly seconds: Readonly<Record<string, number>>;
}

/** Told when an arm starts and how its fits progress. */
export type RealFileProgress = (arm: string, stage: string, done: number, total: number) => void;

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
  const kept = Array.from({ length: Math.ceil(data.n / every) }, (_, j) => j * every);
  const columns = new Map<string, Column>();
  for (const [name, column] of data.columns) {
    columns.set(
      name,
      column.kind === "numeric"
        ? { kind: "numeric", values: Float64Array.from(kept, (i) => column.values[i]) }
        : columnFromCells(kept.map((i) => column.levels[column.codes[i]])),
    );
  }
  return { source: data.source, n: kept.length, names: data.names, columns };
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

/** Text cells of an output column. */
function cells(column: OutputColumn): string[] {
  return Array.from(column as ArrayLike<string | number>, String);
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
  const columns = new Map<string, Column>();
  for (const [name, column] of synthetic) {
    if (column.length !== used.n) {
      throw new RangeError(
        `${where}: column ${name} has ${column.length} rows, the used records ${used.n}`,
      );
    }
    columns.set(name, columnFromCells(cells(column)));
  }
  const original = datasetColumns(used);
  for (const name of PUBLIC) {
    const mine = cells(synthetic.get(name)!);
    const theirs = cells(original.get(name)!);
    const row = mine.findIndex((value, i) => value !== theirs[i]);
    if (row >= 0) {
      throw new RangeError(
        `${where}: public column ${name} differs from the confidential record at row ${row + 1}; ` +
          "the design columns cannot be attached by row",
      );
    }
  }
  for (const name of [DESIGN.weight, DESIGN.strata]) columns.set(name, getColumn(used, name));
  return { source: where, n: used.n, names: [...columns.keys()], columns };
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
    outcomeLevels: histogram
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

function armResult(
  kind: ArmKind,
  epsilon: number | undefined,
  synthesis: SynthesisResult,
  used: Dataset,
  confidential: SurveyTable,
): ArmResult {
  const { report, diagnostics } = synthesis;
  const key = kind === "unweighted" ? kind : `${kind}-${epsilon}`;
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
    utility,
    hiChol,
    table: combinedJson(combineTables(tables), confidential),
  };
}

/**
 * Runs every arm on the file: the unweighted synthesizer, LW_final at each ε, the histogram at
 * each ε, in that order, each a {@linkcode synthesize} call with the same seed.
 *
 * @param data The file, as read.
 * @param settings The run's settings.
 * @param onProgress Told each arm's stages.
 * @returns The JSON result and the wall time of each arm.
 */
export async function runRealFile(
  data: Dataset,
  settings: RealFileSettings = REAL_FILE_SETTINGS,
  onProgress: RealFileProgress = () => {},
): Promise<RealFileRun> {
  const file = everyKth(data, settings.every);
  const { data: used, dropped } = usedRecords(file);
  const confidential = hiCholTable(used);
  const plan: { kind: ArmKind; epsilon?: number }[] = [
    { kind: "unweighted" },
    ...settings.epsilons.map((epsilon) => ({ kind: "lw-final" as const, epsilon })),
    ...settings.epsilons.map((epsilon) => ({ kind: "histogram" as const, epsilon })),
  ];
  const arms: ArmResult[] = [];
  const seconds: Record<string, number> = {};
  for (const { kind, epsilon } of plan) {
    const label = armLabel(kind, epsilon);
    const started = performance.now();
    onProgress(label, "start", 0, 1);
    const synthesis = await synthesize(file, armSpec(kind, settings, epsilon), {
      onProgress: (stage, done, total) => onProgress(label, stage, done, total),
    });
    const arm = armResult(kind, epsilon, synthesis, used, confidential);
    arms.push(arm);
    seconds[arm.key] = (performance.now() - started) / 1000;
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
