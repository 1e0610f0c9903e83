/**
 * Bootstrap percentile intervals of a sample's summary statistics (Efron & Tibshirani 1993,
 * §13.3): resample the n values with replacement B times, compute the mean, the median and the
 * 15th and 90th percentiles (type-7, as `utility.ts`) of each resample, and take the type-7 2.5%
 * and 97.5% quantiles over the resamples. Used by the re-weighting study for "95% confidence
 * intervals" computed from one dataset, confidential or synthetic.
 *
 * A resample is held as counts over the sample's distinct values, so its order statistics come
 * from a cumulative walk in O(n + K) (K distinct values) instead of a sort.
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import type { SampleSummary } from "./sample_summary.ts";
import { quantile } from "./quantile.ts";

/** 95% bootstrap percentile intervals of the four statistics of {@linkcode SampleSummary}. */
export type SummaryIntervals = Readonly<Record<keyof SampleSummary, [number, number]>>;

const STATISTICS = ["mean", "median", "q15", "q90"] as const;
const PROBABILITIES = { median: 0.5, q15: 0.15, q90: 0.9 } as const;

/**
 * The bootstrap percentile 95% intervals of the mean, median, 15th and 90th percentiles.
 *
 * @param values The sample (finite, at least two values).
 * @param rng The resampling stream (seeded in studies).
 * @param resamples B (default 1000).
 * @returns For each statistic, [2.5%, 97.5%] quantiles of its bootstrap distribution.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "../random/rng.ts";
 * import { bootstrapIntervals } from "./bootstrap.ts";
 * const values = Float64Array.from({ length: 400 }, (_, i) => i % 100);
 * const { mean } = bootstrapIntervals(values, new Rng(1));
 * assert.ok(mean[0] < 49.5 && mean[1] > 49.5);
 * ```
 */
export function bootstrapIntervals(
  values: Float64Array,
  rng: Rng,
  resamples = 1000,
): SummaryIntervals {
  const n = values.length;
  if (n < 2) throw new RangeError(`Invalid values: need at least two: got ${n}`);
  if (!(Number.isInteger(resamples) && resamples >= 2)) {
    throw new RangeError(`Invalid resamples: must be an integer ≥ 2: resamples=${resamples}`);
  }
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(values[i])) {
      throw new RangeError(`Invalid values: entry ${i} is not finite`);
    }
  }
  const sorted = Float64Array.from(values).sort();
  const distinct: number[] = [];
  for (let i = 0; i < n; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) distinct.push(sorted[i]);
  const index = new Int32Array(n);
  for (let i = 0, j = 0; i < n; i++) {
    while (distinct[j] !== sorted[i]) j++;
    index[i] = j;
  }
  const k = distinct.length;
  const counts = new Int32Array(k);
  // Type-7 positions (0-based order statistics lo and lo + 1, weight h) of each quantile.
  const positions = Object.fromEntries(
    Object.entries(PROBABILITIES).map(([stat, p]) => {
      const at = (n - 1) * p;
      const lo = Math.floor(at);
      return [stat, { lo, h: at - lo }];
    }),
  ) as Record<keyof typeof PROBABILITIES, { lo: number; h: number }>;
  const draws = Object.fromEntries(STATISTICS.map((s) => [s, new Float64Array(resamples)]));
  /** The value at 0-based order statistic `at` of the resample in `counts`. */
  const orderStatistic = (at: number): number => {
    let seen = 0;
    for (let j = 0; j < k; j++) {
      seen += counts[j];
      if (seen > at) return distinct[j];
    }
    return distinct[k - 1];
  };
  for (let b = 0; b < resamples; b++) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[index[Math.floor(rng.uniform() * n)]]++;
    let sum = 0;
    for (let j = 0; j < k; j++) sum += counts[j] * distinct[j];
    draws.mean[b] = sum / n;
    for (const stat of ["median", "q15", "q90"] as const) {
      const { lo, h } = positions[stat];
      const below = orderStatistic(lo);
      draws[stat][b] = h === 0 ? below : below + h * (orderStatistic(lo + 1) - below);
    }
  }
  return Object.fromEntries(
    STATISTICS.map((stat) => {
      const d = draws[stat].sort();
      return [stat, [quantile(d, 0.025), quantile(d, 0.975)]];
    }),
  ) as unknown as SummaryIntervals;
}
