/**
 * Numbers as text for the reports (issue 36): the one home of the formats that report.html
 * (`synthesis/report_html.ts`), the web page (`web/report.js`), the figures' tick labels
 * (`svg.ts`) and the studies' reports (`formatValue` in `studies/markdown_table.ts`, through which
 * every study's typed numbers become text) print. Each format is exactly what its call
 * sites printed before it moved here (the committed study reports are compared byte for byte); a
 * missing value (null, undefined and, where noted, a non-finite number) prints as an en dash "–",
 * report.html's {@linkcode readable} as an em dash "—".
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fixed, percent, readable, significant } from "./format.ts";
 * assert.equal(fixed(0.12345), "0.12");
 * assert.equal(significant(0.012345), "0.0123");
 * assert.equal(percent(0.1234, 1), "12.3 %");
 * assert.equal(readable(123456), "1.235·10^5");
 * ```
 *
 * @module
 */

/** The en dash a markdown report prints for a missing value. */
export const MISSING = "–";

const present = (v: number | null | undefined): v is number => Number.isFinite(v);

/** A number as JavaScript writes it (the shortest text that reads back as it); "–" when null or undefined. */
export function plain(value: number | null | undefined): string {
  return value === null || value === undefined ? MISSING : String(value);
}

/**
 * A number with `digits` decimals (`toFixed`); "–" when null or undefined (NaN and ±Infinity
 * print as JavaScript writes them).
 */
export function fixed(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined ? MISSING : value.toFixed(digits);
}

/** A number rounded to `digits` significant digits, trailing zeros dropped; "–" unless finite. */
export function significant(value: number | null | undefined, digits = 3): string {
  return present(value) ? `${Number(value.toPrecision(digits))}` : MISSING;
}

/** A share in [0, 1] as a percentage with `digits` decimals and " %"; "–" unless finite. */
export function percent(share: number | null | undefined, digits: number): string {
  return present(share) ? `${(100 * share).toFixed(digits)} %` : MISSING;
}

/** A number in exponent form with `digits` decimals (`1.23e-4`); "–" when null or undefined. */
export function scientific(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined ? MISSING : value.toExponential(digits);
}

/** A count in millions with two decimals and " M"; "–" unless finite. */
export function millions(value: number | null | undefined): string {
  return present(value) ? `${(value / 1e6).toFixed(2)} M` : MISSING;
}

/** A number rounded to a whole one with thousands separators (`1,234`); "–" unless finite. */
export function grouped(value: number): string {
  return present(value) ? Math.round(value).toLocaleString("en-US") : MISSING;
}

/**
 * A number for reading in report.html: `digits` significant digits, or exponent form
 * (`1.235·10^5`, `digits` significant) when |x| ≥ 10⁵ or below 10⁻³; "0" for zero and an em dash
 * "—" unless finite.
 */
export function readable(x: number | null | undefined, digits = 4): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return "—";
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 1e5 || a < 1e-3) {
    return x.toExponential(digits - 1).replace("e", "·10^").replace("+", "");
  }
  return String(Number(x.toPrecision(digits)));
}

/**
 * An axis tick's label in the figures (`svg.ts`): three significant digits, or on a linear axis
 * with tick spacing `step` as many decimals as the spacing needs (so that close ticks stay
 * distinct); exponent form (`1e+4`) beyond 10⁴, and from 1,000 or below 0.01 without a step.
 */
export function tickLabel(v: number, step?: number): string {
  if (step !== undefined && Math.abs(v) < 1e4 && step >= 1e-6) {
    return v.toFixed(Math.max(0, Math.ceil(-Math.log10(step) - 1e-9)));
  }
  return Math.abs(v) >= 1000 || (Math.abs(v) < 0.01 && v !== 0)
    ? v.toExponential(0)
    : String(Number(v.toPrecision(3)));
}
