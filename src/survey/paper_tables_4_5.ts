/**
 * The survey paper's Tables 4 and 5 (Appendix F), as printed: the simulated population's counts
 * and mean salaries of §4.1 (their "Pop." column) beside FBS's and FBP's coverage and mean
 * interval length under repeated sampling. The "Pop." column defines the population of Study 4
 * ({@linkcode paperPopulationCells}); the rest is quoted for comparison only.
 *
 * @module
 */
import { FIELD_LEVELS, GENDER_LEVELS } from "./sdr_tables.ts";
import printed from "./paper_tables_4_5.json" with { type: "json" };

/** One row of the paper's Tables 4–5: population value, then coverage and mean CI length. */
export type PaperRow = readonly [number, number, number, number, number];

/**
 * The survey paper's Table 4 (counts) and Table 5 (mean salaries), m = 3, ε = 10.8, R = 100, as
 * printed: Pop., FBS coverage, FBS mean CI length, FBP coverage, FBP mean CI length for the 24
 * cells Field f total, Male, Female (f = 1…8). Only the Pop. column enters a computation (the
 * population); the coverage and lengths are quoted for comparison. The numbers are data, in
 * `paper_tables_4_5.json`, rows in the paper's order.
 */
export const PAPER_TABLES_4_5: Readonly<Record<"count" | "mean", readonly PaperRow[]>> = Object
  .freeze({ count: paperRows(printed.count), mean: paperRows(printed.mean) });

/** The printed rows as {@link PaperRow}s; a row without its five numbers is an error. */
function paperRows(rows: readonly number[][]): PaperRow[] {
  return rows.map((row, r) => {
    if (row.length !== 5) {
      throw new RangeError(`paper_tables_4_5.json: row ${r} has ${row.length} numbers, not 5`);
    }
    return [row[0], row[1], row[2], row[3], row[4]];
  });
}

/**
 * The population's 16 interior cells as Tables 4–5 print them (field-major, Male then Female,
 * cell f·2 + g): N_fg and the mean salary. The printed field totals are the sums of
 * these counts (Σ = 100,000) and the count-weighted averages of these means.
 */
export function paperPopulationCells(): { readonly counts: number[]; readonly means: number[] } {
  const perField = GENDER_LEVELS.length + 1;
  const interior = (rows: readonly PaperRow[]) =>
    FIELD_LEVELS.flatMap((_, f) => GENDER_LEVELS.map((_, g) => rows[f * perField + 1 + g][0]));
  return { counts: interior(PAPER_TABLES_4_5.count), means: interior(PAPER_TABLES_4_5.mean) };
}
