import assert from "node:assert/strict";
import { numericColumn } from "../../src/data/dataset.ts";
import { Rng } from "../../src/random/rng.ts";
import { proportionalAllocation } from "../../src/survey/allocation.ts";
import { simulatePopulation } from "../../src/survey/population.ts";
import { ppsSample, sampleDataset } from "../../src/survey/pps_sample.ts";
import { FIELD_LEVELS } from "../../src/survey/sdr_tables.ts";
import { correlation } from "../../src/stats/correlation.ts";
import { normalQuantile } from "../../src/stats/student_t.ts";

const H = FIELD_LEVELS.length;

Deno.test("`ppsSample()` allocates n in proportion to the strata and weights w = Σ_h π/(n_h·π_i)", () => {
  const population = simulatePopulation(new Rng(5));
  const sample = ppsSample(population, 1000, new Rng(6));
  const N = new Float64Array(H);
  const totalPi = new Float64Array(H);
  for (let i = 0; i < population.size; i++) {
    N[population.field[i]]++;
    totalPi[population.field[i]] += population.sizeMeasure[i];
  }
  const allocation = proportionalAllocation(N, 1000);
  const drawn = new Int32Array(H);
  sample.field.forEach((h) => drawn[h]++);
  assert.deepEqual(drawn, allocation);
  assert.equal(sample.n, 1000);
  for (let d = 0; d < sample.n; d++) {
    const i = sample.unit[d];
    const h = population.field[i];
    assert.equal(sample.field[d], h);
    assert.equal(sample.gender[d], population.gender[i]);
    assert.equal(sample.salary[d], population.salary[i]);
    const expected = totalPi[h] / (allocation[h] * population.sizeMeasure[i]);
    assert.ok(Math.abs(sample.weight[d] / expected - 1) < 1e-12, `draw ${d}`);
    if (d > 0) assert.ok(sample.field[d] >= sample.field[d - 1], "ordered by stratum");
  }
});

Deno.test("`ppsSample()` selects units with probability π_i/Σ_h π (chi-square, α = 1e-6)", () => {
  // A small population drawn with replacement far beyond its size: 20,000 draws over 200 units.
  // Pearson's X² over all units, df = Σ_h (N_h − 1), against the Wilson–Hilferty upper 1e-6
  // quantile df·(1 − 2/(9df) + z·√(2/(9df)))³.
  const population = simulatePopulation(new Rng(8), { size: 200 });
  const draws = 20_000;
  const sample = ppsSample(population, draws, new Rng(9));
  const observed = new Float64Array(population.size);
  sample.unit.forEach((i) => observed[i]++);
  const N = new Float64Array(H);
  const totalPi = new Float64Array(H);
  for (let i = 0; i < population.size; i++) {
    N[population.field[i]]++;
    totalPi[population.field[i]] += population.sizeMeasure[i];
  }
  const allocation = proportionalAllocation(N, draws);
  let x2 = 0;
  for (let i = 0; i < population.size; i++) {
    const h = population.field[i];
    const expected = allocation[h] * population.sizeMeasure[i] / totalPi[h];
    x2 += (observed[i] - expected) ** 2 / expected;
  }
  const df = population.size - N.filter((n) => n > 0).length;
  const z = normalQuantile(1 - 1e-6);
  const limit = df * (1 - 2 / (9 * df) + z * Math.sqrt(2 / (9 * df))) ** 3;
  assert.ok(x2 < limit, `X² = ${x2}, limit ${limit}, df ${df}`);
  // and it is not suspiciously small either (lower 1e-6 quantile)
  assert.ok(x2 > df * (1 - 2 / (9 * df) - z * Math.sqrt(2 / (9 * df))) ** 3, `X² = ${x2}`);
});

Deno.test("`ppsSample()`: salary and weight correlate near the paper's −0.58 in the sample", () => {
  // Over 40 seeds the sample correlation (n = 1000) has mean −0.568 and sd 0.018; the paper's
  // sample gave −0.58. 0.06 is about 3 sd.
  const population = simulatePopulation(new Rng(20240612).split(0));
  const sample = ppsSample(population, 1000, new Rng(20240612).split(1));
  const r = correlation(sample.salary, sample.weight);
  assert.ok(Math.abs(r - -0.58) < 0.06, `r = ${r}`);
});

Deno.test("`sampleDataset()` exposes the sample as field, gender, salary and w columns", () => {
  const population = simulatePopulation(new Rng(1), { size: 1000 });
  const sample = ppsSample(population, 50, new Rng(2));
  const data = sampleDataset(sample);
  assert.deepEqual(data.names, ["field", "gender", "salary", "w"]);
  assert.equal(data.n, 50);
  assert.deepEqual(numericColumn(data, "w"), sample.weight);
  const field = data.columns.get("field")!;
  assert.equal(field.kind, "categorical");
  assert.throws(() => ppsSample(population, 0, new Rng(2)), /n=0/);
});
