/**
 * The R-checked survey tables (Rscript test/reference/survey_tables.R, R 4.2.2, survey 4.1.1) on
 * test/reference/survey_sample.csv, shared by the library and command tests.
 *
 * @module
 */

/** The folder of the reference files. */
export const REFERENCE = new URL("../reference/", import.meta.url);

/** One cell of R's table: the estimated count and mean, with their standard errors. */
export interface ExpectedCell {
  field: string;
  gender: string;
  count: number;
  countSE: number;
  mean: number;
  meanSE: number;
}

/** R's cells (field × gender, with the margins). */
export const EXPECTED_CELLS: ExpectedCell[] = JSON.parse(
  await Deno.readTextFile(new URL("survey_tables_expected.json", REFERENCE)),
).cells;
