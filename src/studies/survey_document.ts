/**
 * The survey study's report as data (Study 4; survey paper §4.1–4.4, Appendix F): the verdicts
 * (`survey_verdicts.ts`); the tables (the calibrations, the RMSE ratios of Figures 5–7, coverage
 * and CV per m and arm, and the paper's Tables 4–5 cell by cell); the figures of the first
 * sample at the first Δ* (Figure 3's record-level bounds, Figure 4's weight smoothing, Figures 8–9
 * with synthesised and smoothed weights); and the values and data-decided sentences that fill
 * `templates/survey.md`.
 *
 * @module
 */
import { medianRange, quantileCells, samplerParagraph } from "./markdown.ts";
import type { Report, ReportTable, Value } from "./study_document.ts";
import { cat, joined, num, text } from "./study_document.ts";
import {
  type ArmSummary,
  cellMean,
  centringOf,
  coverageByReplicate,
  epsilon,
  intervalScale,
  LABELS,
  logWeightSpread,
  PAPER_TABLES_4_5,
  paperTableRows,
  type SurveyResult,
  type SurveySummary,
} from "./survey_aggregate.ts";
import {
  type Method,
  type Quantity,
  SURVEY_METHODS,
  SURVEY_SETTINGS,
  SURVEY_SYNTHESIZERS,
  type SurveyRecord,
  type SurveySettings,
} from "./survey_settings.ts";
import { SURVEY_PROSE, surveyVerdicts } from "./survey_verdicts.ts";
import { MARGIN_LABEL } from "../survey/tables.ts";
import type { Figure, Panel } from "../report/figure.ts";

/** The settings that differ from {@linkcode SURVEY_SETTINGS}, as a bullet ("" when none). */
function reducedSettings(settings: SurveySettings): Value {
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
function targetNotReached(result: SurveyResult): Value {
  const { summary, replicates } = result;
  const missed = summary.arms.flatMap((arm) =>
    SURVEY_SYNTHESIZERS.filter((method) => arm.fits[method].missedTarget > 0).map((method) =>
      cat(
        `${LABELS[method]} missed Δ* = ${arm.target} on ${arm.fits[method].missedTarget} of `,
        text`${replicates} samples (Δ up to ${num.fixed(arm.fits[method].lipschitz.max, 3)})`,
      )
    )
  );
  return missed.length === 0 ? "" : SURVEY_PROSE.targetNotReached(joined(missed, "; "));
}

/**
 * What the count intervals' misses come from, measured over the samples (Differences): each
 * method's interval length against its estimates' spread, and what centring does.
 */
function countCauses(result: SurveyResult): Value {
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
  return cat(
    `Measured over our samples (m = ${settings.coverageM}, Δ* = ${summary.arms[0].target}): `,
    text`FBP's count intervals are ${
      num.fixed(fbpScale, 2)
    }× as wide as its estimates' spread across `,
    `samples calls for (implied SE over spread), and ${fbp.off} of ${fbp.cells} cells' mean `,
    `estimates lie more than 2 SE from the population value; the coverage predicted from each `,
    text`cell's bias, spread and mean half-length is ${num.fixed(fbp.withBias, 3)}, and `,
    text`${
      num.fixed(fbp.withoutBias, 3)
    } without the biases. So FBP's count misses are centring (the `,
    `κ_y-only weights), not short intervals. Intervals 1.38× FBS's, as the paper's, would be `,
    `wider than FBP's own sampling variation calls for, which is how the paper reads its own: `,
    `"FBP overcovers and produces overly long intervals" (Appendix F); it does not say what `,
    `widens them. `,
    text`FBS's are ${
      num.fixed(fbsScale, 2)
    }× its spread, with ${fbs.off} of ${fbs.cells} cells more `,
    text`than 2 SE off and a predicted coverage of ${num.fixed(fbs.withBias, 3)} (${
      num.fixed(fbs.withoutBias, 3)
    } `,
    "without the biases): its shortfall is interval length more than centring.",
  );
}

/** The standard deviation of log w in Figures 8–9's panels, in words. */
function weightSpread(first: SurveyRecord): Value {
  const figures = first.figures;
  if (figures?.synthesized === undefined) return "not recorded in these results";
  const sd = (pairs: readonly (readonly [number, number])[]) =>
    num.fixed(logWeightSpread(pairs), 2);
  return cat(
    text`sample ${sd(figures.pairs.sample)}; `,
    joined(
      SURVEY_SYNTHESIZERS.map((method) =>
        text`${LABELS[method]} synthesised ${sd(figures.synthesized![method])}, smoothed ${
          sd(figures.pairs[method])
        }`
      ),
      "; ",
    ),
  );
}

/**
 * The survey study's document: its verdicts, tables and values, arm a's under `a<a>.` (the
 * template places the arms of {@linkcode SURVEY_SETTINGS}).
 *
 * @param result The study result (its document, if any, is ignored).
 * @returns The document `SURVEY_TEMPLATE` renders.
 */
export function surveyDocument(result: SurveyResult): Report {
  const { settings, summary, replicates, records } = result;
  const first = records[0].arms[0].fits;
  const values: Record<string, Value> = {
    populationSize: `${settings.populationSize}`,
    replicates: `${replicates}`,
    n: `${settings.n}`,
    targets: settings.lipschitz.join(", "),
    ms: settings.ms.join(", "),
    mMax: `${settings.ms[settings.ms.length - 1]}`,
    laplaceReplicates: `${settings.laplaceReplicates}`,
    seed: `${result.seed}`,
    targetNotReached: targetNotReached(result),
    "r0.fbs.delta": num.fixed(first.fbs.lipschitz, 3),
    "r0.fbs.fit": first.fbs.finalFit,
    "r0.fbp.delta": num.fixed(first.fbp.lipschitz, 3),
    "r0.fbp.fit": first.fbp.finalFit,
    coverageM: `${settings.coverageM}`,
    coverageEpsilon: epsilon(summary.arms[0].target, settings.coverageM),
    fewReplicates: replicates < 100
      ? SURVEY_PROSE.fewReplicates(replicates, num.fixed(Math.sqrt(0.25 / replicates), 2))
      : "",
    reducedSettings: reducedSettings(settings),
    sampler: samplerParagraph(settings.sampler, summary.fitStats, {
      note: false,
      likelihood: "on a likelihood parameter.",
    }),
  };
  const tables: Record<string, ReportTable> = {
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

function cellLabel(labels: SurveySummary["labels"], c: number): string {
  const [f, g] = [labels[0][c], labels[1][c]];
  if (f === MARGIN_LABEL) return g === MARGIN_LABEL ? "All fields" : `All fields, ${g}`;
  return g === MARGIN_LABEL ? `${f} total` : `${f}, ${g}`;
}

/** The calibrations: Δ and the unweighted Δ_x per arm and synthesizer (§4.2). */
export function calibrationTable(result: SurveyResult): ReportTable {
  const { settings, summary, replicates } = result;
  return {
    header: [
      "Δ*",
      "synthesizer",
      "Δ_{α,x}: median [min, max]",
      `largest ε at m = ${settings.coverageM}`,
      "unweighted Δ_x: median [min, max]",
      "missed Δ*",
    ],
    rows: summary.arms.flatMap((arm) =>
      SURVEY_SYNTHESIZERS.map((method) => {
        const f = arm.fits[method];
        return [
          `${arm.target}`,
          LABELS[method],
          medianRange(f.lipschitz, 3),
          num.fixed(2 * f.lipschitz.max * settings.coverageM, 2),
          medianRange(f.unweightedLipschitz, 2),
          `${f.missedTarget} of ${replicates}`,
        ];
      })
    ),
  };
}

const RATIO_HEADER = ["method", "m", "min", "q25", "median", "q75", "max"];

function ratioRows(ms: readonly number[], arm: ArmSummary, pooled: boolean, kind: Quantity) {
  return SURVEY_METHODS.flatMap((method) =>
    ms.map((m) => {
      const s = (pooled ? arm.ratiosPooled : arm.ratios)[method][`m${m}`][kind];
      return [LABELS[method], text`${m} (ε = ${epsilon(arm.target, m)})`, ...quantileCells(s, 2)];
    })
  );
}

/** An arm's RMSE ratios (Figures 5–7): replicate 0's counts and means, and both pooled. */
export function ratioTables(
  ms: readonly number[],
  arm: ArmSummary,
): { count: ReportTable; mean: ReportTable; pooled: ReportTable } {
  return {
    count: { header: RATIO_HEADER, rows: ratioRows(ms, arm, false, "count") },
    mean: { header: RATIO_HEADER, rows: ratioRows(ms, arm, false, "mean") },
    pooled: {
      header: ["quantity", ...RATIO_HEADER],
      rows: [
        ...ratioRows(ms, arm, true, "count").map((row) => ["counts", ...row]),
        ...ratioRows(ms, arm, true, "mean").map((row) => ["means", ...row]),
      ],
    },
  };
}

/** Arm a's mean coverage and CV over the 24 cells per method and m, then the sample's. */
export function coverageTable(result: SurveyResult, a: number): ReportTable {
  const { settings, summary, records } = result;
  const arm = summary.arms[a];
  const rows = SURVEY_METHODS.flatMap((method) =>
    settings.ms.map((m) => {
      const cov = (kind: Quantity) =>
        coverageByReplicate(records, (r) => r.arms[a].coverage[method][`m${m}`].covered[kind]);
      const cv = (kind: Quantity) => cellMean(arm.coverage[method][`m${m}`].cv[kind]);
      return [
        LABELS[method],
        text`${m} (ε = ${epsilon(arm.target, m)})`,
        num.fixed(cov("count").mean, 3),
        num.fixed(cv("count"), 3),
        num.fixed(cov("mean").mean, 3),
        num.fixed(cv("mean"), 3),
      ];
    })
  );
  const sample = [
    LABELS.sample,
    "—",
    num.fixed(coverageByReplicate(records, (r) => r.sample.covered.count).mean, 3),
    num.fixed(cellMean(summary.sample.cv.count), 3),
    num.fixed(coverageByReplicate(records, (r) => r.sample.covered.mean).mean, 3),
    num.fixed(cellMean(summary.sample.cv.mean), 3),
  ];
  return {
    header: ["method", "m", "count coverage", "count CV", "mean coverage", "mean CV"],
    rows: [...rows, sample],
  };
}

/** Table 4 (counts) or 5 (means) of the main arm at m = coverageM, ours beside the paper's. */
export function paperTable(result: SurveyResult, kind: Quantity): ReportTable {
  const { settings, summary } = result;
  const paper = PAPER_TABLES_4_5[kind];
  const cov = (method: Method) => summary.arms[0].coverage[method][`m${settings.coverageM}`];
  return {
    header: [
      "cell",
      "Pop. (ours)",
      "Pop. (paper)",
      "FBS cov.",
      "(paper)",
      "FBS CI",
      "(paper)",
      "FBP cov.",
      "(paper)",
      "FBP CI",
      "(paper)",
      "Sample cov.",
      "Laplace cov.",
      "FBS CV",
      "FBP CV",
    ],
    rows: paperTableRows().map((c, k) => [
      cellLabel(summary.labels, c),
      num.fixed(summary.truth[kind][c], 0),
      num.fixed(paper[k][0], 0),
      num.fixed(cov("fbs").coverage[kind][c], 2),
      num.fixed(paper[k][1], 2),
      num.fixed(cov("fbs").length[kind][c], 0),
      num.fixed(paper[k][2], 0),
      num.fixed(cov("fbp").coverage[kind][c], 2),
      num.fixed(paper[k][3], 2),
      num.fixed(cov("fbp").length[kind][c], 0),
      num.fixed(paper[k][4], 0),
      num.fixed(summary.sample.coverage[kind][c], 2),
      num.fixed(cov("laplace").coverage[kind][c], 2),
      num.fixed(cov("fbs").cv[kind][c], 3),
      num.fixed(cov("fbp").cv[kind][c], 3),
    ]),
  };
}

const UNWEIGHTED = "#000000";
const COLORS = { sample: "#009E73", fbs: "#E69F00", fbp: "#0072B2" } as const;
const FIGURE_LABELS = { sample: "Sample", fbs: "FBS", fbp: "FBP" } as const;

/** Figure 3: the share of records with a bound at or below x, unweighted and released. */
export function surveyBoundsFigure(first: SurveyRecord | undefined, target: number): Figure {
  const bounds = first?.figures?.bounds;
  const panel = (method: "fbs" | "fbp"): Panel => ({
    title: FIGURE_LABELS[method],
    xLabel: "Δ_{α,(y_i,X_i,w_i)}",
    yLabel: "share of records at or below",
    series: bounds === undefined ? [] : [
      {
        label: "unweighted",
        color: UNWEIGHTED,
        marks: false,
        points: bounds[method].unweighted.map((x, p) => [x, p / 100] as const),
      },
      {
        label: `weighted (Δ* = ${target})`,
        color: COLORS[method],
        marks: false,
        points: bounds[method].weighted.map((x, p) => [x, p / 100] as const),
      },
    ],
  });
  return {
    title: "Record-level Lipschitz bounds, unweighted and weighted (survey paper, Figure 3)",
    panels: [panel("fbs"), panel("fbp")],
    legend: [["unweighted", UNWEIGHTED], ["FBS weighted", COLORS.fbs], [
      "FBP weighted",
      COLORS.fbp,
    ]],
    caption: `the first sample, weights calibrated to Δ* = ${target}`,
  };
}

/** Figure 4: salary against weight, confidential and synthetic. */
export function weightSmoothingFigure(first: SurveyRecord | undefined): Figure {
  const pairs = first?.figures?.pairs;
  const panel = (which: "sample" | "fbs" | "fbp"): Panel => ({
    title: FIGURE_LABELS[which],
    xLabel: "salary",
    yLabel: "weight",
    series: pairs === undefined
      ? []
      : [{ label: FIGURE_LABELS[which], color: COLORS[which], line: false, points: pairs[which] }],
  });
  return {
    title: "Salary and weight, confidential and synthetic (survey paper, Figure 4)",
    panels: [panel("sample"), panel("fbs"), panel("fbp")],
    legend: (["sample", "fbs", "fbp"] as const).map((w) => [FIGURE_LABELS[w], COLORS[w]] as const),
    caption: "every fourth record of the first sample and of each synthesizer's first dataset",
  };
}

/** Figures 8 (FBS) and 9 (FBP): salary against the sample's, synthesised and smoothed weights. */
export function synthesizedWeightsFigure(
  first: SurveyRecord | undefined,
  method: "fbs" | "fbp",
): Figure {
  const figures = first?.figures;
  const panel = (title: string, points: readonly (readonly [number, number])[] | undefined) => ({
    title,
    xLabel: "salary",
    yLabel: "weight",
    series: points === undefined ? [] : [{
      label: title,
      color: title === "Sample" ? COLORS.sample : COLORS[method],
      line: false,
      points,
    }],
  });
  return {
    title:
      `Salary and weight: sample, synthesised and smoothed weights, ${FIGURE_LABELS[method]} ` +
      `(survey paper, Figure ${method === "fbs" ? 8 : 9})`,
    panels: [
      panel("Sample", figures?.pairs.sample),
      panel(`${FIGURE_LABELS[method]} synthesised weights`, figures?.synthesized?.[method]),
      panel(`${FIGURE_LABELS[method]} smoothed weights`, figures?.pairs[method]),
    ],
    legend: [["Sample", COLORS.sample], [FIGURE_LABELS[method], COLORS[method]]],
    caption: "every fourth record of the first sample and of the synthesizer's first dataset " +
      "(the same synthetic salaries in the middle and right panels)",
  };
}
