/**
 * The simulated finite population of the survey paper's §4.1 (SPEC §9.4): field × gender cells
 * in the SDR's proportions, lognormal salaries, and a size measure π correlated with salary
 * that drives the informative PPS sample of {@linkcode ppsSample}.
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { proportionalAllocation } from "./pps_sample.ts";
import { GENDER_LEVELS, SDR_SAMPLE_COUNTS, SDR_SAMPLE_MEAN_SALARIES } from "./sdr_tables.ts";

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

function checkSdlog(name: string, value: number): void {
  if (!(value >= 0) || !Number.isFinite(value)) {
    throw new RangeError(`Invalid ${name}: must be non-negative and finite: ${name}=${value}`);
  }
}

/**
 * Simulates the population of the survey paper's §4.1 (SPEC §9.4).
 *
 * Cell sizes N_fg are N·c_fg/Σc rounded by {@linkcode proportionalAllocation} (largest
 * remainders, so Σ N_fg = N), with c_fg the SDR field × gender counts of Table 2's Sample
 * column. For unit i of cell (f, g), in order: log y_i = log μ_fg + σ_y·Z₁ with μ_fg the cell's
 * mean salary of Table 3's Sample column, then log π_i = log y_i + σ_π·Z₂, with Z₁, Z₂ standard
 * normal draws from `rng`.
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
  checkSdlog("salarySdlog", salarySdlog);
  checkSdlog("selectionSdlog", selectionSdlog);
  const cellSizes = proportionalAllocation(SDR_SAMPLE_COUNTS.cells, size);
  const field = new Int32Array(size);
  const gender = new Int32Array(size);
  const salary = new Float64Array(size);
  const sizeMeasure = new Float64Array(size);
  const genders = GENDER_LEVELS.length;
  let i = 0;
  for (let cell = 0; cell < cellSizes.length; cell++) {
    const meanlog = Math.log(SDR_SAMPLE_MEAN_SALARIES.cells[cell]);
    for (let k = 0; k < cellSizes[cell]; k++, i++) {
      field[i] = Math.floor(cell / genders);
      gender[i] = cell % genders;
      const logSalary = meanlog + salarySdlog * rng.normal();
      salary[i] = Math.exp(logSalary);
      sizeMeasure[i] = Math.exp(logSalary + selectionSdlog * rng.normal());
    }
  }
  return { size, field, gender, salary, sizeMeasure };
}
