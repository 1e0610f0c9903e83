import assert from "node:assert/strict";
import { Rng } from "../../src/random/rng.ts";
import { correlation } from "../../src/stats/correlation.ts";
import { PAPER_TABLES_4_5, paperPopulationCells } from "../../src/survey/paper_tables_4_5.ts";
import { simulatePopulation } from "../../src/survey/population.ts";
import { proportionalAllocation } from "../../src/survey/allocation.ts";
import { FIELD_LEVELS, GENDER_LEVELS } from "../../src/survey/sdr_tables.ts";

const population = simulatePopulation(new Rng(7));
const CELLS = FIELD_LEVELS.length * GENDER_LEVELS.length;
const PRINTED = paperPopulationCells();

Deno.test("Tables 4–5 (Pop.): the printed field totals agree with the printed cells", () => {
  // Counts add up exactly (Σ = 100,000); a field's mean is the count-weighted mean of its two
  // cells to within 1 dollar (each printed number is rounded).
  const { count, mean } = PAPER_TABLES_4_5;
  assert.equal(PRINTED.counts.reduce((s, c) => s + c, 0), 100_000);
  for (let f = 0; f < 8; f++) {
    const [total, male, female] = [count[3 * f][0], count[3 * f + 1][0], count[3 * f + 2][0]];
    assert.equal(male + female, total, `field ${f}`);
    const implied = (male * mean[3 * f + 1][0] + female * mean[3 * f + 2][0]) / total;
    assert.ok(Math.abs(implied - mean[3 * f][0]) < 1, `field ${f}: ${implied}`);
    assert.deepEqual([PRINTED.counts[2 * f], PRINTED.counts[2 * f + 1]], [male, female]);
  }
});

Deno.test("`proportionalAllocation()` rounds by largest remainders to the exact total", () => {
  assert.deepEqual([...proportionalAllocation([1, 1, 1], 10)], [4, 3, 3]);
  // quotas 3.5, 2.1, 1.4: floors 3, 2, 1 and the one missing unit to the largest remainder 0.5
  assert.deepEqual([...proportionalAllocation([0.5, 0.3, 0.2], 7)], [4, 2, 1]);
  assert.deepEqual([...proportionalAllocation([0, 2, 6], 4)], [0, 1, 3]);
  const rng = new Rng(3);
  for (let trial = 0; trial < 50; trial++) {
    const sizes = Array.from({ length: 1 + (rng.nextUint32() % 9) }, () => rng.uniform() * 100);
    const total = rng.nextUint32() % 1000;
    const parts = proportionalAllocation(sizes, total);
    const sum = sizes.reduce((s, v) => s + v, 0);
    assert.equal(parts.reduce((s, v) => s + v, 0), total);
    parts.forEach((part, h) => assert.ok(Math.abs(part - total * sizes[h] / sum) < 1));
  }
  assert.throws(() => proportionalAllocation([1, -1], 3), /sizes\[1\]=-1/);
  assert.throws(() => proportionalAllocation([0, 0], 3), /positive sum/);
  assert.throws(() => proportionalAllocation([1], 2.5), /total=2.5/);
});

Deno.test("`simulatePopulation()` is the paper's printed population: its cell sizes and means", () => {
  assert.equal(population.size, 100_000);
  const sizes = new Float64Array(CELLS);
  const totals = new Float64Array(CELLS);
  let previous = -1;
  for (let i = 0; i < population.size; i++) {
    const cell = population.field[i] * 2 + population.gender[i];
    assert.ok(cell >= previous, "units are ordered by field, then gender");
    previous = cell;
    sizes[cell]++;
    totals[cell] += population.salary[i];
  }
  assert.deepEqual([...sizes], PRINTED.counts);
  totals.forEach((t, cell) => {
    assert.ok(Math.abs(t / sizes[cell] / PRINTED.means[cell] - 1) < 1e-12, `cell ${cell}`);
  });
  // Any other N keeps the printed shares (largest remainders).
  const small = simulatePopulation(new Rng(7), { size: 1000 });
  const smallSizes = new Float64Array(CELLS);
  for (let i = 0; i < small.size; i++) smallSizes[small.field[i] * 2 + small.gender[i]]++;
  smallSizes.forEach((size, cell) => {
    assert.ok(Math.abs(size - PRINTED.counts[cell] / 100) < 1, `cell ${cell}`);
  });
});

Deno.test("`simulatePopulation()`: log-salary has sd 0.4 within a cell and log π − log y ~ N(0, 0.4²)", () => {
  // Per cell, the sample sd of log y within 5 standard errors (≈ 0.4/√(2N_fg)) of 0.4.
  const sum = new Float64Array(CELLS);
  const sumSq = new Float64Array(CELLS);
  const size = new Float64Array(CELLS);
  let noiseSum = 0;
  let noiseSq = 0;
  const logY = new Float64Array(population.size);
  const noise = new Float64Array(population.size);
  for (let i = 0; i < population.size; i++) {
    const cell = population.field[i] * 2 + population.gender[i];
    const l = Math.log(population.salary[i]);
    logY[i] = l;
    sum[cell] += l;
    sumSq[cell] += l * l;
    size[cell]++;
    noise[i] = Math.log(population.sizeMeasure[i]) - l;
    noiseSum += noise[i];
    noiseSq += noise[i] ** 2;
  }
  for (let cell = 0; cell < CELLS; cell++) {
    const mean = sum[cell] / size[cell];
    const sd = Math.sqrt(sumSq[cell] / size[cell] - mean * mean);
    assert.ok(Math.abs(sd - 0.4) < 5 * 0.4 / Math.sqrt(2 * size[cell]), `cell ${cell}: ${sd}`);
    // The location is log μ_fg − 0.4²/2 up to the cell's sampling error.
    const location = Math.log(PRINTED.means[cell]) - 0.08;
    assert.ok(Math.abs(mean - location) < 5 * 0.4 / Math.sqrt(size[cell]), `cell ${cell}: ${mean}`);
  }
  const N = population.size;
  assert.ok(Math.abs(noiseSum / N) < 5 * 0.4 / Math.sqrt(N));
  assert.ok(
    Math.abs(Math.sqrt(noiseSq / N - (noiseSum / N) ** 2) - 0.4) < 5 * 0.4 / Math.sqrt(2 * N),
  );
  assert.ok(Math.abs(correlation(logY, noise)) < 5 / Math.sqrt(N), "the noise is independent of y");
});

Deno.test("`simulatePopulation()`: salary and weight 1/π correlate near the closed form and the paper's −0.57", () => {
  // Closed form for the mixture over cells c (shares p_c, means μ_c, s² = 0.4², location
  // m_c = log μ_c − s²/2): with y = e^{m_c + sZ₁} and 1/π = e^{−m_c − sZ₁ − sZ₂}, E[y/π] = e^{s²/2},
  // E[y] = Σp_c μ_c, E[y²] = Σp_c μ_c² e^{s²}, E[1/π] = Σp_c e^{3s²/2}/μ_c,
  // E[1/π²] = Σp_c e^{5s²}/μ_c².
  const s2 = 0.16;
  let ey = 0;
  let ey2 = 0;
  let ei = 0;
  let ei2 = 0;
  PRINTED.counts.forEach((c, cell) => {
    const p = c / 100_000;
    const mu = PRINTED.means[cell];
    ey += p * mu;
    ey2 += p * mu * mu * Math.exp(s2);
    ei += p * Math.exp(1.5 * s2) / mu;
    ei2 += p * Math.exp(5 * s2) / (mu * mu);
  });
  const closedForm = (Math.exp(s2 / 2) - ey * ei) / Math.sqrt((ey2 - ey * ey) * (ei2 - ei * ei));
  assert.ok(Math.abs(closedForm - -0.582) < 0.001, `closed form ${closedForm}`);
  const observed = correlation(population.salary, population.sizeMeasure.map((pi) => 1 / pi));
  // Over seeds the population correlation has sd about 0.002 (heavy lognormal tails): 0.01 is
  // about 5 sd; the paper reports −0.57 for its population.
  assert.ok(Math.abs(observed - closedForm) < 0.01, `observed ${observed}`);
  assert.ok(Math.abs(observed - -0.57) < 0.02, `observed ${observed}`);
});

Deno.test("`simulatePopulation()` is reproducible from its stream and checks its options", () => {
  const a = simulatePopulation(new Rng(11), { size: 1000 });
  const b = simulatePopulation(new Rng(11), { size: 1000 });
  assert.deepEqual(a.salary, b.salary);
  assert.deepEqual(a.sizeMeasure, b.sizeMeasure);
  const flat = simulatePopulation(new Rng(11), { size: 1000, salarySdlog: 0, selectionSdlog: 0 });
  for (let i = 0; i < flat.size; i++) {
    const cell = flat.field[i] * 2 + flat.gender[i];
    assert.ok(Math.abs(flat.salary[i] / PRINTED.means[cell] - 1) < 1e-15);
    assert.equal(flat.sizeMeasure[i], flat.salary[i]);
  }
  assert.throws(() => simulatePopulation(new Rng(1), { size: 0 }), /size=0/);
  assert.throws(() => simulatePopulation(new Rng(1), { salarySdlog: -1 }), /salarySdlog=-1/);
});
