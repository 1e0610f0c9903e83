/**
 * A study's report as data (issue 25): what its aggregate measured, as named values, tables
 * (header and rows), figures (series of points) and verdicts ({@linkcode Verdict}, each with the
 * Monte Carlo interval that decided it). The document is saved in the study's JSON, and one
 * renderer ({@linkcode renderStudy}) turns any document into markdown through the study's
 * template, which holds its fixed prose with `{{…}}` placeholders:
 *
 * - `{{verdicts}}`: the verdict table;
 * - `{{table:NAME}}`: a table; `{{figure:NAME}}`: a figure as inline SVG;
 * - `{{NAME}}`: a value (a formatted number or a sentence the data decides).
 *
 * Every placeholder must name something in the document and everything in the document must be
 * placed, so a template and its document cannot drift apart.
 *
 * A study builds its report as typed data ({@linkcode Report}): a number it places is a
 * {@linkcode Num} (the number and its format), a sentence with numbers a {@linkcode Text} (the
 * `text` tag), and {@linkcode formatReport} turns it into the document, the one step at which
 * numbers become text (through `src/report/format.ts`). The document, as printed, is what the JSON
 * keeps and the template places.
 *
 * @module
 */
import type { Figure } from "../report/figure.ts";
import { figureSvg } from "../report/svg.ts";
import { cat, formatValue, markdownTable, type Text, type Value } from "./markdown_table.ts";
import { type ReportVerdict, type Verdict, verdictTable } from "./verdict.ts";

export type { ReportVerdict, Verdict };
export {
  cat,
  formatValue,
  joined,
  type Num,
  num,
  type NumberFormat,
  type Text,
  text,
  type Value,
} from "./markdown_table.ts";

/**
 * A table of a report: a header row and body rows of cells, `C` being the cell (text in the
 * document, a typed {@linkcode Value} in the report before formatting).
 */
export interface TableOf<C> {
  readonly header: readonly C[];
  readonly rows: readonly (readonly C[])[];
}

/**
 * A study's report, `C` being a value or cell and `V` a verdict row: text in the document, typed
 * values in the report before formatting ({@linkcode formatReport} goes from one to the other).
 */
export interface DocumentOf<C, V> {
  /** The verdict table's rows, in the paper's order. */
  readonly verdicts: readonly V[];
  /** Numbers and data-decided sentences, by placeholder name. */
  readonly values: Readonly<Record<string, C>>;
  /** Tables by placeholder name. */
  readonly tables: Readonly<Record<string, TableOf<C>>>;
  /** Figures by placeholder name. */
  readonly figures: Readonly<Record<string, Figure>>;
}

/** A table of a report: a header row and body rows of formatted cells. */
export type Table = TableOf<string>;

/** A study's report as data: the part of its JSON the markdown is rendered from. */
export type StudyDocument = DocumentOf<string, Verdict>;

/** A table of a report: a header row and body rows of values. */
export type ReportTable = TableOf<Value>;

/** A study's report as typed data: {@linkcode StudyDocument} before its numbers are formatted. */
export type Report = DocumentOf<Value, ReportVerdict>;

/**
 * The document of a report: every value, cell and verdict cell formatted (`formatValue`).
 *
 * @param report The report as typed data.
 * @returns The document, as the JSON keeps it and the template places it.
 */
export function formatReport(report: Report): StudyDocument {
  const rows = (table: ReportTable): Table => ({
    header: table.header.map(formatValue),
    rows: table.rows.map((row) => row.map(formatValue)),
  });
  return {
    verdicts: report.verdicts.map((v) => ({
      quantity: formatValue(v.quantity),
      paper: formatValue(v.paper),
      ours: formatValue(v.ours),
      status: v.status,
      reason: formatValue(v.reason),
      interval: v.interval,
      paperValue: v.paperValue,
    })),
    values: Object.fromEntries(
      Object.entries(report.values).map(([name, value]) => [name, formatValue(value)]),
    ),
    tables: Object.fromEntries(
      Object.entries(report.tables).map(([name, table]) => [name, rows(table)]),
    ),
    figures: report.figures,
  };
}

/**
 * A fragment of a template (a clause the data decides whether to print) filled with values, as
 * text: its placeholders are `{{NAME}}` values only, and each value must be placed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatValue, fragment, num } from "./study_document.ts";
 * assert.equal(formatValue(fragment("R̂ {{rhat}}", { rhat: num.significant(1.0123, 4) })), "R̂ 1.012");
 * ```
 */
export function fragment(template: string, values: Readonly<Record<string, Value>>): Text {
  const parts: Value[] = [];
  const used = new Set<string>();
  let at = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const [whole, kind, name] = match;
    if (kind !== undefined || !Object.hasOwn(values, name)) {
      throw new RangeError(`Invalid template: the fragment has no value "${name}"`);
    }
    parts.push(template.slice(at, match.index), values[name]);
    used.add(name);
    at = match.index + whole.length;
  }
  parts.push(template.slice(at));
  const unused = Object.keys(values).filter((name) => !used.has(name));
  if (unused.length > 0) {
    throw new RangeError(`Invalid template: it places no ${unused.join(", ")}`);
  }
  return cat(...parts);
}

/** `{{verdicts}}`, `{{table:NAME}}`, `{{figure:NAME}}` or `{{NAME}}`. */
const PLACEHOLDER = /\{\{(?:(table|figure):)?([A-Za-z0-9_.-]+)\}\}/g;

/**
 * Fills a template from a document (see the module documentation).
 *
 * @param template The study's fixed prose with placeholders.
 * @param document The study's document.
 * @returns The filled text; throws a RangeError naming a placeholder the document lacks, or an
 * entry of the document no placeholder uses.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fillTemplate } from "./study_document.ts";
 * const doc = {
 *   verdicts: [],
 *   values: { n: "100" },
 *   tables: { t: { header: ["a"], rows: [["1"]] } },
 *   figures: {},
 * };
 * assert.equal(fillTemplate("R = {{n}}\n{{table:t}}", doc), "R = 100\n| a |\n| --- |\n| 1 |");
 * ```
 */
export function fillTemplate(template: string, document: StudyDocument): string {
  const used = new Set<string>();
  const filled = template.replace(PLACEHOLDER, (_, kind: string | undefined, name: string) => {
    used.add(`${kind ?? "value"}:${name}`);
    if (kind === undefined && name === "verdicts") return verdictTable(document.verdicts);
    const source = kind === "table"
      ? document.tables
      : kind === "figure"
      ? document.figures
      : document.values;
    if (!Object.hasOwn(source, name)) {
      throw new RangeError(`Invalid template: the document has no ${kind ?? "value"} "${name}"`);
    }
    if (kind === "table") {
      return markdownTable(document.tables[name].header, document.tables[name].rows);
    }
    if (kind === "figure") return figureSvg(document.figures[name]);
    return document.values[name];
  });
  const unused = [
    ...Object.keys(document.values).map((name) => `value:${name}`),
    ...Object.keys(document.tables).map((name) => `table:${name}`),
    ...Object.keys(document.figures).map((name) => `figure:${name}`),
    ...(document.verdicts.length > 0 ? ["value:verdicts"] : []),
  ].filter((key) => !used.has(key));
  if (unused.length > 0) {
    throw new RangeError(`Invalid template: it places no ${unused.join(", ")}`);
  }
  return filled;
}

/**
 * A study's markdown report: the filled template, then, after a blank line, the
 * machine-dependent footer; with no footer (""), the filled template alone.
 *
 * @param template The study's fixed prose with placeholders (a template file's final newline is
 * not part of it).
 * @param document The study's document.
 * @param footer Machine-dependent lines (wall time), not part of the JSON, or "" for none.
 * @returns The markdown, ending in a newline.
 */
export function renderStudy(template: string, document: StudyDocument, footer: string): string {
  const filled = fillTemplate(template.replace(/\n$/, ""), document);
  return footer === "" ? `${filled}\n` : `${filled}\n\n${footer}\n`;
}

/**
 * The machine-dependent footer of a rendered report: from its last line "---" on, or "" when it
 * has none (kept when the report is rendered again from its JSON).
 *
 * @param markdown The rendered report.
 * @returns The footer, without the final newline.
 */
export function footerOf(markdown: string): string {
  const at = markdown.lastIndexOf("\n---\n");
  return at < 0 ? "" : markdown.slice(at + 1).trimEnd();
}
