/**
 * The survey paper's Figures 3–4 and 8–9 from the survey study's first sample at the first Δ*
 * (issue 25): the record-level bounds Δ_{α,(y_i,X_i,w_i)} of the unweighted and the released fit
 * for FBS and FBP (Figure 3), salary against weight in the confidential sample and in FBS's and
 * FBP's first synthetic dataset, whose smoothed weights vary far less (Figure 4, weight
 * smoothing), and per synthesizer the sample beside the same dataset with synthesised and with
 * smoothed weights (Figures 8–9).
 *
 * @module
 */
import type { Figure, Panel } from "../report/figure.ts";
import type { SurveyRecord } from "./survey_record.ts";

const UNWEIGHTED = "#000000";
const COLORS = { sample: "#009E73", fbs: "#E69F00", fbp: "#0072B2" } as const;
const LABELS = { sample: "Sample", fbs: "FBS", fbp: "FBP" } as const;

/** Figure 3: the share of records with a bound at or below x, unweighted and released. */
export function surveyBoundsFigure(first: SurveyRecord | undefined, target: number): Figure {
  const bounds = first?.figures?.bounds;
  const panel = (method: "fbs" | "fbp"): Panel => ({
    title: LABELS[method],
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
    title: LABELS[which],
    xLabel: "salary",
    yLabel: "weight",
    series: pairs === undefined
      ? []
      : [{ label: LABELS[which], color: COLORS[which], line: false, points: pairs[which] }],
  });
  return {
    title: "Salary and weight, confidential and synthetic (survey paper, Figure 4)",
    panels: [panel("sample"), panel("fbs"), panel("fbp")],
    legend: (["sample", "fbs", "fbp"] as const).map((w) => [LABELS[w], COLORS[w]] as const),
    caption: "every fourth record of the first sample and of each synthesizer's first dataset",
  };
}

/** The standard deviation of log w over (salary, weight) pairs (NaN for fewer than two). */
export function logWeightSpread(pairs: readonly (readonly [number, number])[]): number {
  const logs = pairs.map(([, w]) => Math.log(w));
  const mean = logs.reduce((s, v) => s + v, 0) / logs.length;
  return Math.sqrt(logs.reduce((s, v) => s + (v - mean) ** 2, 0) / (logs.length - 1));
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
    title: `Salary and weight: sample, synthesised and smoothed weights, ${LABELS[method]} ` +
      `(survey paper, Figure ${method === "fbs" ? 8 : 9})`,
    panels: [
      panel("Sample", figures?.pairs.sample),
      panel(`${LABELS[method]} synthesised weights`, figures?.synthesized?.[method]),
      panel(`${LABELS[method]} smoothed weights`, figures?.pairs[method]),
    ],
    legend: [["Sample", COLORS.sample], [LABELS[method], COLORS[method]]],
    caption: "every fourth record of the first sample and of the synthesizer's first dataset " +
      "(the same synthetic salaries in the middle and right panels)",
  };
}
