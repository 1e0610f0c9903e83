/**
 * A figure as data (issue 36): the one spec that report.html, the studies' markdown and the web
 * page draw from, rendered by the one SVG renderer `svg.ts`. A figure is panels side by side, each
 * with its axes (labels, linear or log10 scale, or categories down a band axis) and its marks, and
 * a legend of (label, colour). Numbers stay numbers here; the renderer formats them.
 *
 * The studies save their figures in their JSON (`studies/study_document.ts`), so the fields a
 * study's figure uses keep the names they were saved under (`series`, `points`, `logX`, …); the
 * fields report.html and the web page add are optional and absent from the studies' figures.
 *
 * @module
 */

/** A line or scatter of (x, y) points. */
export interface Series {
  /** Absent: a line or scatter ({@linkcode Bars} and {@linkcode Intervals} name their kind). */
  readonly kind?: undefined;
  readonly label: string;
  readonly color: string;
  readonly dashed?: boolean;
  /** Whether the points are joined by a line (default true; false: a scatter). */
  readonly line?: boolean;
  /** Whether the line steps (across to the next x, then up or down to its y) instead of slanting. */
  readonly step?: boolean;
  /** Whether each point is marked by a circle (default true). */
  readonly marks?: boolean;
  /** The line's width (default 1.6). */
  readonly width?: number;
  /** The SVG class of the line and its circles (report.html's tests find them by it). */
  readonly className?: string;
  /** (x, y, hollow: drawn as an open circle) per point; non-finite y are left out. */
  readonly points: readonly (readonly [number, number, boolean?])[];
}

/** Bars from 0 to a value, one per band of a band panel. */
export interface Bars {
  readonly kind: "bars";
  readonly label: string;
  readonly color: string;
  readonly className?: string;
  /** The bar of each band, in the order of {@linkcode Panel.bands}. */
  readonly values: readonly number[];
}

/** Intervals with their estimate marked, one per band of a band panel. */
export interface Intervals {
  readonly kind: "intervals";
  readonly label: string;
  readonly color: string;
  readonly className?: string;
  /** (lower, estimate, upper) of each band, in the order of {@linkcode Panel.bands}. */
  readonly intervals: readonly (readonly [number, number, number])[];
}

/** A mark of a panel: lines and scatters on x–y panels, bars and intervals on band panels. */
export type Mark = Series | Bars | Intervals;

/** One panel: its title, axes and marks. */
export interface Panel {
  /** Its title above the plot ("" for none). */
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly logX?: boolean;
  readonly logY?: boolean;
  /**
   * Categories down the y axis (a band panel): each band holds one bar or interval of every
   * mark, side by side in the marks' order; the x axis is linear.
   */
  readonly bands?: readonly string[];
  /** False: the marks alone, without axes, ticks or labels (a chart inside a table cell). */
  readonly axes?: false;
  readonly series: readonly Mark[];
}

/** A panel's size and margins, in SVG units. */
export interface Frame {
  readonly width: number;
  readonly height: number;
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

/** The studies' panel: 360 × 260. */
export const PANEL: Frame = { width: 360, height: 260, left: 56, right: 12, top: 28, bottom: 40 };

/** A figure of panels side by side, with a legend of (label, colour) and a caption line. */
export interface Figure {
  /** The SVG's title (read by screen readers). */
  readonly title: string;
  readonly panels: readonly Panel[];
  readonly legend: readonly (readonly [string, string])[];
  readonly caption?: string;
  /** Each panel's size and margins (default {@linkcode PANEL}). */
  readonly frame?: Frame;
  /** The SVG's class (report.html styles and finds its plots by it). */
  readonly className?: string;
}

/**
 * A distribution as a line without marks: the share of the values at or below each one (the
 * empirical CDF; the studies draw the papers' violins this way). Missing values are left out.
 *
 * @param label The line's label.
 * @param color Its colour.
 * @param values The values; null and undefined are left out.
 * @param options Dashed; drawn as steps (the exact ECDF) rather than slanting between values.
 * @returns The series.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { distributionSeries } from "./figure.ts";
 * assert.deepEqual(distributionSeries("a", "#000", [3, null, 1]).points, [[1, 0.5], [3, 1]]);
 * ```
 */
export function distributionSeries(
  label: string,
  color: string,
  values: readonly (number | null | undefined)[],
  options: { readonly dashed?: boolean; readonly step?: boolean } = {},
): Series {
  const kept = values.filter((v): v is number => v !== null && v !== undefined)
    .sort((a, b) => a - b);
  return {
    label,
    color,
    ...(options.dashed === undefined ? {} : { dashed: options.dashed }),
    ...(options.step === true ? { step: true } : {}),
    marks: false,
    points: kept.map((v, i) => [v, (i + 1) / kept.length] as const),
  };
}
