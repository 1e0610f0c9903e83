/**
 * The utility–ε frontier on real files (issue 24; `docs/studies/frontier.md`): every mechanism of
 * the papers that releases several outcomes, at each ε and m, on real public-use files, each
 * synthesis scored by the same utility measures, so that the choice of mechanism rests on
 * evidence. The mechanisms:
 *
 * - SW: one scalar weight α for every record, set so that Δ reaches the target ε/(2m) (aDP);
 * - LW_final: the record-level weights calibrated to ε, re-weighted (aDP);
 * - Weighted-e: the LW weights at g = 0, truncated at ε/m (JSM slides; aDP);
 * - Censor w and Censor uw: every record's contribution clamped to ±ε/(2m), with the LW weights
 *   at g = 0 or none (pure ε-DP);
 * - the perturbed histogram of one outcome (ε-DP, any m; the relation to the covariates is not
 *   synthesised);
 * - on a survey file, the tabular Laplace baseline in its bounded mode (ε-DP), scored on the
 *   survey table only.
 *
 * Each synthesis is one {@linkcode synthesize} call with the study's seed; an ε a mechanism
 * cannot reach is recorded as that arm's failure. The result holds, per arm, the release (ε, its
 * guarantee, Δ, the fits and the final fit's health) and the utility measures of
 * {@linkcode ArmMetrics}; {@linkcode recommend} reads the recommendation off them. Everything is a
 * pure function of the settings; wall times are returned beside it.
 *
 * @module
 */
import { datasetColumns, readCsv } from "../data/csv.ts";
import type { Dataset } from "../data/dataset.ts";
import { dropMissing } from "../data/missing.ts";
import { CalibrationError } from "../mechanisms/calibrate.ts";
import type { ModelName } from "../models/mod.ts";
import { Rng } from "../random/rng.ts";
import { heldOutAccuracy, type Predictor } from "../stats/held_out.ts";
import { combineTables } from "../survey/combine.ts";
import { laplaceTable, seededRelease } from "../survey/laplace_baseline.ts";
import { type SurveyTable, surveyTable, tableInput } from "../survey/tables.ts";
import { SynthesisSpec } from "../synthesis/spec.ts";
import { type SynthesisResult, synthesize } from "../synthesis/synthesize.ts";
import type { UtilityReport } from "../synthesis/utility_report.ts";
import { everyKth } from "./real_file.ts";
import { type FinalFit, finalFitOf } from "./final_fit.ts";
import { outputCells, syntheticRows } from "./synthetic_rows.ts";

/** The mechanisms of the frontier, in the order of its tables and legend. */
export const FRONTIER_MECHANISMS = [
  "sw",
  "lw-final",
  "weighted-e",
  "censored-w",
  "censored",
  "histogram",
  "laplace-table",
] as const;
export type FrontierMechanism = typeof FRONTIER_MECHANISMS[number];

/** The papers' names of the mechanisms. */
export const MECHANISM_LABELS: Readonly<Record<FrontierMechanism, string>> = {
  "sw": "SW",
  "lw-final": "LW_final",
  "weighted-e": "Weighted-e",
  "censored-w": "Censor w",
  "censored": "Censor uw",
  "histogram": "Histogram",
  "laplace-table": "Laplace table",
};

/** Mechanisms that synthesise every outcome of the file with its relation to the covariates. */
export const RECORD_MECHANISMS: readonly FrontierMechanism[] = [
  "sw",
  "lw-final",
  "weighted-e",
  "censored-w",
  "censored",
];

/** A confidential outcome and its model. */
export interface FrontierOutcome {
  readonly name: string;
  readonly model: ModelName;
}

/** The weighted survey table of a binary outcome by two public groupings (a survey file). */
export interface FrontierTable {
  /** The 0/1 outcome tabulated (one of the outcomes). */
  readonly y: string;
  readonly by: readonly [string, string];
  readonly weight: string;
  readonly strata: string;
  /** The PSU column (used only by the design-leakage check). */
  readonly psu: string;
  /** The owner's declared weight bounds, for the Laplace baseline's bounded mode. */
  readonly weightBounds: readonly [number, number];
}

/** A real file and what is synthesised on it. */
export interface FrontierFile {
  readonly key: string;
  readonly label: string;
  /** The CSV file. */
  readonly data: string;
  /** Keep every k-th record (1: all). */
  readonly every: number;
  /** Drop records with a missing value among the outcomes and public covariates. */
  readonly dropMissing: boolean;
  readonly outcomes: readonly FrontierOutcome[];
  readonly public: readonly string[];
  /** The declared level sets of every text column used. */
  readonly levels: Readonly<Record<string, readonly string[]>>;
  readonly utilityModels: readonly string[];
  /** The histogram's outcome and, for a numeric one, its declared bounds and bins. */
  readonly histogram: {
    readonly outcome: FrontierOutcome;
    readonly lower?: number;
    readonly upper?: number;
    readonly bins?: number;
  };
  /** The survey table, on a survey file. */
  readonly table?: FrontierTable;
}

/** NHANES 2009–2010 (`examples/nhanes.csv`, `test/reference/nhanes_export.R`). */
export const NHANES_FILE: FrontierFile = Object.freeze<FrontierFile>({
  key: "nhanes",
  label: "NHANES",
  data: "examples/nhanes.csv",
  every: 1,
  dropMissing: true,
  outcomes: [{ name: "race", model: "categorical" }, { name: "hi_chol", model: "logistic" }],
  public: ["agecat", "gender"],
  levels: {
    race: ["hispanic", "white", "black", "other"],
    hi_chol: ["0", "1"],
    agecat: ["0-19", "20-39", "40-59", "60+"],
    gender: ["male", "female"],
  },
  utilityModels: ["hi_chol ~ agecat + gender + race"],
  histogram: { outcome: { name: "hi_chol", model: "logistic" } },
  table: {
    y: "hi_chol",
    by: ["agecat", "gender"],
    weight: "weight",
    strata: "stratum",
    psu: "psu",
    weightBounds: [0, 250_000],
  },
});

/**
 * CPS1988 (`examples/cps1988.csv`, `test/reference/cps1988_export.R`): a skewed amount, a binary
 * and a categorical outcome given two raw-scale numeric and two categorical covariates. The
 * histogram's bounds are declared: weekly wages of 0 to 20,000 dollars in 40 bins.
 */
export const CPS1988_FILE: FrontierFile = Object.freeze<FrontierFile>({
  key: "cps1988",
  label: "CPS1988",
  data: "examples/cps1988.csv",
  every: 8,
  dropMissing: false,
  outcomes: [
    { name: "wage", model: "lognormal" },
    { name: "parttime", model: "logistic" },
    { name: "region", model: "categorical" },
  ],
  public: ["education", "experience", "ethnicity", "smsa"],
  levels: {
    parttime: ["no", "yes"],
    region: ["northeast", "midwest", "south", "west"],
    ethnicity: ["cauc", "afam"],
    smsa: ["no", "yes"],
  },
  utilityModels: ["parttime ~ education + experience + ethnicity + smsa + region"],
  histogram: { outcome: { name: "wage", model: "lognormal" }, lower: 0, upper: 20_000, bins: 40 },
});

/** The settings of a frontier run. */
export interface FrontierSettings {
  readonly files: readonly FrontierFile[];
  readonly mechanisms: readonly FrontierMechanism[];
  readonly epsilons: readonly number[];
  readonly ms: readonly number[];
  /** Posterior draws S (all chains), chains and warmup iterations per chain. */
  readonly draws: number;
  readonly chains: number;
  readonly warmup: number;
  readonly seed: number;
}

/**
 * The full run of `deno task frontier`: 115 arms at the real-file study's sampler (S = 2000
 * draws after 500 warmup iterations per chain; fewer left R̂ just above 1.01 in fits that had
 * mixed), on every 8th record of CPS1988 (n = 3520) to keep the run to a few hours on two cores.
 */
export const FRONTIER_SETTINGS: FrontierSettings = Object.freeze<FrontierSettings>({
  files: [NHANES_FILE, CPS1988_FILE],
  mechanisms: FRONTIER_MECHANISMS,
  epsilons: [1, 2, 5, 10, 20],
  ms: [1, 3],
  draws: 2000,
  chains: 4,
  warmup: 500,
  seed: 1,
});

/** The utility of one synthesis (or table), each measure null where it does not apply. */
export interface ArmMetrics {
  /** TVD of each synthesised categorical margin (mean over the m datasets). */
  readonly marginTvd: Readonly<Record<string, number>>;
  /** Mean TVD over the margins and two-way tables of the synthesised categorical variables. */
  readonly meanTvd: number | null;
  /** The worst two-way table's TVD (synthesised × synthesised or × public). */
  readonly maxTwoWayTvd: number | null;
  /** pMSE and S_pMSE (mean over m), and whether any propensity fit separated. */
  readonly pMSE: number | null;
  readonly sPMSE: number | null;
  readonly separated: boolean | null;
  /**
   * Per synthesised variable: a binary's share of its second level, synthetic − confidential (in
   * points); a numeric's mean, (synthetic − confidential)/confidential.
   */
  readonly bias: Readonly<Record<string, number>>;
  /** The utility model's mean confidence-interval overlap over its coefficients. */
  readonly ciOverlap: number | null;
  /** Survey table: the share of cells whose 95% interval covers the confidential mean. */
  readonly tableCoverage: number | null;
  /** Survey table: mean |synthetic − confidential| cell mean, in points. */
  readonly tableError: number | null;
}

/** One released synthesis of the frontier. */
export interface FrontierArm {
  readonly file: string;
  readonly mechanism: FrontierMechanism;
  readonly epsilon: number;
  readonly m: number;
  /** The release: achieved ε, guarantee, Δ (null: histogram and table), records. */
  readonly release: {
    readonly epsilon: number;
    readonly guarantee: string;
    readonly lipschitz: number | null;
    readonly n: number;
  };
  /** Fits run (0: histogram and table) and the final fit's health. */
  readonly fits: number;
  readonly finalFit: FinalFit | null;
  readonly metrics: ArmMetrics;
}

/** An arm that could not be released (the mechanism could not reach its ε). */
export interface FrontierFailure {
  readonly file: string;
  readonly mechanism: FrontierMechanism;
  readonly epsilon: number;
  readonly m: number;
  readonly error: string;
}

/** Whether an arm was released. */
export function isReleased(arm: FrontierArm | FrontierFailure): arm is FrontierArm {
  return !("error" in arm);
}

/** The confidential side of a file: what every arm is scored against. */
export interface FrontierBaseline {
  readonly file: string;
  readonly n: number;
  readonly dropped: number;
  /** A binary outcome's share of its second level (points), a numeric's mean. */
  readonly values: Readonly<Record<string, number>>;
  /**
   * On a survey file: how well a many-level outcome is predicted on held-out records
   * (`stats/held_out.ts`) from the public covariates alone, with the weight's ventile, and with
   * the weight's ventile, stratum and PSU — what releasing the design columns unsynthesised would
   * add (why a default release does not).
   */
  readonly designLeakage?: {
    readonly outcome: string;
    readonly publicOnly: number;
    readonly withWeight: number;
    readonly withDesign: number;
  };
}

/** The result of a run (the JSON file). */
export interface FrontierResult {
  readonly study: "frontier";
  readonly settings: FrontierSettings;
  /** Arms planned, and how many the result holds (fewer: a partial run, `--partial`). */
  readonly planned: number;
  readonly baselines: readonly FrontierBaseline[];
  readonly arms: readonly (FrontierArm | FrontierFailure)[];
}

/** One planned arm. */
export interface ArmPlan {
  readonly file: FrontierFile;
  readonly mechanism: FrontierMechanism;
  readonly epsilon: number;
  readonly m: number;
}

/** A plan's key (its cache file name). */
export function armKey(
  plan: Pick<ArmPlan, "mechanism" | "epsilon" | "m"> & { file: { key: string } },
): string {
  return `${plan.file.key}-${plan.mechanism}-e${plan.epsilon}-m${plan.m}`;
}

/**
 * The arms of a run, file by file, then m, ε and mechanism; the histogram and the Laplace table
 * are charged once for any m, so they run at m = 1 only, and the table only on a survey file.
 */
export function frontierPlan(settings: FrontierSettings): ArmPlan[] {
  const plans: ArmPlan[] = [];
  for (const file of settings.files) {
    for (const m of settings.ms) {
      for (const epsilon of settings.epsilons) {
        for (const mechanism of settings.mechanisms) {
          if ((mechanism === "histogram" || mechanism === "laplace-table") && m !== 1) continue;
          if (mechanism === "laplace-table" && file.table === undefined) continue;
          plans.push({ file, mechanism, epsilon, m });
        }
      }
    }
  }
  return plans;
}

/** A file's records as the syntheses use them. */
export function usedRecords(file: FrontierFile, data: Dataset): { data: Dataset; dropped: number } {
  const kept = everyKth(data, file.every);
  if (!file.dropMissing) return { data: kept, dropped: 0 };
  return dropMissing(kept, [...file.outcomes.map((o) => o.name), ...file.public]);
}

/** The spec of one synthesis arm. */
function armSpec(plan: ArmPlan, settings: FrontierSettings): SynthesisSpec {
  const { file, mechanism, epsilon, m } = plan;
  const outcomes = mechanism === "histogram" ? [file.histogram.outcome] : file.outcomes;
  const names = outcomes.map((o) => o.name);
  const levels = Object.fromEntries(
    Object.entries(file.levels).filter(([name]) =>
      names.includes(name) || file.public.includes(name)
    ),
  );
  return SynthesisSpec.parse({
    y: names.length === 1 ? names[0] : names,
    model: names.length === 1 ? outcomes[0].model : outcomes.map((o) => o.model),
    x: [...file.public],
    ...(file.dropMissing ? { missing: "drop" } : {}),
    // A research comparison: a flagged final fit is reported, not refused.
    allowFlagged: true,
    levels,
    ...(mechanism === "histogram" ? {} : { utilityModels: [...file.utilityModels] }),
    report: true,
    mechanism,
    epsilon,
    m,
    ...(mechanism === "histogram" && file.histogram.lower !== undefined
      ? { lower: file.histogram.lower, upper: file.histogram.upper, bins: file.histogram.bins }
      : {}),
    draws: settings.draws,
    chains: settings.chains,
    warmup: settings.warmup,
    seed: settings.seed,
    backend: "cpu",
  });
}

/** A binary variable's share of its second level (points) or a numeric's mean, from cells. */
function summaryValue(values: readonly string[], levels: readonly string[] | undefined): number {
  if (levels !== undefined) {
    return 100 * values.filter((v) => v === levels[levels.length - 1]).length / values.length;
  }
  return values.reduce((s, v) => s + Number(v), 0) / values.length;
}

/** The confidential summaries of a file's binary and numeric outcomes. */
function baselineValues(file: FrontierFile, used: Dataset): Record<string, number> {
  const columns = datasetColumns(used);
  const values: Record<string, number> = {};
  for (const { name } of file.outcomes) {
    const levels = file.levels[name];
    if (levels !== undefined && levels.length !== 2) continue;
    values[name] = summaryValue(outputCells(columns.get(name)!), levels);
  }
  return values;
}

/** The design-leakage check of {@linkcode FrontierBaseline} (split seed 1, half held out). */
function designLeakage(
  file: FrontierFile,
  table: FrontierTable,
  used: Dataset,
): NonNullable<FrontierBaseline["designLeakage"]> {
  const outcome = file.outcomes.find((o) => (file.levels[o.name]?.length ?? 0) > 2)?.name ??
    file.outcomes[0].name;
  const columns = datasetColumns(used);
  const text = (name: string): Predictor => ({
    kind: "text",
    values: outputCells(columns.get(name)!),
  });
  const weight: Predictor = {
    kind: "numeric",
    values: outputCells(columns.get(table.weight)!).map(Number),
    bins: 20,
  };
  const publicColumns = file.public.map(text);
  const target = outputCells(columns.get(outcome)!);
  const accuracy = (predictors: Predictor[]) => heldOutAccuracy(target, predictors, { seed: 1 });
  return {
    outcome,
    publicOnly: accuracy(publicColumns),
    withWeight: accuracy([...publicColumns, weight]),
    withDesign: accuracy([...publicColumns, weight, text(table.strata), text(table.psu)]),
  };
}

/** The survey table of a file's records. */
function fileTable(data: Dataset, file: FrontierFile, table: FrontierTable): SurveyTable {
  return surveyTable(tableInput(data, {
    y: table.y,
    weight: table.weight,
    strata: table.strata,
    by: [...table.by],
    levels: Object.fromEntries(table.by.map((name) => [name, [...file.levels[name]]])),
  }));
}

/** Mean |a_r − b_r| in points over the cells where both are finite. */
function meanAbsError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  let count = 0;
  for (let r = 0; r < a.length; r++) {
    if (Number.isFinite(a[r]) && Number.isFinite(b[r])) (sum += Math.abs(a[r] - b[r]), count++);
  }
  return 100 * sum / count;
}

/** The measures of {@linkcode ArmMetrics} that a utility report gives. */
function reportMetrics(
  utility: UtilityReport,
  baseline: FrontierBaseline,
): Omit<ArmMetrics, "tableCoverage" | "tableError"> {
  const marginTvd: Record<string, number> = {};
  const bias: Record<string, number> = {};
  const tvds: number[] = [];
  for (const variable of utility.variables) {
    const reference = baseline.values[variable.name];
    if (variable.kind === "categorical") {
      marginTvd[variable.name] = variable.tvd.mean;
      tvds.push(variable.tvd.mean);
      if (reference !== undefined && variable.levels.length === 2) {
        bias[variable.name] = 100 * variable.synthetic.proportions[1] - reference;
      }
    } else if (reference !== undefined) {
      bias[variable.name] = (variable.mean.synthetic.mean - reference) / reference;
    }
  }
  for (const table of utility.twoWay) tvds.push(table.tvd.mean);
  const model = utility.models[0];
  const overlaps = model === undefined || "error" in model
    ? []
    : model.coefficients.flatMap((c) => c.overlap === null ? [] : [c.overlap]);
  const { propensity } = utility;
  return {
    marginTvd,
    meanTvd: tvds.length === 0 ? null : tvds.reduce((s, t) => s + t, 0) / tvds.length,
    maxTwoWayTvd: utility.twoWay.length === 0
      ? null
      : Math.max(...utility.twoWay.map((t) => t.tvd.mean)),
    pMSE: Number.isFinite(propensity.mean.pMSE) ? propensity.mean.pMSE : null,
    sPMSE: Number.isFinite(propensity.mean.ratio) ? propensity.mean.ratio : null,
    separated: propensity.byDataset.some((d) => d.separated),
    bias,
    ciOverlap: overlaps.length === 0 ? null : overlaps.reduce((s, o) => s + o, 0) / overlaps.length,
  };
}

/** A synthesis arm's result. */
function synthesisArm(
  plan: ArmPlan,
  synthesis: SynthesisResult,
  used: Dataset,
  baseline: FrontierBaseline,
  confidentialTable: SurveyTable | null,
): FrontierArm {
  const { report, diagnostics } = synthesis;
  const { file } = plan;
  let tableCoverage: number | null = null;
  let tableError: number | null = null;
  const covers = plan.mechanism !== "histogram" || file.histogram.outcome.name === file.table?.y;
  if (file.table !== undefined && confidentialTable !== null && covers) {
    const combined = combineTables(
      synthesis.datasets.map((dataset) =>
        fileTable(
          syntheticRows(
            dataset,
            used,
            file.public,
            [file.table!.weight, file.table!.strata],
            `${armKey(plan)} synthetic dataset`,
          ),
          file,
          file.table!,
        )
      ),
    );
    const q = confidentialTable.mean;
    let covered = 0;
    let cellsCounted = 0;
    for (let r = 0; r < q.length; r++) {
      if (!Number.isFinite(combined.meanLower[r])) continue;
      cellsCounted++;
      if (combined.meanLower[r] <= q[r] && q[r] <= combined.meanUpper[r]) covered++;
    }
    tableCoverage = cellsCounted === 0 ? null : covered / cellsCounted;
    tableError = meanAbsError(combined.mean, q);
  }
  const fit = diagnostics.fit;
  return {
    file: file.key,
    mechanism: plan.mechanism,
    epsilon: plan.epsilon,
    m: plan.m,
    release: {
      epsilon: report.epsilon,
      guarantee: report.guarantee,
      lipschitz: report.lipschitz,
      n: report.n,
    },
    fits: diagnostics.refits.length,
    finalFit: finalFitOf(fit),
    metrics: { ...reportMetrics(synthesis.utility!, baseline), tableCoverage, tableError },
  };
}

/** The tabular Laplace baseline's arm: the bounded mode's table against the confidential one. */
function laplaceArm(
  plan: ArmPlan,
  used: Dataset,
  confidentialTable: SurveyTable,
  settings: FrontierSettings,
): FrontierArm {
  const table = plan.file.table!;
  const rng = new Rng(settings.seed).split(Math.round(plan.epsilon * 1000));
  const noisy = laplaceTable(
    tableInput(used, {
      y: table.y,
      weight: table.weight,
      strata: table.strata,
      by: [...table.by],
      levels: Object.fromEntries(table.by.map((name) => [name, [...plan.file.levels[name]]])),
    }),
    {
      epsilon: plan.epsilon,
      rng,
      release: seededRelease(rng.split(1)),
      bounds: { y: [0, 1], weight: table.weightBounds },
    },
  );
  return {
    file: plan.file.key,
    mechanism: "laplace-table",
    epsilon: plan.epsilon,
    m: plan.m,
    release: { epsilon: plan.epsilon, guarantee: "DP", lipschitz: null, n: used.n },
    fits: 0,
    finalFit: null,
    metrics: {
      marginTvd: {},
      meanTvd: null,
      maxTwoWayTvd: null,
      pMSE: null,
      sPMSE: null,
      separated: null,
      bias: {},
      ciOverlap: null,
      tableCoverage: null,
      tableError: meanAbsError(noisy.mean, confidentialTable.mean),
    },
  };
}

/** Told when an arm starts and how its fits progress. */
export type FrontierProgress = (arm: string, stage: string, done: number, total: number) => void;

/** A finished arm as a cache keeps it. */
export interface CachedFrontierArm {
  /** The settings it was computed under (JSON of {@linkcode FrontierSettings} less the plan). */
  readonly settings: string;
  readonly arm: FrontierArm | FrontierFailure;
  readonly seconds: number;
}

/** Where finished arms are kept, so that an interrupted run resumes. */
export interface FrontierCache {
  get(key: string): Promise<CachedFrontierArm | undefined>;
  set(key: string, value: CachedFrontierArm): Promise<void>;
}

/** Options of {@linkcode runFrontier}. */
export interface RunFrontierOptions {
  readonly onProgress?: FrontierProgress;
  readonly cache?: FrontierCache;
  /** Read a file (default: `readCsv` of its path). */
  readonly read?: (path: string) => Promise<Dataset>;
  /** Run only the arms whose key this accepts (the others must be in the cache or are left out). */
  readonly only?: (key: string) => boolean;
}

/** What an arm's result depends on besides its plan: the sampler, the seed and the file. */
export function armSettings(plan: ArmPlan, settings: FrontierSettings): string {
  const { draws, chains, warmup, seed } = settings;
  // The PSU column serves the baseline's leakage check only: no arm depends on it.
  const { table } = plan.file;
  const file = table === undefined ? plan.file : {
    ...plan.file,
    table: Object.fromEntries(Object.entries(table).filter(([k]) => k !== "psu")),
  };
  return JSON.stringify({ file, draws, chains, warmup, seed });
}

/**
 * Runs the frontier: every arm of {@linkcode frontierPlan}, one synthesis each.
 *
 * @param settings The run's settings.
 * @param options Progress, a cache of finished arms, and which arms to run.
 * @returns The JSON result and each arm's wall time (as first computed, for a cached arm).
 */
export async function runFrontier(
  settings: FrontierSettings = FRONTIER_SETTINGS,
  options: RunFrontierOptions = {},
): Promise<{ result: FrontierResult; seconds: Record<string, number> }> {
  const onProgress = options.onProgress ?? (() => {});
  const read = options.read ?? ((path: string) => readCsv(path));
  const baselines: FrontierBaseline[] = [];
  const arms: (FrontierArm | FrontierFailure)[] = [];
  const seconds: Record<string, number> = {};
  const plans = frontierPlan(settings);
  for (const file of settings.files) {
    const raw = await read(file.data);
    const { data: used, dropped } = usedRecords(file, raw);
    const baseline: FrontierBaseline = {
      file: file.key,
      n: used.n,
      dropped,
      values: baselineValues(file, used),
      ...(file.table === undefined ? {} : { designLeakage: designLeakage(file, file.table, used) }),
    };
    baselines.push(baseline);
    const confidentialTable = file.table === undefined ? null : fileTable(used, file, file.table);
    for (const plan of plans.filter((p) => p.file === file)) {
      const key = armKey(plan);
      const same = armSettings(plan, settings);
      const cached = await options.cache?.get(key);
      if (cached !== undefined && cached.settings === same) {
        onProgress(key, "cached", 1, 1);
        arms.push(cached.arm);
        seconds[key] = cached.seconds;
        continue;
      }
      if (options.only !== undefined && !options.only(key)) continue;
      const started = performance.now();
      onProgress(key, "start", 0, 1);
      let arm: FrontierArm | FrontierFailure;
      if (plan.mechanism === "laplace-table") {
        arm = laplaceArm(plan, used, confidentialTable!, settings);
      } else {
        try {
          const synthesis = await synthesize(everyKth(raw, file.every), armSpec(plan, settings), {
            onProgress: (stage, done, total) => onProgress(key, stage, done, total),
            order: "aligned",
          });
          arm = synthesisArm(plan, synthesis, used, baseline, confidentialTable);
        } catch (error) {
          if (!(error instanceof CalibrationError)) throw error;
          arm = {
            file: file.key,
            mechanism: plan.mechanism,
            epsilon: plan.epsilon,
            m: plan.m,
            error: error.message,
          };
        }
      }
      arms.push(arm);
      seconds[key] = (performance.now() - started) / 1000;
      await options.cache?.set(key, { settings: same, arm, seconds: seconds[key] });
    }
  }
  return {
    result: { study: "frontier", settings, planned: plans.length, baselines, arms },
    seconds,
  };
}
