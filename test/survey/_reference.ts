/**
 * The R-checked survey tables (Rscript test/reference/survey_tables.R, R 4.2.2, survey 4.1.1) on
 * test/reference/survey_sample.csv, shared by the library, command, API and scale tests; with the
 * sample's slice, public field sizes and the FBS table settings those tests use.
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

/** The R-checked survey sample, as CSV text. */
export const SAMPLE_CSV = await Deno.readTextFile(new URL("survey_sample.csv", REFERENCE));

/** Every fifth unit of the sample (200 units, every field and gender present), as CSV text. */
export const SLICE_CSV =
  SAMPLE_CSV.trim().split("\n").filter((_, i) => i === 0 || i % 5 === 1).join("\n") + "\n";

/** Public population sizes of the eight fields (the golden run's). */
export const FIELD_SIZES = Object.fromEntries(
  Array.from({ length: 8 }, (_, h) => [`field${h + 1}`, 12_000 + 500 * h]),
);

/** The FBS table settings of the tests: ε = 99, m = 2, 4 chains of 300 warm-up + 4000 draws. */
export const FBS_QUICK = {
  method: "fbs",
  epsilon: 99,
  m: 2,
  draws: 4000,
  chains: 4,
  warmup: 300,
} as const;

/** The keys of a released table's JSON rows (cell, mean and its interval). */
export const MEAN_ROW_KEYS = [
  "field",
  "gender",
  "mean",
  "meanSE",
  "meanDf",
  "meanLower",
  "meanUpper",
];
