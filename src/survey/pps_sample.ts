/**
 * Stratified probability-proportional-to-size sampling with replacement (the survey paper's §4.1,
 * footnote 5; SPEC §9.4): strata are fields, π_i is the size measure, and n is allocated to the
 * strata in proportion to their sizes.
 *
 * @module
 */
import type { Dataset } from "../data/dataset.ts";
import type { Rng } from "../random/rng.ts";
import { proportionalAllocation } from "./allocation.ts";
import type { Population } from "./population.ts";
import { FIELD_LEVELS, GENDER_LEVELS } from "./sdr_tables.ts";

/** A with-replacement sample: one entry per draw (a unit drawn twice appears twice). */
export interface SurveySample {
  readonly n: number;
  /** The population index of each draw. */
  readonly unit: Int32Array;
  readonly field: Int32Array;
  readonly gender: Int32Array;
  readonly salary: Float64Array;
  /** w_i = 1/π*_i with π*_i = n_h·π_i/Σ_{j∈h} π_j. */
  readonly weight: Float64Array;
}

/**
 * Draws a stratified PPS sample with replacement (Hansen–Hurwitz design; the survey paper's
 * §4.1, SPEC §9.4). Strata are the fields; the stratum sample sizes n_h are n·N_h/N rounded by
 * {@linkcode proportionalAllocation}. In stratum h (in field order) each of the n_h draws takes
 * unit i with probability p_i = π_i/Σ_{j∈h} π_j, by inversion of the cumulative sums of π over the
 * stratum's units (population order) at U·Σ_{j∈h} π_j, U = `rng.uniform()`. The weight of a draw
 * is w_i = 1/π*_i with π*_i = n_h·p_i, the paper's approximation of the inclusion probability
 * 1 − (1 − p_i)^{n_h} (footnote 5), for which Σ_{i∈sample} w_i·y_i is the Hansen–Hurwitz estimate
 * of the population total.
 *
 * @param population The population (field is the stratum, sizeMeasure is π).
 * @param n The total sample size (a positive integer).
 * @param rng The random stream.
 * @returns The sample, ordered by stratum and, within a stratum, by draw.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "../random/rng.ts";
 * import { simulatePopulation } from "./population.ts";
 * import { ppsSample } from "./pps_sample.ts";
 * const population = simulatePopulation(new Rng(1), { size: 2000 });
 * const sample = ppsSample(population, 100, new Rng(2));
 * assert.equal(sample.n, 100);
 * ```
 */
export function ppsSample(population: Population, n: number, rng: Rng): SurveySample {
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new RangeError(`Invalid n: must be a positive integer: n=${n}`);
  }
  const { field, sizeMeasure } = population;
  const strata = FIELD_LEVELS.length;
  const stratumSizes = new Int32Array(strata);
  for (let i = 0; i < population.size; i++) stratumSizes[field[i]]++;
  const allocation = proportionalAllocation(stratumSizes, n);
  const start = new Int32Array(strata + 1);
  for (let h = 0; h < strata; h++) start[h + 1] = start[h] + stratumSizes[h];
  const members = new Int32Array(population.size);
  const next = start.slice(0, strata);
  for (let i = 0; i < population.size; i++) members[next[field[i]]++] = i;
  const cumulative = new Float64Array(population.size);
  for (let h = 0; h < strata; h++) {
    let sum = 0;
    for (let k = start[h]; k < start[h + 1]; k++) {
      sum += sizeMeasure[members[k]];
      cumulative[k] = sum;
    }
  }
  const unit = new Int32Array(n);
  const weight = new Float64Array(n);
  let d = 0;
  for (let h = 0; h < strata; h++) {
    const lo = start[h];
    const hi = start[h + 1];
    const total = lo < hi ? cumulative[hi - 1] : 0;
    for (let draw = 0; draw < allocation[h]; draw++, d++) {
      const target = rng.uniform() * total;
      let a = lo;
      let b = hi - 1;
      while (a < b) {
        const mid = (a + b) >>> 1;
        if (cumulative[mid] > target) b = mid;
        else a = mid + 1;
      }
      const i = members[a];
      unit[d] = i;
      weight[d] = total / (allocation[h] * sizeMeasure[i]);
    }
  }
  return {
    n,
    unit,
    field: unit.map((i) => field[i]),
    gender: unit.map((i) => population.gender[i]),
    salary: Float64Array.from(unit, (i) => population.salary[i]),
    weight,
  };
}

/**
 * The sample as a {@linkcode Dataset} with columns `field`, `gender` (categorical, all levels of
 * `FIELD_LEVELS` and `GENDER_LEVELS` in that order), `salary` and `w` (numeric): the input of
 * the survey tables and of `deno task tabulate`.
 *
 * @param sample The sample.
 * @param source The name used in error messages (default "pps sample").
 * @returns The dataset.
 */
export function sampleDataset(sample: SurveySample, source = "pps sample"): Dataset {
  return {
    source,
    n: sample.n,
    names: ["field", "gender", "salary", "w"],
    columns: new Map([
      ["field", { kind: "categorical", codes: sample.field, levels: FIELD_LEVELS }],
      ["gender", { kind: "categorical", codes: sample.gender, levels: GENDER_LEVELS }],
      ["salary", { kind: "numeric", values: sample.salary }],
      ["w", { kind: "numeric", values: sample.weight }],
    ]),
  };
}
