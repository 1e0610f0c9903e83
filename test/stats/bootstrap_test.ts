import assert from "node:assert/strict";
import { Rng } from "../../src/random/rng.ts";
import { bootstrapIntervals } from "../../src/stats/bootstrap.ts";
import { quantile } from "../../src/stats/quantile.ts";
import { utilityOf } from "../../src/synthesis/utility.ts";

Deno.test("`bootstrapIntervals()` equals resampling and summarising each resample directly", () => {
  const data = new Rng(7);
  const values = Float64Array.from({ length: 301 }, () => Math.floor(60 * data.uniform() ** 2));
  const resamples = 200;
  const ours = bootstrapIntervals(values, new Rng(11), resamples);
  // The same resamples drawn by hand: positions into the sorted sample, as the counts are.
  const sorted = Float64Array.from(values).sort();
  const rng = new Rng(11);
  const stats = {
    mean: [] as number[],
    median: [] as number[],
    q15: [] as number[],
    q90: [] as number[],
  };
  for (let b = 0; b < resamples; b++) {
    const resample = Float64Array.from(
      sorted,
      () => sorted[Math.floor(rng.uniform() * sorted.length)],
    );
    const s = utilityOf(resample, resample).confidential;
    for (const key of ["mean", "median", "q15", "q90"] as const) stats[key].push(s[key]);
  }
  for (const key of ["mean", "median", "q15", "q90"] as const) {
    const d = Float64Array.from(stats[key]).sort();
    const expected = [quantile(d, 0.025), quantile(d, 0.975)];
    for (const e of [0, 1]) {
      assert.ok(Math.abs(ours[key][e] - expected[e]) < 1e-9, `${key}: ${ours[key]} vs ${expected}`);
    }
  }
});

Deno.test("`bootstrapIntervals()` of a mean is about ±1.96 standard errors wide", () => {
  const rng = new Rng(3);
  const values = Float64Array.from({ length: 2000 }, () => rng.normal());
  const { mean } = bootstrapIntervals(values, new Rng(4));
  const width = mean[1] - mean[0];
  assert.ok(Math.abs(width / (2 * 1.96 / Math.sqrt(2000)) - 1) < 0.1, `width ${width}`);
  assert.throws(() => bootstrapIntervals(new Float64Array([1]), new Rng(1)), RangeError);
  assert.throws(() => bootstrapIntervals(new Float64Array([1, NaN]), new Rng(1)), RangeError);
});
