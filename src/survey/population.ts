/**
 * The simulated finite population of the survey paper's §4.1 (SPEC §9.4): the field × gender
 * cells and mean salaries the paper prints for its population (Tables 4–5, "Pop."), lognormal
 * salaries, and a size measure π correlated with salary that drives the informative PPS sample
 * of {@linkcode ppsSample}.
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { proportionalAllocation } from "./allocation.ts";
import { paperPopulationCells } from "./paper_tables_4_5.ts";
import { GENDER_LEVELS } from "./sdr_tables.ts";
import { checkNonNegativeFinite } from "../random/arguments.ts";

/**
 * A finite population, one entry per unit in every array. Units are ordered by field, then
 * gender, so each field (stratum) is a contiguous block.
 */
export interface Population {
  readonly size: number;
  /** Field index into `FIELD_LEVELS`. */
  readonly field: Int32Array;
  /** Gender index into `GENDER_LEVELS`. */
  readonly gender: Int32Array;
  readonly salary: Float64Array;
  /** The size measure π_i of the PPS design (proportional to the selection probability). */
  readonly sizeMeasure: Float64Array;
}

/** Settings of {@linkcode simulatePopulation}; the defaults are the paper's §4.1. */
export interface PopulationOptions {
  /** N, the number of units (default 100,000). */
  readonly size?: number;
  /** The standard deviation of log-salary within a cell (default 0.4). */
  readonly salarySdlog?: number;
  /** The standard deviation of the noise in log π_i = log y_i + noise_i (default 0.4). */
  readonly selectionSdlog?: number;
}

/**
 * Simulates the population of the survey paper's §4.1 (SPEC §9.4) as its Tables 4–5 print it.
 *
 * Cell sizes N_fg are N·c_fg/100,000 rounded by {@linkcode proportionalAllocation} (largest
 * remainders, so Σ N_fg = N), with c_fg the printed population counts (Σ c_fg = 100,000, so at
 * the default N they are the printed counts). For the units of cell (f, g), in order: first
 * every log y_i = σ_y·Z₁ (Z₁ standard normal from `rng`), then the cell's salaries are scaled
 * so their mean is the printed mean μ_fg exactly (a lognormal with σ_y = 0.4 whose location is
 * log μ_fg − σ_y²/2 + O(N_fg^{−1/2})), then log π_i = log y_i + σ_π·Z₂ unit by unit. So the
 * population values of every interior cell are the paper's, and the margins match its printed
 * margins to their rounding.
 *
 * @param rng The random stream.
 * @param options Population size and the two log-scale standard deviations.
 * @returns The population, ordered by field then gender.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "../random/rng.ts";
 * import { simulatePopulation } from "./population.ts";
 * const population = simulatePopulation(new Rng(1), { size: 500 });
 * assert.equal(population.salary.length, 500);
 * assert.ok(population.sizeMeasure.every((pi) => pi > 0));
 * ```
 */
export function simulatePopulation(rng: Rng, options: PopulationOptions = {}): Population {
  const size = options.size ?? 100_000;
  const salarySdlog = options.salarySdlog ?? 0.4;
  const selectionSdlog = options.selectionSdlog ?? 0.4;
  if (!Number.isSafeInteger(size) || size < 1) {
    throw new RangeError(`Invalid size: must be a positive integer: size=${size}`);
  }
  checkNonNegativeFinite("salarySdlog", salarySdlog);
  checkNonNegativeFinite("selectionSdlog", selectionSdlog);
  const printed = paperPopulationCells();
  const cellSizes = proportionalAllocation(Float64Array.from(printed.counts), size);
  const field = new Int32Array(size);
  const gender = new Int32Array(size);
  const salary = new Float64Array(size);
  const sizeMeasure = new Float64Array(size);
  const genders = GENDER_LEVELS.length;
  let start = 0;
  for (let cell = 0; cell < cellSizes.length; cell++) {
    const end = start + cellSizes[cell];
    let sum = 0;
    for (let i = start; i < end; i++) {
      field[i] = Math.floor(cell / genders);
      gender[i] = cell % genders;
      salary[i] = Math.exp(salarySdlog * rng.normal());
      sum += salary[i];
    }
    const scale = printed.means[cell] * cellSizes[cell] / sum;
    for (let i = start; i < end; i++) {
      salary[i] *= scale;
      sizeMeasure[i] = salary[i] * Math.exp(selectionSdlog * rng.normal());
    }
    start = end;
  }
  return { size, field, gender, salary, sizeMeasure };
}
