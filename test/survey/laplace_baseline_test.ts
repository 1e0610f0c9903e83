import assert from "node:assert/strict";
import { Rng } from "../../src/random/rng.ts";
import { laplaceTable, seededRelease } from "../../src/survey/laplace_baseline.ts";
import { simulatePopulation } from "../../src/survey/population.ts";
import { ppsSample, sampleDataset } from "../../src/survey/pps_sample.ts";
import { cellLayout, surveyTable, type TableInput, tableInput } from "../../src/survey/tables.ts";
import { withoutUnit } from "./_without_unit.ts";

const SMALL: TableInput = {
  y: Float64Array.of(10, 20, 30, 40, 50, 60),
  weight: Float64Array.of(1, 3, 2, 2, 5, 1),
  strata: Int32Array.of(0, 0, 0, 1, 1, 1),
  by: [
    { name: "f", codes: Int32Array.of(0, 0, 1, 1, 1, 0), levels: ["a", "b"] },
    { name: "g", codes: Int32Array.of(0, 1, 0, 1, 0, 1), levels: ["m", "w"] },
  ],
};

/**
 * Brute force: the largest change of any cell's count and mean when one unit is removed (an
 * emptied cell's mean is 0), over every unit, recomputing the table without it.
 */
function removalSensitivities(input: TableInput): { count: number; mean: number } {
  const full = surveyTable(input);
  const meanOf = (v: number) => Number.isNaN(v) ? 0 : v;
  let count = 0;
  let mean = 0;
  for (let j = 0; j < input.y.length; j++) {
    const without = surveyTable(withoutUnit(input, j));
    full.count.forEach((c, r) => count = Math.max(count, Math.abs(c - without.count[r])));
    full.mean.forEach((m, r) =>
      mean = Math.max(mean, Math.abs(meanOf(m) - meanOf(without.mean[r])))
    );
  }
  return { count, mean };
}

Deno.test("`laplaceTable()` uses the largest removal sensitivities (add/remove) and the 16-way split", () => {
  const calls: [number, number][] = [];
  const table = laplaceTable(SMALL, {
    epsilon: 8,
    rng: new Rng(1),
    release: (value, sensitivity, epsilon) => {
      calls.push([sensitivity, epsilon]);
      return value;
    },
  });
  // Removing the unit of weight 5 moves its cells' counts by 5, the largest count change.
  assert.equal(table.countSensitivity, 5);
  const brute = removalSensitivities(SMALL);
  assert.equal(brute.count, 5);
  assert.ok(Math.abs(table.meanSensitivity - brute.mean) < 1e-9 * brute.mean);
  assert.equal(table.epsilonPoint, 0.5);
  assert.equal(table.epsilonReplicate, 0.05);
  const points = calls.slice(0, 18);
  assert.ok(points.every(([, eps]) => eps === 0.5));
  const replicateCalls = calls.slice(18);
  assert.ok(replicateCalls.length > 0 && replicateCalls.length <= 10 * 2 * 9);
  // Every replicate's noise uses ε_rep and at least the full sample's sensitivity.
  assert.ok(replicateCalls.every(([sensitivity, eps]) => eps === 0.05 && sensitivity >= 5));
  const exact = surveyTable(SMALL);
  assert.deepEqual(table.count, exact.count);
  table.mean.forEach((m, r) => assert.ok(Math.abs(m - exact.mean[r]) < 1e-9));
});

Deno.test("`laplaceTable()` replicate SEs without noise track the Taylor SEs (many replicates)", () => {
  const rng = new Rng(7);
  const sample = ppsSample(simulatePopulation(rng, { size: 20_000 }), 1000, rng);
  const input = tableInput(sampleDataset(sample), {
    y: "salary",
    weight: "w",
    strata: "field",
    by: ["field", "gender"],
  });
  const noiseless = laplaceTable(input, {
    epsilon: 1,
    replicates: 400,
    rng: new Rng(3),
    release: (value) => value,
  });
  const taylor = surveyTable(input);
  const units = new Int32Array(taylor.count.length);
  const layout = cellLayout(input.by);
  layout.rows.forEach((r) => units[r]++);
  for (let r = 0; r < taylor.count.length; r++) {
    const count = noiseless.countSE[r] / taylor.countSE[r];
    assert.ok(count > 0.8 && count < 1.25, `row ${r}: count SE replicate/Taylor = ${count}`);
    if (units[r] < 80) continue; // ratio means of small domains are too non-linear for halves
    const mean = noiseless.meanSE[r] / taylor.meanSE[r];
    assert.ok(mean > 0.8 && mean < 1.25, `row ${r}: mean SE replicate/Taylor = ${mean}`);
  }
});

Deno.test("`laplaceTable()` with seeded noise is reproducible and noisier at smaller ε", () => {
  const run = (epsilon: number) =>
    laplaceTable(SMALL, { epsilon, rng: new Rng(5), release: seededRelease(new Rng(6)) });
  assert.deepEqual(run(8), run(8));
  const spread = (t: ReturnType<typeof run>) =>
    t.count.reduce((s, c, r) => s + Math.abs(c - surveyTable(SMALL).count[r]), 0);
  assert.ok(spread(run(0.5)) > spread(run(80)));
  assert.throws(() => run(0), /epsilon/);
});

Deno.test("`laplaceTable()` releases an empty cell's mean as noise around 0, never as a marker", () => {
  const withEmpty: TableInput = {
    ...SMALL,
    by: [{ ...SMALL.by[0], levels: ["a", "b", "c"] }, SMALL.by[1]],
  };
  const noiseless = laplaceTable(withEmpty, { epsilon: 8, rng: new Rng(1), release: (v) => v });
  const empty = noiseless.labels[0].flatMap((label, r) => label === "c" ? [r] : []);
  assert.equal(empty.length, 3);
  for (const r of empty) assert.deepEqual([noiseless.count[r], noiseless.mean[r]], [0, 0]);
  const noisy = laplaceTable(withEmpty, {
    epsilon: 8,
    rng: new Rng(1),
    release: seededRelease(new Rng(2)),
  });
  assert.ok([...noisy.mean, ...noisy.meanSE, ...noisy.count].every(Number.isFinite));
  assert.ok(empty.every((r) => noisy.mean[r] !== 0), "noised like every other cell");
});
