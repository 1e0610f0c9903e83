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
 * The frontier as a study of the one command (`deno task study frontier`, alias `deno task
 * frontier`; `docs/studies/frontier.md`):
 *
 *     deno task study frontier [--out DIR] [--cache DIR] [--only KEY,…] [--partial] [--quick]
 *     deno task study frontier --render [--out DIR]
 *
 * Runs every arm of the plan (each mechanism at each ε and m on NHANES and CPS1988) and
 * writes DIR/frontier.json (a pure function of the settings), DIR/frontier.md, DIR/frontier.html
 * (the figures inline) and one SVG per file, all or none. Each finished arm is kept in the cache
 * folder (default out/frontier-cache), so an interrupted run resumes, and so are the arms of an
 * existing DIR/frontier.json (a partial run committed earlier, `--partial`); `--only` runs only
 * the arms whose key starts with one of the prefixes (e.g. `nhanes-` or `cps1988-sw-`) and writes
 * nothing unless every arm is then in the cache (`--partial` writes what there is, marked as
 * partial). `--quick` is a reduced run for tests (every 40th record, ε = 5, m = 1, short chains).
 * `--render` decides the report's document again from DIR/frontier.json and rewrites the JSON
 * (with the document), the markdown, HTML and figures.
 *
 * Files: the settings, plan and result shapes in `frontier_settings.ts`, the recommendation in
 * `frontier_evidence.ts`, the report as data (and its figure and files) in `frontier_document.ts`,
 * its prose in `templates/frontier.md` and `templates/frontier_file.md`.
 *
 * @module
 */
import { datasetColumns, readCsv } from "../data/csv.ts";
import type { Dataset } from "../data/dataset.ts";
import { dropMissing } from "../data/missing.ts";
import { CalibrationError } from "../mechanisms/calibrate.ts";
import { Rng } from "../random/rng.ts";
import { heldOutAccuracy, type Predictor } from "../stats/held_out.ts";
import { combineTables } from "../survey/combine.ts";
import { laplaceTable, seededRelease } from "../survey/laplace_baseline.ts";
import { type SurveyTable, surveyTable, tableInput } from "../survey/tables.ts";
import { SynthesisSpec } from "../synthesis/spec.ts";
import { type SynthesisResult, synthesize } from "../synthesis/synthesize.ts";
import type { UtilityReport } from "../synthesis/utility_report.ts";
import { everyKth } from "./real_file.ts";
import { finalFitOf } from "./final_fit.ts";
import { outputCells, syntheticRows } from "./synthetic_rows.ts";

export * from "./frontier_settings.ts";
import {
  armKey,
  type ArmMetrics,
  type ArmPlan,
  armSettings,
  FRONTIER_SETTINGS,
  type FrontierArm,
  type FrontierBaseline,
  type FrontierFailure,
  type FrontierFile,
  frontierFolderCache,
  frontierPlan,
  type FrontierResult,
  type FrontierSettings,
  type FrontierTable,
  QUICK_FRONTIER,
  type RunFrontierOptions,
  withEarlierArms,
} from "./frontier_settings.ts";
import { fixed } from "../report/format.ts";
import { frontierFiles } from "./frontier_document.ts";
import type { SingleRunStudy } from "./study.ts";
import { footerOf } from "./study_document.ts";
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

/** `deno task study frontier`. */
export const frontierStudy: SingleRunStudy = {
  name: "frontier",
  flags: { cache: "string", only: "string", quick: "boolean", partial: "boolean" },
  async render(out) {
    const result = JSON.parse(await Deno.readTextFile(`${out}/frontier.json`)) as FrontierResult;
    return frontierFiles(result, footerOf(await Deno.readTextFile(`${out}/frontier.md`)));
  },
  async run({ values, out, log }) {
    const settings = values.quick === true ? QUICK_FRONTIER : FRONTIER_SETTINGS;
    const only = values.only as string | undefined;
    const prefixes = only?.split(",").map((p) => p.trim()).filter((p) => p !== "");
    const earlier = await Deno.readTextFile(`${out}/frontier.json`).then(
      (text) => JSON.parse(text) as FrontierResult,
      () => null,
    );
    const folder = (values.cache as string | undefined) ?? "out/frontier-cache";
    const cache = withEarlierArms(frontierFolderCache(folder), earlier);
    const started = performance.now();
    const shown = new Map<string, string>();
    const { result, seconds } = await runFrontier(settings, {
      cache,
      only: prefixes === undefined ? undefined : (key) => prefixes.some((p) => key.startsWith(p)),
      onProgress: (arm, stage, done, total) => {
        const line = stage === "start" || stage === "cached"
          ? `[frontier] ${arm}${stage === "cached" ? " (cached)" : ""}`
          : `[frontier] ${arm}: ${stage} ${Math.floor((10 * done) / total) * 10}%`;
        if (shown.get(`${arm} ${stage}`) === line) return;
        shown.set(`${arm} ${stage}`, line);
        log(line);
      },
    });
    const planned = frontierPlan(settings).length;
    if (result.arms.length < planned && values.partial !== true) {
      return {
        files: null,
        message: `frontier: ${result.arms.length} of ${planned} arms done; nothing written`,
      };
    }
    const wall = (performance.now() - started) / 1000;
    const total = Object.values(seconds).reduce((s, v) => s + v, 0);
    const perFile = settings.files.map((f) => {
      const sum = frontierPlan(settings).filter((p) => p.file.key === f.key)
        .reduce((s, p) => s + (seconds[armKey(p)] ?? 0), 0);
      return `${f.label} ${fixed(sum / 60, 1)} min`;
    }).join(", ");
    const footer =
      `---\nCompute ${fixed(total / 60, 1)} min over ${planned} arms (${perFile}; this ` +
      `invocation ${
        fixed(wall / 60, 1)
      } min), on ${navigator.hardwareConcurrency} logical core(s), ` +
      `Deno ${Deno.version.deno} (machine-dependent; not part of the JSON).`;
    return {
      files: frontierFiles(result, footer),
      message: `frontier: wrote ${out}/frontier.json, .md, .html and figures`,
    };
  },
};
