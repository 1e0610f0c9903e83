/**
 * The R-checked utility reference (Rscript test/reference/utility_reference.R, R's lm and glm),
 * shared by the GLM fit, utility report and report page tests: one CSV of a confidential dataset
 * (dataset = 0) and m = 2 synthetic versions of it (dataset = 1, 2), and R's answers on it.
 *
 * @module
 */
import { parseCsv } from "../../src/data/csv.ts";
import type { Dataset } from "../../src/data/dataset.ts";

/** R's answers: test/reference/utility_reference_expected.json. */
export const UTILITY_EXPECTED = new URL(
  "../reference/utility_reference_expected.json",
  import.meta.url,
);

/** The reference CSV, every dataset of it told apart by its `dataset` column. */
export async function readUtilityReference(): Promise<Dataset> {
  const data = new URL("../reference/utility_reference_data.csv", import.meta.url);
  return parseCsv(await Deno.readTextFile(data), "utility_reference_data.csv");
}
