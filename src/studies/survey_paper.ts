/**
 * The survey paper's Tables 4–5 (Study 4's comparison) and the cells they print.
 *
 * @module
 */
import { FIELD_LEVELS, GENDER_LEVELS } from "../survey/sdr_tables.ts";

export { PAPER_TABLES_4_5, paperPopulationCells } from "../survey/paper_tables_4_5.ts";

/** The 24 cells of Tables 4–5 (field totals and field × gender) in cellLayout row indices. */
export function paperTableRows(): number[] {
  const perField = GENDER_LEVELS.length + 1;
  return FIELD_LEVELS.flatMap((_, f) =>
    Array.from({ length: perField }, (_, g) => (f + 1) * perField + g)
  );
}
