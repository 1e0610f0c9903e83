/**
 * The survey study's report as data (Study 4; survey paper §4.1–4.4, Appendix F): the verdicts
 * (`survey_verdicts.ts`), the tables (`survey_tables.ts`) and the values and data-decided
 * sentences that fill `SURVEY_TEMPLATE` (`survey_template.ts`).
 *
 * @module
 */
import { fmt, samplerParagraph } from "./markdown.ts";
import type { StudyDocument, Table } from "./study_document.ts";
import type { StudyResult } from "./study.ts";
import type { SurveySummary } from "./survey_aggregate.ts";
import type { SurveyRecord } from "./survey_record.ts";
import { SURVEY_SETTINGS, SURVEY_SYNTHESIZERS, type SurveySettings } from "./survey_settings.ts";
import {
  calibrationTable,
  coverageTable,
  epsilon,
  LABELS,
  paperTable,
  ratioTables,
} from "./survey_tables.ts";
import { centringOf, intervalScale } from "./survey_centring.ts";
import {
  logWeightSpread,
  surveyBoundsFigure,
  synthesizedWeightsFigure,
  weightSmoothingFigure,
} from "./survey_figures.ts";
import { SURVEY_PROSE } from "./survey_template.ts";
import { surveyVerdicts } from "./survey_verdicts.ts";

type SurveyResult = StudyResult<SurveySettings, SurveyRecord, SurveySummary>;

/** The settings that differ from {@linkcode SURVEY_SETTINGS}, as a bullet ("" when none). */
function reducedSettings(settings: SurveySettings): string {
  const keys = (Object.keys(SURVEY_SETTINGS) as (keyof SurveySettings)[]).filter((key) =>
    JSON.stringify(settings[key]) !== JSON.stringify(SURVEY_SETTINGS[key])
  );
  if (keys.length === 0) return "";
  const show = (value: unknown) => JSON.stringify(value).replaceAll('"', "");
  return SURVEY_PROSE.reducedSettings(
    keys.map((key) => `${key} = ${show(settings[key])} (default ${show(SURVEY_SETTINGS[key])})`)
      .join(", "),
  );
}

/** The samples on which a synthesizer missed its Δ*, as a paragraph ("" when none). */
function targetNotReached(result: SurveyResult): string {
  const { summary, replicates } = result;
  const missed = summary.arms.flatMap((arm) =>
    SURVEY_SYNTHESIZERS.filter((method) => arm.fits[method].missedTarget > 0).map((method) =>
      `${LABELS[method]} missed Δ* = ${arm.target} on ${arm.fits[method].missedTarget} of ` +
      `${replicates} samples (Δ up to ${fmt(arm.fits[method].lipschitz.max, 3)})`
    )
  );
  return missed.length === 0 ? "" : SURVEY_PROSE.targetNotReached(missed.join("; "));
}

/**
 * What the count intervals' misses come from, measured over the samples (Differences): each
 * method's interval length against its estimates' spread, and what centring does.
 */
function countCauses(result: SurveyResult): string {
  const { settings, summary, replicates } = result;
  const key = `m${settings.coverageM}`;
  const cells = summary.arms[0].coverage;
  const [fbs, fbp] = [
    centringOf(cells.fbs[key], "count", replicates),
    centringOf(cells.fbp[key], "count", replicates),
  ];
  const [fbsScale, fbpScale] = [
    intervalScale(cells.fbs[key], "count"),
    intervalScale(cells.fbp[key], "count"),
  ];
  if (fbs === null || fbp === null || fbsScale === null || fbpScale === null) {
    return "These results carry no per-cell errors, so the causes were not measured.";
  }
  return `Measured over our samples (m = ${settings.coverageM}, Δ* = ${summary.arms[0].target}): ` +
    `FBP's count intervals are ${fmt(fbpScale, 2)}× as wide as its estimates' spread across ` +
    `samples calls for (implied SE over spread), and ${fbp.off} of ${fbp.cells} cells' mean ` +
    `estimates lie more than 2 SE from the population value; the coverage predicted from each ` +
    `cell's bias, spread and mean half-length is ${fmt(fbp.withBias, 3)}, and ` +
    `${fmt(fbp.withoutBias, 3)} without the biases. So FBP's count misses are centring (the ` +
    `κ_y-only weights), not short intervals. Intervals 1.38× FBS's, as the paper's, would be ` +
    `wider than FBP's own sampling variation calls for, which is how the paper reads its own: ` +
    `"FBP overcovers and produces overly long intervals" (Appendix F); it does not say what ` +
    `widens them. ` +
    `FBS's are ${fmt(fbsScale, 2)}× its spread, with ${fbs.off} of ${fbs.cells} cells more ` +
    `than 2 SE off and a predicted coverage of ${fmt(fbs.withBias, 3)} (${
      fmt(fbs.withoutBias, 3)
    } ` +
    "without the biases): its shortfall is interval length more than centring.";
}

/** The standard deviation of log w in Figures 8–9's panels, in words. */
function weightSpread(first: SurveyRecord): string {
  const figures = first.figures;
  if (figures?.synthesized === undefined) return "not recorded in these results";
  const sd = (pairs: readonly (readonly [number, number])[]) => fmt(logWeightSpread(pairs), 2);
  return `sample ${sd(figures.pairs.sample)}; ` +
    SURVEY_SYNTHESIZERS.map((method) =>
      `${LABELS[method]} synthesised ${sd(figures.synthesized![method])}, smoothed ${
        sd(figures.pairs[method])
      }`
    ).join("; ");
}

/**
 * The survey study's document: its verdicts, tables and values, arm a's under `a<a>.` (the
 * template places the arms of {@linkcode SURVEY_SETTINGS}).
 *
 * @param result The study result (its document, if any, is ignored).
 * @returns The document `SURVEY_TEMPLATE` renders.
 */
export function surveyDocument(result: SurveyResult): StudyDocument {
  const { settings, summary, replicates, records } = result;
  const first = records[0].arms[0].fits;
  const values: Record<string, string> = {
    populationSize: `${settings.populationSize}`,
    replicates: `${replicates}`,
    n: `${settings.n}`,
    targets: settings.lipschitz.join(", "),
    ms: settings.ms.join(", "),
    mMax: `${settings.ms[settings.ms.length - 1]}`,
    laplaceReplicates: `${settings.laplaceReplicates}`,
    seed: `${result.seed}`,
    targetNotReached: targetNotReached(result),
    "r0.fbs.delta": fmt(first.fbs.lipschitz, 3),
    "r0.fbs.fit": first.fbs.finalFit,
    "r0.fbp.delta": fmt(first.fbp.lipschitz, 3),
    "r0.fbp.fit": first.fbp.finalFit,
    coverageM: `${settings.coverageM}`,
    coverageEpsilon: epsilon(summary.arms[0].target, settings.coverageM),
    fewReplicates: replicates < 100
      ? SURVEY_PROSE.fewReplicates(replicates, fmt(Math.sqrt(0.25 / replicates), 2))
      : "",
    reducedSettings: reducedSettings(settings),
    sampler: samplerParagraph(settings.sampler, summary.fitStats, {
      note: false,
      likelihood: "on a likelihood parameter.",
    }),
  };
  const tables: Record<string, Table> = {
    calibration: calibrationTable(result),
    table4: paperTable(result, "count"),
    table5: paperTable(result, "mean"),
  };
  values.weightSpread = weightSpread(records[0]);
  values.countCauses = countCauses(result);
  summary.arms.forEach((arm, a) => {
    values[`a${a}.target`] = `${arm.target}`;
    const ratios = ratioTables(settings.ms, arm);
    tables[`a${a}.ratios.count`] = ratios.count;
    tables[`a${a}.ratios.mean`] = ratios.mean;
    tables[`a${a}.ratios.pooled`] = ratios.pooled;
    tables[`a${a}.coverage`] = coverageTable(result, a);
  });
  const figures = {
    bounds: surveyBoundsFigure(records[0], settings.lipschitz[0]),
    smoothing: weightSmoothingFigure(records[0]),
    fbsWeights: synthesizedWeightsFigure(records[0], "fbs"),
    fbpWeights: synthesizedWeightsFigure(records[0], "fbp"),
  };
  return { verdicts: surveyVerdicts(result), values, tables, figures };
}
