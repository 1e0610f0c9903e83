/**
 * The one SVG renderer of a figure spec (`figure.ts`, issue 36): report.html's plots, the
 * studies' markdown figures and the web page's plots are its output (no library, no network; the
 * web page loads this module as it is, `api/browser_modules.ts`). Coordinates print with one
 * decimal, tick labels through `format.ts`'s {@linkcode tickLabel}, ticks from `ticks.ts`.
 *
 * @module
 */
import { type Bars, type Figure, type Frame, type Intervals, PANEL, type Panel } from "./figure.ts";
import { tickLabel } from "./format.ts";
import { ticks } from "./ticks.ts";

/**
 * Text with &, < and > escaped for SVG (and, with " escaped too, for an attribute value).
 *
 * @param text Any text.
 * @returns The escaped text.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { escapeSvg } from "./svg.ts";
 * assert.equal(escapeSvg("a < b & c"), "a &lt; b &amp; c");
 * ```
 */
export function escapeSvg(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A coordinate as printed: one decimal. */
function at(v: number): string {
  return v.toFixed(1);
}

/** ` class="…"` when a class is given, else nothing. */
function classAttribute(className: string | undefined): string {
  return className === undefined ? "" : ` class="${escapeSvg(className).replace(/"/g, "&quot;")}"`;
}

/** A band's label: at most 24 characters (an ellipsis marks the cut), escaped. */
function bandLabel(text: string): string {
  const chars = [...text];
  return escapeSvg(chars.length > 24 ? `${chars.slice(0, 23).join("")}…` : text);
}

/**
 * The [lo, hi] of an axis over values, widened to its ticks (linear axes include 0 when asked)
 * unless `exact` (a log x axis, ticked at the points' own x).
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

/** The panel's title, when it has one. */
function titleSvg(panel: Panel, frame: Frame): string {
  return panel.title === "" ? "" : `<text x="${frame.width / 2}" y="16" text-anchor="middle" ` +
    `font-weight="bold">${escapeSvg(panel.title)}</text>`;
}

/** The x axis's line, ticks and label (a y axis's follow from the panel kind). */
function xAxisSvg(
  panel: Panel,
  frame: Frame,
  xTicks: readonly number[],
  fx: (x: number) => number,
): string[] {
  const { width: W, height: H, left: L, right: R, bottom: B } = frame;
  const parts = [`<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#444"/>`];
  for (const x of xTicks) {
    parts.push(
      `<text x="${at(fx(x))}" y="${H - B + 14}" text-anchor="middle">${
        tickLabel(x, panel.logX === true ? undefined : xTicks[1] - xTicks[0])
      }</text>`,
    );
  }
  parts.push(
    `<text x="${(L + W - R) / 2}" y="${H - 8}" text-anchor="middle">${
      escapeSvg(panel.xLabel)
    }</text>`,
  );
  return parts;
}

/** The y axis's label, rotated along the axis. */
function yLabelSvg(panel: Panel, frame: Frame): string {
  return `<text transform="translate(12,${(frame.top + frame.height - frame.bottom) / 2}) ` +
    `rotate(-90)" text-anchor="middle">${escapeSvg(panel.yLabel)}</text>`;
}

/**
 * An x–y panel at (x0, 0): axes, ticks, lines and points. The x ticks are the points' x values on
 * a log axis (the studies' ε or n grids), round ticks on a linear one.
 */
function xyPanelSvg(x0: number, panel: Panel, frame: Frame): string {
  const { width: W, height: H, left: L, right: R, top: T, bottom: B } = frame;
  const { logX = false, logY = false } = panel;
  const series = panel.series.flatMap((s) => s.kind === undefined ? [s] : []);
  const keep = (x: number, y: number) =>
    Number.isFinite(x) && Number.isFinite(y) && (!logY || y > 0) && (!logX || x > 0);
  const points = series.flatMap((s) => s.points.filter(([x, y]) => keep(x, y)));
  const parts = [`<g transform="translate(${x0},0)">`, titleSvg(panel, frame)];
  if (points.length === 0) {
    parts.push(`<text x="${W / 2}" y="${H / 2}" text-anchor="middle">no data</text></g>`);
    return parts.join("");
  }
  const xAxis = axis(points.map(([x]) => x), logX, false, logX);
  const yAxis = axis(points.map(([, y]) => y), logY, true);
  const xTicks = logX ? [...new Set(points.map(([x]) => x))].sort((a, b) => a - b) : xAxis.ticks;
  const fx = (x: number) => L + xAxis.unit(x) * (W - L - R);
  const fy = (y: number) => T + (1 - yAxis.unit(y)) * (H - T - B);
  if (panel.axes !== false) {
    const [xLine, ...xRest] = xAxisSvg(panel, frame, xTicks, fx);
    parts.push(xLine, `<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#444"/>`);
    parts.push(...xRest.slice(0, -1));
    for (const y of yAxis.ticks) {
      const py = at(fy(y));
      parts.push(
        `<line x1="${L - 3}" y1="${py}" x2="${W - R}" y2="${py}" stroke="#ddd"/>`,
        `<text x="${L - 5}" y="${py}" text-anchor="end" dominant-baseline="middle">${
          tickLabel(y, logY ? undefined : yAxis.ticks[1] - yAxis.ticks[0])
        }</text>`,
      );
    }
    parts.push(xRest.at(-1)!, yLabelSvg(panel, frame));
  }
  for (const s of series) {
    const kept = s.points.filter(([x, y]) => keep(x, y));
    if (kept.length === 0) continue;
    const cls = classAttribute(s.className);
    if (s.line !== false) {
      const path = kept.map(([x, y], j) =>
        j === 0
          ? `M${at(fx(x))},${at(fy(y))}`
          : s.step === true
          ? `H${at(fx(x))}V${at(fy(y))}`
          : `L${at(fx(x))},${at(fy(y))}`
      ).join(s.step === true ? "" : " ");
      parts.push(
        `<path${cls} d="${path}" fill="none" stroke="${s.color}" stroke-width="${s.width ?? 1.6}"${
          s.dashed === true ? ' stroke-dasharray="5,3"' : ""
        }><title>${escapeSvg(s.label)}</title></path>`,
      );
    }
    if (s.marks === false) continue;
    const radius = s.line === false ? 1.6 : 2.6;
    for (const [x, y, hollow] of kept) {
      parts.push(
        `<circle${cls} cx="${at(fx(x))}" cy="${at(fy(y))}" r="${radius}" ` +
          `stroke="${s.color}" fill="${hollow === true ? "white" : s.color}"/>`,
      );
    }
  }
  parts.push("</g>");
  return parts.join("");
}

/**
 * A band panel at (x0, 0): the bands down the y axis, a linear x axis (from 0 when it has bars),
 * and in each band one bar or interval of every mark, side by side.
 */
function bandPanelSvg(x0: number, panel: Panel, frame: Frame, bands: readonly string[]): string {
  const { width: W, height: H, left: L, right: R, top: T, bottom: B } = frame;
  const marks = panel.series.flatMap((s) => s.kind === undefined ? [] : [s]);
  const ends = (m: Bars | Intervals) =>
    m.kind === "bars" ? m.values : m.intervals.flatMap(([lower, , upper]) => [lower, upper]);
  const values = marks.flatMap(ends).filter(Number.isFinite);
  const parts = [`<g transform="translate(${x0},0)">`, titleSvg(panel, frame)];
  if (values.length === 0) {
    parts.push(`<text x="${W / 2}" y="${H / 2}" text-anchor="middle">no data</text></g>`);
    return parts.join("");
  }
  const xAxis = axis(values, false, marks.some((m) => m.kind === "bars"), panel.axes === false);
  const fx = (x: number) => L + xAxis.unit(x) * (W - L - R);
  const band = (H - T - B) / bands.length;
  const slot = band / (marks.length + 1);
  if (panel.axes !== false) {
    parts.push(...xAxisSvg(panel, frame, xAxis.ticks, fx));
    bands.forEach((name, j) =>
      parts.push(
        `<text x="${L - 5}" y="${at(T + (j + 0.5) * band)}" text-anchor="end" ` +
          `dominant-baseline="middle">${bandLabel(name)}</text>`,
      )
    );
    parts.push(yLabelSvg(panel, frame));
  }
  marks.forEach((m, k) => {
    const cls = classAttribute(m.className);
    const title = (text: string) => `<title>${escapeSvg(m.label)} ${text}</title>`;
    bands.forEach((_, j) => {
      const y = T + j * band + (k + 1) * slot;
      if (m.kind === "bars") {
        const v = m.values[j];
        if (!Number.isFinite(v)) return;
        parts.push(
          `<rect${cls} x="${at(fx(0))}" y="${at(y - 0.4 * slot)}" width="${
            at(fx(v) - fx(0))
          }" height="${at(0.8 * slot)}" fill="${m.color}">${title(tickLabel(v))}</rect>`,
        );
        return;
      }
      const [lower, estimate, upper] = m.intervals[j];
      if (![lower, estimate, upper].every(Number.isFinite)) return;
      parts.push(
        `<line${cls} x1="${at(fx(lower))}" y1="${at(y)}" x2="${at(fx(upper))}" y2="${
          at(y)
        }" stroke="${m.color}" stroke-width="2"/>`,
        `<circle${cls} cx="${at(fx(estimate))}" cy="${at(y)}" r="3" ` +
          `stroke="${m.color}" fill="${m.color}">${title(tickLabel(estimate))}</circle>`,
      );
    });
  });
  parts.push("</g>");
  return parts.join("");
}

/**
 * One panel at (x0, 0): a band panel when it has bands, else an x–y panel.
 *
 * @param x0 The panel's left edge in the figure.
 * @param panel The panel.
 * @param frame Its size and margins (default {@linkcode PANEL}).
 * @returns The panel as an SVG group.
 */
export function panelSvg(x0: number, panel: Panel, frame: Frame = PANEL): string {
  return panel.bands === undefined
    ? xyPanelSvg(x0, panel, frame)
    : bandPanelSvg(x0, panel, frame, panel.bands);
}

/**
 * A figure as one SVG document: its panels side by side, the legend two entries to a panel's
 * width, and the caption line.
 *
 * @param figure The figure spec.
 * @returns The SVG document.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { figureSvg } from "./svg.ts";
 * const svg = figureSvg({
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
export function figureSvg(figure: Figure): string {
  const frame = figure.frame ?? PANEL;
  const { width: W, height: H } = frame;
  const legendY = H + 6;
  const perRow = 2 * figure.panels.length;
  const rows = Math.ceil(figure.legend.length / perRow);
  // A figure without legend or caption (a chart in a table cell) is its panels' height.
  const height = rows === 0 && figure.caption === undefined
    ? H
    : legendY + 16 * rows + (figure.caption === undefined ? 4 : 18);
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
    `<svg xmlns="http://www.w3.org/2000/svg"${
      classAttribute(figure.className)
    } viewBox="0 0 ${width} ${height}" width="${width}" ` +
    `height="${height}" font-family="sans-serif" font-size="11">`,
    `<title>${escapeSvg(figure.title)}</title>`,
    ...figure.panels.map((panel, k) => panelSvg(k * W, panel, frame)),
    legend,
    ...(figure.caption === undefined
      ? []
      : [`<text x="10" y="${height - 4}">${escapeSvg(figure.caption)}</text>`]),
    "</svg>",
  ].join("\n");
}
