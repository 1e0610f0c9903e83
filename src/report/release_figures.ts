/**
 * The figures of a release's reports as specs (issue 36): report.html's (`synthesis/report_html.ts`:
 * a numeric variable's ECDFs, a categorical one's marginal, a coefficient's two intervals) and the
 * web page's (`web/report.js`, which loads this module as it is: the outcome's ECDFs, the
 * record-level bounds, bounds against weights, a survey table's cells). Both render them with
 * `svg.ts`. The builders take plain numbers, so the page builds the same specs from the data it
 * fetched.
 *
 * @module
 */
import { distributionSeries, type Figure, type Frame, type Series } from "./figure.ts";

/** The confidential data's colour. */
export const CONFIDENTIAL = "#222222";

/** The synthetic datasets' colours, in turn (d3's category10). */
const PALETTE = [
  "#1f77b4",
  "#ff7f0e",
  "#2ca02c",
  "#d62728",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#7f7f7f",
  "#bcbd22",
  "#17becf",
];

/** The colour of synthetic dataset l (0-based); dataset 0's stands for their mean. */
export function syntheticColour(l: number): string {
  return PALETTE[l % PALETTE.length];
}

/** A wide single panel: 560 × 280. */
const WIDE: Frame = { width: 560, height: 280, left: 56, right: 16, top: 12, bottom: 40 };

/** A distribution's line: a step ECDF of `values` with its SVG class. */
export function ecdfSeries(
  label: string,
  color: string,
  values: readonly number[],
  className: string,
): Series {
  return { ...distributionSeries(label, color, values, { step: true }), className };
}

/**
 * A variable's ECDFs on one panel (report.html: confidential and each synthetic dataset; the web
 * page: the outcome's, the confidential one only for the data's owner). The legend lists the
 * series in their order; the lines are drawn in reverse, so that the first lies on top.
 *
 * @param name The variable's name (the x axis).
 * @param series The distributions, first the one drawn on top.
 * @returns The figure.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ecdfFigure, ecdfSeries } from "./release_figures.ts";
 * const figure = ecdfFigure("y", [ecdfSeries("synthetic 1", "#1f77b4", [2, 1], "series")]);
 * assert.deepEqual(figure.panels[0].series[0], {
 *   label: "synthetic 1", color: "#1f77b4", step: true, marks: false, className: "series",
 *   points: [[1, 0.5], [2, 1]],
 * });
 * ```
 */
export function ecdfFigure(name: string, series: readonly Series[]): Figure {
  return {
    title: `ECDF of ${name}`,
    className: "plot ecdf",
    frame: WIDE,
    panels: [{
      title: "",
      xLabel: name,
      yLabel: "share at or below",
      series: [...series].reverse(),
    }],
    legend: series.map((s) => [s.label, s.color] as const),
  };
}

/**
 * A categorical variable's marginal (report.html): the confidential and the synthetic (mean over
 * the m datasets) share of each level as bars.
 *
 * @param name The variable's name.
 * @param levels Its levels.
 * @param confidential The confidential share of each level.
 * @param synthetic The synthetic share of each level (mean of m).
 * @param m The number of synthetic datasets.
 * @returns The figure.
 */
export function marginalFigure(
  name: string,
  levels: readonly string[],
  confidential: readonly number[],
  synthetic: readonly number[],
  m: number,
): Figure {
  const label = `synthetic (mean of ${m})`;
  return {
    title: `Proportions of ${name}`,
    className: "plot bars",
    frame: {
      width: 600,
      height: 48 + 30 * levels.length,
      left: 150,
      right: 16,
      top: 8,
      bottom: 40,
    },
    panels: [{
      title: "",
      xLabel: "share of records",
      yLabel: "",
      bands: levels,
      series: [
        {
          kind: "bars",
          label: "confidential",
          color: CONFIDENTIAL,
          className: "bar confidential",
          values: confidential,
        },
        {
          kind: "bars",
          label,
          color: syntheticColour(0),
          className: "bar synthetic",
          values: synthetic,
        },
      ],
    }],
    legend: [["confidential", CONFIDENTIAL], [label, syntheticColour(0)]],
  };
}

/** An interval and its estimate. */
export interface Interval {
  readonly lower: number;
  readonly estimate: number;
  readonly upper: number;
}

/**
 * A coefficient's confidential and synthetic intervals on their union's scale, without axes: a
 * chart inside a table cell (report.html), confidential above synthetic.
 *
 * @param confidential The confidential fit's interval.
 * @param synthetic The synthetic fits' combined interval.
 * @returns The figure.
 */
export function intervalsFigure(confidential: Interval, synthetic: Interval): Figure {
  const of = ({ lower, estimate, upper }: Interval) => [[lower, estimate, upper] as const];
  return {
    title: "confidential and synthetic intervals",
    className: "plot intervals",
    frame: { width: 180, height: 22, left: 6, right: 6, top: 0, bottom: 0 },
    panels: [{
      title: "",
      xLabel: "",
      yLabel: "",
      axes: false,
      bands: [""],
      series: [
        {
          kind: "intervals",
          label: "confidential",
          color: CONFIDENTIAL,
          className: "interval confidential",
          intervals: of(confidential),
        },
        {
          kind: "intervals",
          label: "synthetic",
          color: syntheticColour(0),
          className: "interval synthetic",
          intervals: of(synthetic),
        },
      ],
    }],
    legend: [],
  };
}

/**
 * The record-level Lipschitz bounds Δ_i as their distribution, with the released bound Δ dashed
 * (the web page, for the data's owner).
 *
 * @param bounds Each record's Δ_i.
 * @param released The bound Δ the release states or achieved (null: none).
 * @returns The figure.
 */
export function boundsFigure(bounds: readonly number[], released: number | null): Figure {
  const line = distributionSeries("records' Δ_i", "#4682b4", bounds);
  const rule: Series = {
    label: "released Δ",
    color: "#dc143c",
    dashed: true,
    marks: false,
    className: "released",
    points: released === null ? [] : [[released, 0], [released, 1]],
  };
  return {
    title: "Record-level Lipschitz bounds",
    className: "plot bounds",
    frame: WIDE,
    panels: [{
      title: "",
      xLabel: "Δ_i of each record",
      yLabel: "share of records at or below",
      series: [{ ...line, className: "records" }, rule],
    }],
    legend: [[line.label, line.color], [rule.label, rule.color]],
  };
}

/**
 * Each record's bound Δ_i against its weight α_i (the web page, for the data's owner).
 *
 * @param bounds Each record's Δ_i.
 * @param alpha Each record's weight α_i.
 * @returns The figure.
 */
export function weightsFigure(bounds: readonly number[], alpha: readonly number[]): Figure {
  return {
    title: "Record-level bounds against weights",
    className: "plot weights",
    frame: WIDE,
    panels: [{
      title: "",
      xLabel: "Δ_i",
      yLabel: "α_i",
      series: [{
        label: "records",
        color: "#4682b4",
        line: false,
        className: "record",
        points: bounds.map((bound, i) => [bound, alpha[i]] as const),
      }],
    }],
    legend: [],
  };
}

/** A table cell's estimate and interval, named by its labels. */
export interface CellInterval extends Interval {
  readonly cell: string;
}

/**
 * A survey table's cells: each one's mean with its 95% interval, one band per cell (the web
 * page).
 *
 * @param cells The interior cells.
 * @param label What the estimate is (the x axis).
 * @returns The figure.
 */
export function cellsFigure(cells: readonly CellInterval[], label: string): Figure {
  return {
    title: "The table's cells",
    className: "plot cells",
    frame: { width: 560, height: 48 + 22 * cells.length, left: 150, right: 16, top: 8, bottom: 40 },
    panels: [{
      title: "",
      xLabel: label,
      yLabel: "",
      bands: cells.map((c) => c.cell),
      series: [{
        kind: "intervals",
        label: "estimate",
        color: CONFIDENTIAL,
        className: "cell",
        intervals: cells.map((c) => [c.lower, c.estimate, c.upper] as const),
      }],
    }],
    legend: [],
  };
}
