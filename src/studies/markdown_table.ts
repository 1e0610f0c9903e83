/**
 * The primitives every study report uses, importing only the reports' number formats (so that
 * the report document, `study_document.ts`, and the verdicts, `verdict.ts`, sit below the study
 * runner): a report's typed values ({@linkcode Num}, a number and its format; {@linkcode Text},
 * text with numbers) and {@linkcode formatValue}, the one place they become text; and the markdown
 * table.
 *
 * @module
 */

import * as format from "../report/format.ts";

/** A markdown table from a header row and body rows. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** The formats of `src/report/format.ts` a report's number can take. */
export type NumberFormat =
  | "plain"
  | "fixed"
  | "significant"
  | "percent"
  | "scientific"
  | "millions"
  | "grouped";

/** A number of a report with its format (`digits` where the format takes them). */
export interface Num {
  readonly number: number | null | undefined;
  readonly format: NumberFormat;
  readonly digits?: number;
}

/** Text with numbers in it: its parts, joined when the report is formatted. */
export interface Text {
  readonly parts: readonly Value[];
}

/** A value, table cell or verdict cell of a report: text, a number, or text with numbers. */
export type Value = string | Num | Text;

/**
 * A typed value as an object whose conversion to a string throws: a number or a sentence of a
 * report becomes text only through {@linkcode formatValue}, never by a template literal, `+` or
 * `join` on the way.
 */
function typed<T extends object>(value: T): T {
  return Object.defineProperty(value, "toString", {
    value: () => {
      throw new TypeError("A report's typed value became text outside formatValue");
    },
  });
}

/** The numbers of a report, each with its format (see `src/report/format.ts`). */
export const num = {
  /** As JavaScript writes it ("–" when missing). */
  plain: (number: number | null | undefined): Num => typed({ number, format: "plain" }),
  /** With `digits` decimals. */
  fixed: (number: number | null | undefined, digits = 2): Num =>
    typed({
      number,
      format: "fixed",
      digits,
    }),
  /** To `digits` significant digits. */
  significant: (number: number | null | undefined, digits = 3): Num =>
    typed({
      number,
      format: "significant",
      digits,
    }),
  /** A share as a percentage with `digits` decimals and " %". */
  percent: (number: number | null | undefined, digits: number): Num =>
    typed({
      number,
      format: "percent",
      digits,
    }),
  /** In exponent form with `digits` decimals. */
  scientific: (number: number | null | undefined, digits = 2): Num =>
    typed({
      number,
      format: "scientific",
      digits,
    }),
  /** In millions with " M". */
  millions: (number: number | null | undefined): Num => typed({ number, format: "millions" }),
  /** Whole, with thousands separators. */
  grouped: (number: number): Num => typed({ number, format: "grouped" }),
} as const;

/**
 * Text with numbers (a tagged template): `` text`Δ = ${num.fixed(delta, 3)}` ``; a bare number is
 * printed as JavaScript writes it (`num.plain`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatValue, num, text } from "./markdown_table.ts";
 * assert.equal(formatValue(text`Δ = ${num.fixed(1.23456, 3)} (${num.percent(0.5, 0)})`), "Δ = 1.235 (50 %)");
 * ```
 */
export function text(
  strings: TemplateStringsArray,
  ...values: readonly (Value | number)[]
): Text {
  const parts: Value[] = [strings[0]];
  values.forEach((value, i) => {
    parts.push(typeof value === "number" ? num.plain(value) : value, strings[i + 1]);
  });
  return typed({ parts });
}

/** Values one after another, as text (what `+` does to strings). */
export function cat(...values: readonly (Value | number)[]): Text {
  return typed({
    parts: values.map((value) => typeof value === "number" ? num.plain(value) : value),
  });
}

/** Values joined by a separator, as text. */
export function joined(values: readonly Value[], separator: string): Text {
  return typed({ parts: values.flatMap((value, i) => i === 0 ? [value] : [separator, value]) });
}

/** A value as printed: the one place a report's number becomes text. */
export function formatValue(value: Value): string {
  if (typeof value === "string") return value;
  if ("parts" in value) return value.parts.map(formatValue).join("");
  const { number, digits } = value;
  switch (value.format) {
    case "plain":
      return format.plain(number);
    case "fixed":
      return format.fixed(number, digits);
    case "significant":
      return format.significant(number, digits);
    case "percent":
      return format.percent(number, digits ?? 0);
    case "scientific":
      return format.scientific(number, digits);
    case "millions":
      return format.millions(number);
    case "grouped":
      return number === null || number === undefined ? format.MISSING : format.grouped(number);
  }
}
