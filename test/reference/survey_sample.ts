/**
 * Writes test/reference/survey_sample.csv, the recorded stratified PPS sample (n = 1000) from
 * the simulated population of SPEC §9.4 that test/reference/survey_tables.R tabulates with R's
 * `survey` package:
 *
 *     deno run --allow-write test/reference/survey_sample.ts
 *
 * Population: simulatePopulation(new Rng(SEED).split(0)); sample: ppsSample(population, 1000,
 * new Rng(SEED).split(1)). test/survey/tables_test.ts checks that the committed file is exactly
 * what this produces.
 *
 * @module
 */
import { datasetColumns, formatCsv } from "../../src/data/csv.ts";
import { Rng } from "../../src/random/rng.ts";
import { ppsSample, sampleDataset } from "../../src/survey/pps_sample.ts";
import { simulatePopulation } from "../../src/survey/population.ts";

/** The seed of the recorded sample. */
export const SEED = 20240612;

/** The recorded sample as CSV text (field, gender, salary, w; numbers in shortest round-trip form). */
export function referenceSampleCsv(): string {
  const rng = new Rng(SEED);
  const population = simulatePopulation(rng.split(0));
  return formatCsv(datasetColumns(sampleDataset(ppsSample(population, 1000, rng.split(1)))));
}

if (import.meta.main) {
  await Deno.writeTextFile(
    new URL("survey_sample.csv", import.meta.url),
    referenceSampleCsv(),
  );
}
