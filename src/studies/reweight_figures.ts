/**
 * The vector-weighted paper's Figures 1–2 from the re-weighting study's first database (issue 25):
 * the distributions of the record-level bounds Δ_{α,x_i} of the unweighted, LW, CW and SW
 * synthesizers (Figure 1; SW beside the paper's), and each record's bound against its weight for
 * LW and CW with the overall Δ_{α,x} dashed (Figure 2, "weight efficiency").
 *
 * @module
 */
import { distributionSeries, type Figure, type Series } from "../report/figure.ts";
import { FIGURE_MECHANISMS, type FigureMechanism, type ReweightRecord } from "./reweight_result.ts";
import { REWEIGHT_LABELS as LABELS } from "./reweight_settings.ts";

/** Each figure synthesizer's colour (Okabe–Ito). */
const COLORS: Readonly<Record<FigureMechanism, string>> = {
  unweighted: "#000000",
  lw: "#D55E00",
  cw: "#0072B2",
  sw: "#009E73",
};

/** Figure 1: the share of records with Δ_{α,x_i} ≤ x, one line per synthesizer. */
export function recordBoundsFigure(first: ReweightRecord | undefined): Figure {
  const levels = first?.recordLevel ?? {};
  const shown = FIGURE_MECHANISMS.filter((m) => levels[m] !== undefined);
  const series: Series[] = shown.map((m) => ({
    label: LABELS[m],
    color: COLORS[m],
    marks: false,
    points: levels[m]!.quantiles.map((x, p) => [x, p / 100] as const),
  }));
  return {
    title: "Record-level Lipschitz bounds on the first database (vector-weighted paper, Figure 1)",
    panels: [{
      title: "Record-level bounds, database 1",
      xLabel: "Δ_{α,x_i}",
      yLabel: "share of records at or below",
      series,
    }],
    legend: shown.map((m) => [LABELS[m], COLORS[m]] as const),
  };
}

/** Figure 2: Δ_{α,x_i} against α_i for LW and CW, the overall bound dashed. */
export function weightEfficiencyFigure(first: ReweightRecord | undefined): Figure {
  const levels = first?.recordLevel ?? {};
  const panel = (m: "lw" | "cw") => {
    const level = levels[m];
    const top = level === undefined ? NaN : level.quantiles[level.quantiles.length - 1];
    return {
      title: LABELS[m],
      xLabel: "weight α_i",
      yLabel: "Δ_{α,x_i}",
      series: level === undefined ? [] : [
        { label: LABELS[m], color: COLORS[m], line: false, points: level.pairs },
        {
          label: "overall Δ_{α,x}",
          color: "#CC0000",
          dashed: true,
          marks: false,
          points: [[0, top], [1, top]] as const,
        },
      ],
    };
  };
  return {
    title: "Record-level bounds against weights, LW and CW (vector-weighted paper, Figure 2)",
    panels: [panel("lw"), panel("cw")],
    legend: [[LABELS.lw, COLORS.lw], [LABELS.cw, COLORS.cw], ["overall Δ_{α,x}", "#CC0000"]],
    caption: "every fifth record of database 1; dashed: the overall bound Δ_{α,x}",
  };
}

/** The synthesizers of the supplement's Figure 14, beside the confidential data. */
const ESTIMAND_SERIES = [
  ["data", "Data", "#000000"],
  ["unweighted", "Unweighted", "#999999"],
  ["lw", "LW", "#D55E00"],
  ["lw-final", "LW_final", "#0072B2"],
] as const;

/**
 * The supplement's Figure 14 (Supp 5; violins there): each statistic of the confidential data
 * and of each synthesizer's synthetic data (averaged over its datasets), as its distribution over
 * the databases.
 */
export function estimandsFigure(records: readonly ReweightRecord[]): Figure {
  const panel = (stat: "mean" | "median" | "q15" | "q90", title: string) => ({
    title,
    xLabel: "value",
    yLabel: "share of databases at or below",
    series: ESTIMAND_SERIES.map(([key, label, color]) =>
      distributionSeries(
        label,
        color,
        records.map((r) => key === "data" ? r.data[stat] : r.mechanisms[key]?.synthetic[stat]),
      )
    ),
  });
  return {
    title:
      "Estimands of the confidential and synthetic data over the databases (Supp 5, Figure 14)",
    panels: [
      panel("mean", "Mean"),
      panel("median", "Median"),
      panel("q15", "15th quantile"),
      panel("q90", "90th quantile"),
    ],
    legend: ESTIMAND_SERIES.map(([, label, color]) => [label, color] as const),
    caption: "each synthesizer's statistic averaged over its synthetic datasets, one per database",
  };
}
