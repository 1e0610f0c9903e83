/**
 * The two markdown primitives every study report uses, with no imports (so that the report
 * document, `study_document.ts`, and the verdicts, `verdict.ts`, sit below the study runner).
 *
 * @module
 */

/** A number for a markdown table, with `digits` decimals ("–" when null). */
export function fmt(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined ? "–" : value.toFixed(digits);
}

/** A markdown table from a header row and body rows. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}
