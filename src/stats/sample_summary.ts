/**
 * The four statistics the papers compare a synthetic sample with the confidential one by (SPEC
 * §7; vector-weighted paper, Tables 1–2): mean, median and the 15th and 90th percentiles.
 *
 * @module
 */
import { quantile } from "./quantile.ts";

/** Mean, median and the 15th and 90th percentiles (type-7 quantiles) of one sample. */
export interface SampleSummary {
  /** Arithmetic mean. */
  readonly mean: number;
  /** Type-7 quantile at 0.5. */
  readonly median: number;
  /** Type-7 quantile at 0.15. */
  readonly q15: number;
  /** Type-7 quantile at 0.9. */
  readonly q90: number;
}

/**
 * The {@linkcode SampleSummary} of a sorted sample (the mean summed left to right).
 *
 * @param sorted The sample, sorted ascending (at least one value).
 * @returns Its mean, median, 15th and 90th percentiles.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sampleSummary } from "./sample_summary.ts";
 * assert.deepEqual(sampleSummary(Float64Array.of(1, 2, 3, 4)), {
 *   mean: 2.5, median: 2.5, q15: 1.45, q90: 3.7,
 * });
 * ```
 */
export function sampleSummary(sorted: Float64Array): SampleSummary {
  let sum = 0;
  for (let i = 0; i < sorted.length; i++) sum += sorted[i];
  return {
    mean: sum / sorted.length,
    median: quantile(sorted, 0.5),
    q15: quantile(sorted, 0.15),
    q90: quantile(sorted, 0.9),
  };
}
