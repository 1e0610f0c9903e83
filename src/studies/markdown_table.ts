/**
 * The two markdown primitives every study report uses, importing only the reports' number
 * formats (so that the report document, `study_document.ts`, and the verdicts, `verdict.ts`, sit
 * below the study runner).
 *
 * @module
 */

/** A number for a markdown table, with `digits` decimals (default 2; "–" when null). */
export { fixed as fmt } from "../report/format.ts";

/** A markdown table from a header row and body rows. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}
