/**
 * A real public-use file end to end (issue 15; `docs/studies/real_file.md`), as a study with one
 * replicate (`deno task study real_file --replicates 1`, or `deno task real-file`): NHANES
 * 2009–2010 (`examples/nhanes.csv`, exported from R's `survey` dataset `nhanes` by
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
 * On the whole file the confidential table is compared with R's (the settings' `reference`). The
 * record is a pure function of the settings and the seed (the seed of every synthesis).
 *
 * Files: the constants, settings, record shapes and reduced-run flags in `real_file_settings.ts`,
 * the findings (and the measures they and the tables read) in `real_file_findings.ts`, the report
 * as data in `real_file_document.ts` and its prose in `templates/real_file.md`.
 *
 * @module
 */
import { datasetColumns, type OutputColumn, readCsv } from "../data/csv.ts";
import { type Dataset, selectRows } from "../data/dataset.ts";
import { dropMissing } from "../data/missing.ts";
import { CalibrationError } from "../mechanisms/calibrate.ts";
import { type CombinedTable, combineTables } from "../survey/combine.ts";
import { type SurveyTable, surveyTable, tableInput } from "../survey/tables.ts";
import { SynthesisSpec } from "../synthesis/spec.ts";
import { type SynthesisResult, synthesize } from "../synthesis/synthesize.ts";
import { utilityReport } from "../synthesis/utility_report.ts";
import { realFileDocument } from "./real_file_document.ts";
import {
  type ArmFailure,
  type ArmKind,
  type ArmResult,
  type CombinedTableJson,
  DESIGN,
  LEVELS,
  OUTCOME_MODELS,
  OUTCOMES,
  PUBLIC,
  type RealFileRecord,
  type RealFileSettings,
  type RealFileSummary,
  released,
  type RReference,
  type TableJson,
  UTILITY_MODELS,
} from "./real_file_settings.ts";
import type { StageFn, Study } from "./study.ts";
import { outputCells, syntheticRows } from "./synthetic_rows.ts";
import template from "./templates/real_file.md" with { type: "text" };
export * from "./real_file_settings.ts";

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
  seed: number,
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
    seed,
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

/** One cell of R's table (the settings' `reference`). */
export interface RCell {
  readonly agecat: string;
  readonly gender: string;
  readonly count: number;
  readonly countSE: number;
  readonly mean: number;
  readonly meanSE: number;
}

/**
 * The largest relative difference between our table and R's cells (matched by their labels),
 * over the count, mean and their SEs.
 *
 * @param table Our table.
 * @param cells R's cells.
 */
export function relativeDifference(table: SurveyTable, cells: readonly RCell[]): number {
  if (cells.length !== table.count.length) {
    throw new RangeError(`R has ${cells.length} cells, ours ${table.count.length}`);
  }
  let worst = 0;
  for (const cell of cells) {
    const r = table.labels[0].findIndex((a, i) =>
      a === cell.agecat && table.labels[1][i] === cell.gender
    );
    if (r < 0) throw new RangeError(`no cell ${cell.agecat} × ${cell.gender} in our table`);
    for (const key of ["count", "countSE", "mean", "meanSE"] as const) {
      const ours = table[key][r];
      worst = Math.max(worst, Math.abs(ours - cell[key]) / Math.abs(cell[key]));
    }
  }
  return worst;
}

/**
 * Our confidential table against R's on the whole file.
 *
 * @param path R's reference file (`test/reference/nhanes_tables_expected.json`).
 * @param table Our confidential table on the used records of the whole file.
 */
export async function rReference(path: string, table: SurveyTable): Promise<RReference> {
  const expected = JSON.parse(await Deno.readTextFile(path)) as {
    versions: { survey: string };
    cells: RCell[];
    clustered: RCell[];
  };
  const ratios = (key: "meanSE" | "countSE") => {
    const values = expected.clustered.map((cell, r) => cell[key] / expected.cells[r][key]);
    return [Math.min(...values), Math.max(...values)] as const;
  };
  return {
    maxRelativeDifference: relativeDifference(table, expected.cells),
    clusteredMeanSERatio: ratios("meanSE"),
    clusteredCountSERatio: ratios("countSE"),
    survey: expected.versions.survey,
  };
}

/**
 * The study's one replicate: reads the settings' file and runs every arm on it, the unweighted
 * synthesizer, LW_final at each ε, the histogram at each ε, in that order, each a
 * {@linkcode synthesize} call with the seed. An ε that LW_final cannot reach is recorded as that
 * arm's failure and the run goes on. Stages: an arm's label when it starts, then
 * "LABEL: STAGE P%" as its fits progress (in steps of 10%).
 *
 * @param r The replicate: 0, the only one.
 * @param seed The seed of every synthesis.
 * @param settings The run's settings.
 * @param stage Told of the stages.
 * @returns The record.
 */
export async function realFileReplicate(
  r: number,
  seed: number,
  settings: RealFileSettings,
  stage: StageFn = () => {},
): Promise<RealFileRecord> {
  if (r !== 0) {
    throw new RangeError(`Invalid replicate: real_file has one replicate (--replicates 1): r=${r}`);
  }
  const file = everyKth(await readCsv(settings.data), settings.every);
  const { data: used, dropped } = usedRecords(file);
  const confidential = hiCholTable(used);
  const arms: (ArmResult | ArmFailure)[] = [];
  for (const { kind, epsilon } of armPlan(settings)) {
    const key = armKey(kind, epsilon);
    const label = armLabel(kind, epsilon);
    stage(label);
    const shown = new Map<string, number>();
    let arm: ArmResult | ArmFailure;
    try {
      const synthesis = await synthesize(file, armSpec(kind, settings, seed, epsilon), {
        onProgress: (step, done, total) => {
          const percent = Math.floor((10 * done) / total) * 10;
          if (shown.get(step) === percent) return;
          shown.set(step, percent);
          stage(`${label}: ${step} ${percent}%`);
        },
        order: "aligned",
      });
      arm = armResult(kind, epsilon, synthesis, used, confidential);
    } catch (error) {
      if (!(error instanceof CalibrationError)) throw error;
      arm = { key, label, kind, targetEpsilon: epsilon ?? null, error: error.message };
    }
    arms.push(arm);
  }
  const reference = settings.every === 1 && settings.reference !== null
    ? await rReference(settings.reference, confidential)
    : null;
  return {
    n: { file: file.n, used: used.n, dropped },
    confidentialTable: tableJson(confidential),
    arms,
    reference,
  };
}

/**
 * The summary of the one record: each arm's achieved ε, Δ and prevalence coverage.
 *
 * @param records The one record.
 */
export function realFileAggregate(records: readonly RealFileRecord[]): RealFileSummary {
  if (records.length !== 1) {
    throw new RangeError(`Invalid records: real_file has one replicate: R=${records.length}`);
  }
  return {
    arms: records[0].arms.map((arm) => {
      const ok = released(arm);
      return {
        key: arm.key,
        epsilon: ok ? arm.epsilon : null,
        lipschitz: ok ? arm.lipschitz : null,
        covered: ok ? arm.table.meanCovers.filter((c) => c).length : null,
        cells: records[0].confidentialTable.mean.length,
      };
    }),
  };
}

/** The real-file study: one replicate (R = 1), its report from the record. */
export const study: Study<RealFileSettings, RealFileRecord, RealFileSummary> = {
  name: "real_file",
  module: import.meta.url,
  replicate: realFileReplicate,
  aggregate: realFileAggregate,
  document: realFileDocument,
  template,
};
