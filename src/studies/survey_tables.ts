/**
 * The tables of the survey study's report (Study 4): the calibrations, the RMSE ratios of
 * Figures 5–7, coverage and CV per m and arm, and the paper's Tables 4–5 (Appendix F) cell by
 * cell; with the cell means over replicates the verdicts share.
 *
 * @module
 */
import { MARGIN_LABEL } from "../survey/tables.ts";
import { fmt, medianRange, quantileCells } from "./markdown.ts";
import type { Table } from "./study_document.ts";
import type { StudyResult } from "./study.ts";
import type { ArmSummary, SurveySummary } from "./survey_aggregate.ts";
import { PAPER_TABLES_4_5, paperTableRows } from "./survey_paper.ts";
import type { SurveyRecord } from "./survey_record.ts";
import {
  type Method,
  type Quantity,
  SURVEY_METHODS,
  SURVEY_SYNTHESIZERS,
  type SurveySettings,
} from "./survey_settings.ts";

type SurveyResult = StudyResult<SurveySettings, SurveyRecord, SurveySummary>;

/** The methods' names in the report. */
export const LABELS: Record<Method | "sample", string> = {
  sample: "Sample",
  fbs: "FBS",
  fbp: "FBP",
  laplace: "Laplace",
};

/** ε = 2·Δ*·m, with one decimal. */
export function epsilon(target: number, m: number): string {
  return fmt(2 * target * m, 1);
}

/** Mean over the 24 cells of Tables 4–5 of per-cell values. */
export function cellMean(values: readonly number[]): number {
  const rows = paperTableRows();
  return rows.reduce((s, c) => s + values[c], 0) / rows.length;
}

/**
 * The mean over replicates of a per-replicate mean over the 24 paper cells, with its Monte Carlo
 * standard error from the spread of the per-replicate means (so the cells' correlation is
 * accounted for; NaN for one replicate).
 */
export function coverageByReplicate(
  records: readonly SurveyRecord[],
  pick: (r: SurveyRecord) => readonly number[],
): { mean: number; se: number } {
  const values = records.map((r) => cellMean(pick(r)));
  const n = values.length;
  const mean = values.reduce((s, v) => s + v, 0) / n;
  if (n < 2) return { mean, se: NaN };
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1);
  return { mean, se: Math.sqrt(variance / n) };
}

/** Mean over the 24 cells of FBP's mean CI length over FBS's. */
export function lengthRatio(arm: ArmSummary, key: string, kind: Quantity): number {
  const fbp = arm.coverage.fbp[key].length[kind];
  const fbs = arm.coverage.fbs[key].length[kind];
  const ratios = paperTableRows().map((c) => fbp[c] / fbs[c]).filter(Number.isFinite);
  return ratios.reduce((s, r) => s + r, 0) / ratios.length;
}

function cellLabel(labels: SurveySummary["labels"], c: number): string {
  const [f, g] = [labels[0][c], labels[1][c]];
  if (f === MARGIN_LABEL) return g === MARGIN_LABEL ? "All fields" : `All fields, ${g}`;
  return g === MARGIN_LABEL ? `${f} total` : `${f}, ${g}`;
}

/** The calibrations: Δ and the unweighted Δ_x per arm and synthesizer (§4.2). */
export function calibrationTable(result: SurveyResult): Table {
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
          fmt(2 * f.lipschitz.max * settings.coverageM, 2),
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
      return [LABELS[method], `${m} (ε = ${epsilon(arm.target, m)})`, ...quantileCells(s, 2)];
    })
  );
}

/** An arm's RMSE ratios (Figures 5–7): replicate 0's counts and means, and both pooled. */
export function ratioTables(
  ms: readonly number[],
  arm: ArmSummary,
): { count: Table; mean: Table; pooled: Table } {
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
export function coverageTable(result: SurveyResult, a: number): Table {
  const { settings, summary, records } = result;
  const arm = summary.arms[a];
  const rows = SURVEY_METHODS.flatMap((method) =>
    settings.ms.map((m) => {
      const cov = (kind: Quantity) =>
        coverageByReplicate(records, (r) => r.arms[a].coverage[method][`m${m}`].covered[kind]);
      const cv = (kind: Quantity) => cellMean(arm.coverage[method][`m${m}`].cv[kind]);
      return [
        LABELS[method],
        `${m} (ε = ${epsilon(arm.target, m)})`,
        fmt(cov("count").mean, 3),
        fmt(cv("count"), 3),
        fmt(cov("mean").mean, 3),
        fmt(cv("mean"), 3),
      ];
    })
  );
  const sample = [
    LABELS.sample,
    "—",
    fmt(coverageByReplicate(records, (r) => r.sample.covered.count).mean, 3),
    fmt(cellMean(summary.sample.cv.count), 3),
    fmt(coverageByReplicate(records, (r) => r.sample.covered.mean).mean, 3),
    fmt(cellMean(summary.sample.cv.mean), 3),
  ];
  return {
    header: ["method", "m", "count coverage", "count CV", "mean coverage", "mean CV"],
    rows: [...rows, sample],
  };
}

/** Table 4 (counts) or 5 (means) of the main arm at m = coverageM, ours beside the paper's. */
export function paperTable(result: SurveyResult, kind: Quantity): Table {
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
      fmt(summary.truth[kind][c], 0),
      fmt(paper[k][0], 0),
      fmt(cov("fbs").coverage[kind][c], 2),
      fmt(paper[k][1], 2),
      fmt(cov("fbs").length[kind][c], 0),
      fmt(paper[k][2], 0),
      fmt(cov("fbp").coverage[kind][c], 2),
      fmt(paper[k][3], 2),
      fmt(cov("fbp").length[kind][c], 0),
      fmt(paper[k][4], 0),
      fmt(summary.sample.coverage[kind][c], 2),
      fmt(cov("laplace").coverage[kind][c], 2),
      fmt(cov("fbs").cv[kind][c], 3),
      fmt(cov("fbp").cv[kind][c], 3),
    ]),
  };
}
