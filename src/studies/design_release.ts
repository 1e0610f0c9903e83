/**
 * Design release (issue 24, "weights that do not leak"; `docs/studies/design_release.md`): what a
 * release that synthesises the survey weight gives an analyst and an attacker on NHANES 2009–2010
 * (`examples/nhanes.csv`). NHANES's exam weights are post-stratified by race, so the weight
 * released as it is predicts race (the frontier's design-leakage check: 47 % held-out accuracy
 * from age group and gender, 72 % with the weight's ventile). Here one release synthesises race
 * and hi_chol (categorical, logistic) given agecat and gender with `weight: "weight"`, so the
 * weight is the record's last outcome (lognormal given the covariates and the outcomes,
 * `WEIGHT_MODEL` of `src/synthesis/spec.ts`), by SW (what `mechanism: "auto"` picks where aDP is
 * allowed) at ε = 10, m = 1; no stratum or PSU is released. The study then reports
 *
 * 1. the release: ε, Δ, guarantee, the final fit's health and the synthetic file's columns;
 * 2. the design-based table of hi_chol (prevalence and weighted count) in every agecat × gender
 *    cell and the margins, and the weighted race distribution, from the synthetic file (weights
 *    = the synthetic weight, one stage, no strata) against the confidential file (strata =
 *    stratum, weights = weight, Taylor SEs and 95 % intervals; `surveyTable`), with whether each
 *    synthetic estimate lies in the confidential interval;
 * 3. the synthetic weights against the confidential ones: quantiles, sum, and mean per race level
 *    (the post-stratification signal);
 * 4. the held-out check (`heldOutAccuracy`): confidential race predicted from the public
 *    covariates alone, with the released synthetic weight's ventile (record i of the synthetic
 *    file shares the public covariates of confidential record i, so an attacker can align them)
 *    and with the confidential weight's ventile (what releasing it as it is would give).
 *
 * Every verdict is decided here, in code; the result is JSON-serialisable and a pure function of
 * the settings (the seeds are fixed). The pieces ({@linkcode designTables},
 * {@linkcode compareTables}, {@linkcode compareShares}, {@linkcode weightSummary},
 * {@linkcode heldOutCheck}) are pure functions of their inputs.
 *
 * @module
 */
import { type Column, type Dataset, getColumn, numericColumn } from "../data/dataset.ts";
import { dropMissing } from "../data/missing.ts";
import { chooseMechanism } from "../mechanisms/auto.ts";
import type { MechanismName } from "../mechanisms/mechanism.ts";
import { heldOutAccuracy, type Predictor } from "../stats/held_out.ts";
import { quantile } from "../stats/quantile.ts";
import { combineTables } from "../survey/combine.ts";
import { type SurveyTable, surveyTable, tableInput } from "../survey/tables.ts";
import { synthesisPlan } from "../synthesis/plan.ts";
import { SynthesisSpec } from "../synthesis/spec.ts";
import { type SynthesisProgress, synthesize } from "../synthesis/synthesize.ts";
import { DESIGN, everyKth, LEVELS, OUTCOME_MODELS, OUTCOMES, PUBLIC } from "./real_file.ts";
import { type FinalFit, finalFitOf } from "./final_fit.ts";
import { syntheticRows } from "./synthetic_rows.ts";

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

/** The reduced run of `--quick` (every 10th record, short chains): for the tests. */
export const QUICK_DESIGN_RELEASE: DesignReleaseSettings = Object.freeze({
  ...DESIGN_RELEASE_SETTINGS,
  every: 10,
  draws: 200,
  chains: 2,
  warmup: 150,
});

/** The 95 % intervals' normal quantile (the confidential table's; R's `confint` of `svymean`). */
const LEVEL = 0.95;

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

/** The name of the constant stratum added to a file without strata. */
const ONE_STRATUM = "\u0000stratum";

/** The cells of a dataset's column as text. */
function textColumn(data: Dataset, name: string): string[] {
  const column = getColumn(data, name);
  return column.kind === "numeric"
    ? Array.from(column.values, String)
    : Array.from(column.codes, (code) => column.levels[code]);
}

/** `data` with a constant column `name` (one stratum). */
function withOneStratum(data: Dataset): Dataset {
  const columns = new Map<string, Column>(data.columns);
  columns.set(ONE_STRATUM, { kind: "numeric", values: new Float64Array(data.n) });
  return { ...data, names: [...data.names, ONE_STRATUM], columns };
}

/**
 * The design-based tables of a file: hi_chol (0/1) by agecat × gender with both margins (the
 * prevalence and the weighted count of every cell, Taylor SEs of the stratified one-stage
 * with-replacement design), and the same for the indicator of each race level (its row 0 is the
 * level's weighted share and count overall). All by {@linkcode surveyTable}.
 *
 * @param data Records with hi_chol, race, agecat, gender, the weight and the strata.
 * @param design The weight and strata columns (strata null: one stratum).
 * @param levels The declared levels of race, agecat and gender.
 */
export function designTables(
  data: Dataset,
  design: DesignColumns,
  levels: {
    readonly race: readonly string[];
    readonly agecat: readonly string[];
    readonly gender: readonly string[];
  } = LEVELS,
): DesignTables {
  const file = design.strata === null ? withOneStratum(data) : data;
  const input = tableInput(file, {
    y: "hi_chol",
    weight: design.weight,
    strata: design.strata ?? ONE_STRATUM,
    by: ["agecat", "gender"],
    levels: { agecat: levels.agecat, gender: levels.gender },
  });
  const race = textColumn(data, "race");
  for (const [i, value] of race.entries()) {
    if (!levels.race.includes(value)) {
      throw new RangeError(`${data.source}: race "${value}" at row ${i + 1} is not a level`);
    }
  }
  return {
    hiChol: surveyTable(input),
    race: levels.race.map((level) =>
      surveyTable({ ...input, y: Float64Array.from(race, (v) => (v === level ? 1 : 0)) })
    ),
  };
}

/** Row r's count and mean of a table combined over m ≥ 1 tables (m = 1: normal interval). */
function rowEstimates(tables: readonly SurveyTable[], r: number) {
  const c = combineTables(tables, LEVEL);
  const estimate = (kind: "count" | "mean"): Estimate => ({
    estimate: c[kind][r],
    se: c[`${kind}SE`][r],
    lower: c[`${kind}Lower`][r],
    upper: c[`${kind}Upper`][r],
  });
  return { count: estimate("count"), mean: estimate("mean") };
}

/** Whether `value` lies in the interval (null when either is not finite). */
function inside(value: number, interval: Estimate): boolean | null {
  if (![value, interval.lower, interval.upper].every(Number.isFinite)) return null;
  return interval.lower <= value && value <= interval.upper;
}

/**
 * The hi_chol table from the synthetic file against the confidential one, cell by cell: both
 * estimates, the confidential 95 % interval (estimate ± z·SE) and whether the synthetic estimate
 * (combined over the m datasets) lies in it; the summary counts the cells covered.
 *
 * @param confidential The confidential table.
 * @param synthetic The m synthetic datasets' tables (same groupings and rows).
 */
export function compareTables(
  confidential: SurveyTable,
  synthetic: readonly SurveyTable[],
): TableComparison {
  const rows = confidential.count.length;
  const compared: CellComparison[] = [];
  for (let r = 0; r < rows; r++) {
    const c = rowEstimates([confidential], r);
    const s = rowEstimates(synthetic, r);
    compared.push({
      agecat: confidential.labels[0][r],
      gender: confidential.labels[1][r],
      confidential: { prevalence: c.mean, count: c.count },
      synthetic: { prevalence: s.mean, count: s.count },
      prevalenceDifference: s.mean.estimate - c.mean.estimate,
      prevalenceCovered: inside(s.mean.estimate, c.mean),
      countCovered: inside(s.count.estimate, c.count),
    });
  }
  const counted = compared.filter((cell) => cell.prevalenceCovered !== null);
  const covered = counted.filter((cell) => cell.prevalenceCovered).length;
  const countCounted = compared.filter((cell) => cell.countCovered !== null);
  const countCovered = countCounted.filter((cell) => cell.countCovered).length;
  let worst = counted[0];
  for (const cell of counted) {
    if (Math.abs(cell.prevalenceDifference) > Math.abs(worst.prevalenceDifference)) worst = cell;
  }
  return {
    by: confidential.by,
    cells: compared,
    summary: {
      cells: counted.length,
      covered,
      coverage: covered / counted.length,
      countCovered,
      countCoverage: countCovered / countCounted.length,
      maxAbsPrevalenceDifference: Math.abs(worst?.prevalenceDifference ?? NaN),
      maxAt: { agecat: worst?.agecat ?? "", gender: worst?.gender ?? "" },
      totalConfidential: compared[0].confidential.count.estimate,
      totalSynthetic: compared[0].synthetic.count.estimate,
    },
  };
}

/**
 * The weighted distribution of a categorical variable both ways: per level, the overall row of
 * its indicator's table (the share, and the weighted count as share × the overall weighted
 * count), and whether the synthetic share lies in the
 * confidential 95 % interval.
 *
 * @param levels The levels, in the order of the tables.
 * @param confidential One confidential table per level.
 * @param synthetic Per synthetic dataset, one table per level.
 */
export function compareShares(
  levels: readonly string[],
  confidential: readonly SurveyTable[],
  synthetic: readonly (readonly SurveyTable[])[],
): ShareComparison[] {
  return levels.map((level, k) => {
    const c = rowEstimates([confidential[k]], 0);
    const s = rowEstimates(synthetic.map((tables) => tables[k]), 0);
    return {
      level,
      confidential: { share: c.mean, count: c.mean.estimate * c.count.estimate },
      synthetic: { share: s.mean, count: s.mean.estimate * s.count.estimate },
      shareDifference: s.mean.estimate - c.mean.estimate,
      shareCovered: inside(s.mean.estimate, c.mean) === true,
    };
  });
}

/** The quantiles of {@linkcode WeightSummary}. */
export const WEIGHT_QUANTILES = [0.05, 0.25, 0.5, 0.75, 0.95] as const;

/**
 * A file's weights: quantiles, sum, mean and the mean per race level.
 *
 * @param weights One weight per record.
 * @param race Each record's race (the same file's, or another's aligned by row).
 * @param levels The race levels (a level without records has mean NaN).
 */
export function weightSummary(
  weights: ArrayLike<number>,
  race: readonly string[],
  levels: readonly string[],
): WeightSummary {
  if (race.length !== weights.length) {
    throw new RangeError(`${race.length} race values for ${weights.length} weights`);
  }
  const values = Float64Array.from(weights);
  const sum = values.reduce((s, w) => s + w, 0);
  return {
    n: values.length,
    quantiles: WEIGHT_QUANTILES.map((p) => ({ p, value: quantile(values, p) })),
    sum,
    mean: sum / values.length,
    meanByRace: meanByLevel(values, race, levels),
  };
}

/** The mean of `values` over the records of each level. */
function meanByLevel(
  values: ArrayLike<number>,
  labels: readonly string[],
  levels: readonly string[],
): Record<string, number> {
  return Object.fromEntries(levels.map((level) => {
    let sum = 0;
    let count = 0;
    for (let i = 0; i < labels.length; i++) if (labels[i] === level) (sum += values[i], count++);
    return [level, sum / count];
  }));
}

/** The inputs of {@linkcode heldOutCheck}, one entry per record in every array. */
export interface HeldOutInput {
  /** The confidential variable to predict (race). */
  readonly target: readonly string[];
  /** The public covariates. */
  readonly public: readonly (readonly string[])[];
  /** The released synthetic weight of the record aligned by row. */
  readonly syntheticWeight: ArrayLike<number>;
  /** The confidential weight. */
  readonly confidentialWeight: ArrayLike<number>;
  /** The other released synthetic columns of the aligned record (for `allReleased`). */
  readonly syntheticOutcomes: readonly (readonly string[])[];
}

/**
 * The held-out check: the accuracy of the cell classifier of `stats/held_out.ts` (half the
 * records held out, the split's seed given) predicting the target from (a) the public
 * covariates, (b) with the synthetic weight's quantile bin, (c) with the confidential weight's,
 * and from every released column; the verdict is (b) ≤ (a) + margin.
 *
 * @param input The columns.
 * @param options The split's seed, the weight's bins and the verdict's margin.
 */
export function heldOutCheck(
  input: HeldOutInput,
  options: { readonly seed: number; readonly bins: number; readonly margin: number },
  outcome = "race",
): HeldOutCheck {
  const { seed, bins, margin } = options;
  const text = (values: readonly string[]): Predictor => ({ kind: "text", values });
  const numeric = (values: ArrayLike<number>): Predictor => ({ kind: "numeric", values, bins });
  const publicColumns = input.public.map(text);
  const accuracy = (predictors: Predictor[]) => heldOutAccuracy(input.target, predictors, { seed });
  const publicOnly = accuracy(publicColumns);
  const syntheticWeight = accuracy([...publicColumns, numeric(input.syntheticWeight)]);
  return {
    outcome,
    seed,
    bins,
    publicOnly,
    syntheticWeight,
    confidentialWeight: accuracy([...publicColumns, numeric(input.confidentialWeight)]),
    allReleased: accuracy([
      ...publicColumns,
      ...input.syntheticOutcomes.map(text),
      numeric(input.syntheticWeight),
    ]),
    margin,
    noBetter: syntheticWeight <= publicOnly + margin,
  };
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

/**
 * The records the release reads: those with no missing value in the outcomes, the public
 * covariates and the weight (what `synthesize` keeps with `missing: "drop"`, by the same
 * function), in the file's order.
 *
 * @param data The file.
 */
export function usedRecords(data: Dataset): { data: Dataset; dropped: number } {
  return dropMissing(data, [...OUTCOMES, ...PUBLIC, DESIGN.weight]);
}

/** Options of {@linkcode runDesignRelease}. */
export interface RunDesignReleaseOptions {
  readonly onProgress?: SynthesisProgress;
}

/**
 * Runs the study: one synthesis, then the tables, the weights and the held-out check.
 *
 * @param data The file, as read.
 * @param settings The run's settings.
 * @param options Progress of the synthesis's fits.
 * @returns The JSON result and the wall time in seconds (machine-dependent, not in the JSON).
 */
export async function runDesignRelease(
  data: Dataset,
  settings: DesignReleaseSettings = DESIGN_RELEASE_SETTINGS,
  options: RunDesignReleaseOptions = {},
): Promise<{ result: DesignReleaseResult; seconds: number }> {
  const started = performance.now();
  const file = everyKth(data, settings.every);
  const { data: used, dropped } = usedRecords(file);
  const spec = designReleaseSpec(settings);
  const synthesis = await synthesize(file, spec, {
    onProgress: options.onProgress,
    order: "aligned",
  });
  const { report, diagnostics } = synthesis;
  if (report.n !== used.n) {
    throw new RangeError(`the synthesis used ${report.n} records, expected ${used.n}`);
  }
  const synthetic = synthesis.datasets.map((dataset, l) =>
    syntheticRows(dataset, used, PUBLIC, [], `synthetic dataset ${l + 1}`)
  );
  const first = synthetic[0];
  const confidentialWeight = numericColumn(used, DESIGN.weight);
  const syntheticWeight = numericColumn(first, DESIGN.weight);
  const weightRowsEqual = syntheticWeight.filter((w, i) => w === confidentialWeight[i]).length;

  const fit = diagnostics.fit;
  const outcomes = report.outcomes ??
    synthesisPlan(spec).outcomes.map(({ y, model }) => ({ y, model }));
  const release: DesignRelease = {
    mechanism: report.mechanism,
    autoPicks: chooseMechanism({
      guarantees: ["aDP", "DP"],
      epsilon: settings.epsilon,
      m: settings.m,
    }).mechanism,
    targetEpsilon: settings.epsilon,
    epsilon: report.epsilon,
    epsilonPerDataset: report.epsilonPerDataset,
    guarantee: report.guarantee,
    lipschitz: report.lipschitz,
    n: report.n,
    m: report.m,
    outcomes,
    columns: report.columns,
    fits: diagnostics.refits.length,
    finalFit: finalFitOf(fit),
    weightRowsEqual,
  };

  const confidentialTables = designTables(used, { weight: DESIGN.weight, strata: DESIGN.strata });
  const syntheticTables = synthetic.map((d) =>
    designTables(d, { weight: DESIGN.weight, strata: null })
  );
  const table = compareTables(confidentialTables.hiChol, syntheticTables.map((t) => t.hiChol));
  const race = compareShares(
    LEVELS.race,
    confidentialTables.race,
    syntheticTables.map((t) => t.race),
  );

  const confidentialRace = textColumn(used, "race");
  const weights = {
    confidential: weightSummary(confidentialWeight, confidentialRace, LEVELS.race),
    synthetic: weightSummary(syntheticWeight, textColumn(first, "race"), LEVELS.race),
    syntheticByConfidentialRace: meanByLevel(syntheticWeight, confidentialRace, LEVELS.race),
  };
  const heldOut = heldOutCheck({
    target: confidentialRace,
    public: PUBLIC.map((name) => textColumn(used, name)),
    syntheticWeight,
    confidentialWeight,
    syntheticOutcomes: OUTCOMES.map((name) => textColumn(first, name)),
  }, settings);

  const designNames: readonly string[] = [DESIGN.strata, DESIGN.psu];
  const weightSynthesised = outcomes.some((o) => o.y === DESIGN.weight);
  const verdicts: DesignVerdicts = {
    noUnsynthesisedDesignColumn: !report.columns.some((c) => designNames.includes(c)) &&
      weightSynthesised && weightRowsEqual === 0,
    heldOutNoBetter: heldOut.noBetter,
    tableCoverage: table.summary.coverage,
    finalFitFlagged: fit?.flagged ?? false,
  };
  return {
    result: {
      study: "design_release",
      settings,
      records: { file: file.n, used: used.n, dropped },
      design: { ...DESIGN },
      verdicts,
      release,
      table,
      race,
      weights,
      heldOut,
    },
    seconds: (performance.now() - started) / 1000,
  };
}

/** The JSON text of a result: two-space indented, with a final newline. */
export function designReleaseJson(result: DesignReleaseResult): string {
  return JSON.stringify(result, null, 2) + "\n";
}
