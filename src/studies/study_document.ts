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
 * @module
 */
import type { Figure } from "../report/figure.ts";
import { figureSvg } from "../report/svg.ts";
import { markdownTable } from "./markdown_table.ts";
import { type Verdict, verdictTable } from "./verdict.ts";

export type { Verdict };

/** A table of a report: a header row and body rows of formatted cells. */
export interface Table {
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

/** A study's report as data: the part of its JSON the markdown is rendered from. */
export interface StudyDocument {
  /** The verdict table's rows, in the paper's order. */
  readonly verdicts: readonly Verdict[];
  /** Formatted numbers and data-decided sentences, by placeholder name. */
  readonly values: Readonly<Record<string, string>>;
  /** Tables by placeholder name. */
  readonly tables: Readonly<Record<string, Table>>;
  /** Figures by placeholder name. */
  readonly figures: Readonly<Record<string, Figure>>;
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
 * A study's markdown report: the filled template, then the machine-dependent footer.
 *
 * @param template The study's fixed prose with placeholders (a template file's final newline is
 * not part of it).
 * @param document The study's document.
 * @param footer Machine-dependent lines (wall time), not part of the JSON.
 * @returns The markdown, ending in a newline.
 */
export function renderStudy(template: string, document: StudyDocument, footer: string): string {
  return `${fillTemplate(template.replace(/\n$/, ""), document)}\n\n${footer}\n`;
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
