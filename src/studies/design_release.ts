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
 * The design release as a study of the one command (`deno task study design_release`, alias
 * `deno task design-release`; `docs/studies/design_release.md`, issue 24):
 *
 *     deno task study design_release [--out DIR] [--quick]
 *     deno task study design_release --render [--out DIR]
 *
 * Reads examples/nhanes.csv, runs the study of `design_release.ts` (one SW release at ε = 10 of
 * race, hi_chol and the weight given agecat and gender; the design-based tables both ways; the
 * weights; the held-out check) and writes DIR/design_release.json (a pure function of the
 * settings) and DIR/design_release.md (the wall time in a footer), both or neither. `--quick` is
 * a reduced run for the tests (every 20th record, short chains). `--render` runs nothing: it
 * decides the report's document again from DIR/design_release.json and rewrites the JSON (with
 * the document) and the markdown, keeping the markdown's footer.
 *
 * Files: the settings and result shapes in `design_release_settings.ts`, the report as data in
 * `design_release_document.ts` and its prose in `templates/design_release.md`.
 *
 * @module
 */
import { type Column, type Dataset, getColumn, numericColumn } from "../data/dataset.ts";
import { dropMissing } from "../data/missing.ts";
import { chooseMechanism } from "../mechanisms/auto.ts";
import { heldOutAccuracy, type Predictor } from "../stats/held_out.ts";
import { quantile } from "../stats/quantile.ts";
import { combineTables } from "../survey/combine.ts";
import { type SurveyTable, surveyTable, tableInput } from "../survey/tables.ts";
import { synthesisPlan } from "../synthesis/plan.ts";
import { synthesize } from "../synthesis/synthesize.ts";
import { DESIGN, everyKth, LEVELS, OUTCOMES, PUBLIC } from "./real_file.ts";
import { finalFitOf } from "./final_fit.ts";
import { syntheticRows } from "./synthetic_rows.ts";

export * from "./design_release_settings.ts";
import {
  type CellComparison,
  DESIGN_RELEASE_SETTINGS,
  type DesignColumns,
  type DesignRelease,
  type DesignReleaseResult,
  type DesignReleaseSettings,
  designReleaseSpec,
  type DesignTables,
  type DesignVerdicts,
  type Estimate,
  type HeldOutCheck,
  QUICK_DESIGN_RELEASE,
  type RunDesignReleaseOptions,
  type ShareComparison,
  type TableComparison,
  type WeightSummary,
} from "./design_release_settings.ts";
import { readCsv } from "../data/csv.ts";
import { fixed } from "../report/format.ts";
import { designReleaseFiles } from "./design_release_document.ts";
import type { SingleRunStudy } from "./study.ts";
import { footerOf } from "./study_document.ts";
/** The 95 % intervals' normal quantile (the confidential table's; R's `confint` of `svymean`). */
const LEVEL = 0.95;

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

/** `deno task study design_release`. */
export const designReleaseStudy: SingleRunStudy = {
  name: "design_release",
  flags: { quick: "boolean" },
  async render(out) {
    const result = JSON.parse(await Deno.readTextFile(`${out}/design_release.json`));
    return designReleaseFiles(
      result,
      footerOf(await Deno.readTextFile(`${out}/design_release.md`)),
    );
  },
  async run({ values, out, fits }) {
    const settings = values.quick === true ? QUICK_DESIGN_RELEASE : DESIGN_RELEASE_SETTINGS;
    const data = await readCsv(settings.data);
    const { result, seconds } = await runDesignRelease(data, settings, {
      onProgress: fits.update,
    });
    fits.end();
    const footer = `---\nWall time ${fixed(seconds, 0)} s on ${navigator.hardwareConcurrency} ` +
      `logical core(s), Deno ${Deno.version.deno} (machine-dependent; not part of the JSON).`;
    return {
      files: designReleaseFiles(result, footer),
      message: `design-release: wrote ${out}/design_release.json and .md`,
    };
  },
};
