/**
 * Figures of the studies' reports as data, and their SVG (no network, no library): a figure is
 * one or more panels side by side, each with lines of (x, y) points on linear or log10 axes, and a
 * legend. `frontier_figure.ts` draws its frontier with it, and a study document's figures
 * (`study_document.ts`) render through {@linkcode lineFigureSvg}.
 *
 * @module
 */
import { tickLabel } from "../report/format.ts";
import { ticks } from "../report/ticks.ts";

/** One line of a panel. */
export interface Series {
  readonly label: string;
  readonly color: string;
  readonly dashed?: boolean;
  /** Whether the points are joined by a line (default true; false: a scatter). */
  readonly line?: boolean;
  /** Whether each point is marked by a circle (default true). */
  readonly marks?: boolean;
  /** (x, y, hollow: drawn as an open circle) per point; non-finite y are left out. */
  readonly points: readonly (readonly [number, number, boolean?])[];
}

/**
 * A distribution as a line without marks: the share of the values at or below each one (the
 * empirical CDF; the studies draw the papers' violins this way). Missing values are left out.
 */
export function distributionSeries(
  label: string,
  color: string,
  values: readonly (number | null | undefined)[],
  dashed?: boolean,
): Series {
  const kept = values.filter((v): v is number => v !== null && v !== undefined)
    .sort((a, b) => a - b);
  return {
    label,
    color,
    ...(dashed === undefined ? {} : { dashed }),
    marks: false,
    points: kept.map((v, i) => [v, (i + 1) / kept.length] as const),
  };
}

/** One panel: its title, axes and lines. */
export interface Panel {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly logX?: boolean;
  readonly logY?: boolean;
  readonly series: readonly Series[];
}

/** A figure of panels side by side, with a legend of (label, colour) and a caption line. */
export interface LineFigure {
  /** The SVG's title (read by screen readers). */
  readonly title: string;
  readonly panels: readonly Panel[];
  readonly legend: readonly (readonly [string, string])[];
  readonly caption?: string;
}

/** A panel's size and margins, in SVG units. */
export const PANEL = { width: 360, height: 260, left: 56, right: 12, top: 28, bottom: 40 };

/** Text with &, < and > escaped for SVG. */
export function escapeSvg(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * The [lo, hi] of an axis over values, widened to its ticks (linear axes include 0) unless
 * `exact` (a log x axis, ticked at the points' own x).
 */
function axis(values: readonly number[], log: boolean, includeZero: boolean, exact = false) {
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (!log && includeZero) lo = Math.min(0, lo);
  if (hi === lo) hi = log ? lo * 10 : lo + 1;
  const t = ticks(lo, hi, log ? { kind: "log" } : { kind: "covering" });
  if (!exact) {
    lo = Math.min(lo, t[0]);
    hi = Math.max(hi, t[t.length - 1]);
  }
  const unit = (v: number) =>
    log
      ? (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))
      : (v - lo) / (hi - lo);
  return { ticks: t, unit };
}

/**
 * One panel at (x0, 0): axes, ticks, lines and points. The x ticks are the points' x values on a
 * log axis (the studies' ε or n grids), round ticks on a linear one.
 */
export function panelSvg(x0: number, panel: Panel): string {
  const { width: W, height: H, left: L, right: R, top: T, bottom: B } = PANEL;
  const { logX = false, logY = false } = panel;
  const keep = (x: number, y: number) =>
    Number.isFinite(x) && Number.isFinite(y) && (!logY || y > 0) && (!logX || x > 0);
  const points = panel.series.flatMap((s) => s.points.filter(([x, y]) => keep(x, y)));
  const parts = [`<g transform="translate(${x0},0)">`];
  parts.push(
    `<text x="${W / 2}" y="16" text-anchor="middle" font-weight="bold">${
      escapeSvg(panel.title)
    }</text>`,
  );
  if (points.length === 0) {
    parts.push(`<text x="${W / 2}" y="${H / 2}" text-anchor="middle">no data</text></g>`);
    return parts.join("");
  }
  const xAxis = axis(points.map(([x]) => x), logX, false, logX);
  const yAxis = axis(points.map(([, y]) => y), logY, true);
  const xTicks = logX ? [...new Set(points.map(([x]) => x))].sort((a, b) => a - b) : xAxis.ticks;
  const fx = (x: number) => L + xAxis.unit(x) * (W - L - R);
  const fy = (y: number) => T + (1 - yAxis.unit(y)) * (H - T - B);
  parts.push(
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#444"/>`,
    `<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#444"/>`,
  );
  for (const x of xTicks) {
    parts.push(
      `<text x="${fx(x).toFixed(1)}" y="${H - B + 14}" text-anchor="middle">${
        tickLabel(x, logX ? undefined : xTicks[1] - xTicks[0])
      }</text>`,
    );
  }
  for (const y of yAxis.ticks) {
    const py = fy(y).toFixed(1);
    parts.push(
      `<line x1="${L - 3}" y1="${py}" x2="${W - R}" y2="${py}" stroke="#ddd"/>`,
      `<text x="${L - 5}" y="${py}" text-anchor="end" dominant-baseline="middle">${
        tickLabel(y, logY ? undefined : yAxis.ticks[1] - yAxis.ticks[0])
      }</text>`,
    );
  }
  parts.push(
    `<text x="${(L + W - R) / 2}" y="${H - 8}" text-anchor="middle">${
      escapeSvg(panel.xLabel)
    }</text>`,
    `<text transform="translate(12,${(T + H - B) / 2}) rotate(-90)" text-anchor="middle">${
      escapeSvg(panel.yLabel)
    }</text>`,
  );
  for (const s of panel.series) {
    const kept = s.points.filter(([x, y]) => keep(x, y));
    if (kept.length === 0) continue;
    if (s.line !== false) {
      const path = kept.map(([x, y], j) =>
        `${j === 0 ? "M" : "L"}${fx(x).toFixed(1)},${fy(y).toFixed(1)}`
      ).join(" ");
      parts.push(
        `<path d="${path}" fill="none" stroke="${s.color}" stroke-width="1.6"${
          s.dashed === true ? ' stroke-dasharray="5,3"' : ""
        }><title>${escapeSvg(s.label)}</title></path>`,
      );
    }
    if (s.marks === false) continue;
    const radius = s.line === false ? 1.6 : 2.6;
    for (const [x, y, hollow] of kept) {
      parts.push(
        `<circle cx="${fx(x).toFixed(1)}" cy="${fy(y).toFixed(1)}" r="${radius}" ` +
          `stroke="${s.color}" fill="${hollow === true ? "white" : s.color}"/>`,
      );
    }
  }
  parts.push("</g>");
  return parts.join("");
}

/**
 * A figure as one SVG document: its panels side by side, the legend two entries to a panel's
 * width, and the caption line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { lineFigureSvg } from "./figure_svg.ts";
 * const svg = lineFigureSvg({
 *   title: "Δ against n",
 *   panels: [{
 *     title: "Δ", xLabel: "n", yLabel: "Δ", logX: true,
 *     series: [{ label: "LW", color: "#000", points: [[100, 3], [400, 2]] }],
 *   }],
 *   legend: [["LW", "#000"]],
 * });
 * assert.ok(svg.startsWith("<svg") && svg.includes("<path d=\"M"));
 * ```
 */
export function lineFigureSvg(figure: LineFigure): string {
  const { width: W, height: H } = PANEL;
  const legendY = H + 6;
  const perRow = 2 * figure.panels.length;
  const rows = Math.ceil(figure.legend.length / perRow);
  const height = legendY + 16 * rows + (figure.caption === undefined ? 4 : 18);
  const legend = figure.legend.map(([text, color], j) => {
    const x = 10 + (j % perRow) * 180;
    const y = legendY + 16 * Math.floor(j / perRow);
    return `<line x1="${x}" y1="${y}" x2="${x + 22}" y2="${y}" stroke="${color}" ` +
      `stroke-width="2"/><text x="${x + 28}" y="${y}" dominant-baseline="middle">${
        escapeSvg(text)
      }</text>`;
  }).join("");
  const width = W * figure.panels.length;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" ` +
    `height="${height}" font-family="sans-serif" font-size="11">`,
    `<title>${escapeSvg(figure.title)}</title>`,
    ...figure.panels.map((panel, k) => panelSvg(k * W, panel)),
    legend,
    ...(figure.caption === undefined
      ? []
      : [`<text x="10" y="${height - 4}">${escapeSvg(figure.caption)}</text>`]),
    "</svg>",
  ].join("\n");
}
