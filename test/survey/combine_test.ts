import assert from "node:assert/strict";
import { combinePartialSynthesis } from "../../src/stats/partial_synthesis.ts";
import { combineTables } from "../../src/survey/combine.ts";
import type { SurveyTable } from "../../src/survey/tables.ts";

// Quantiles from R 4.2.2: sprintf("%.17g", c(qt(0.975, 12.5), qt(0.975, 5.0625), qt(0.95, 12.5),
// qt(0.975, 1), qnorm(0.975)))
const QT_975_12_5 = 2.1691859427125411;
const QT_975_5_0625 = 2.5610657599145581;
const QT_95_12_5 = 1.7763662212470299;
const QT_975_1 = 12.706204736174694;
const QNORM_975 = 1.9599639845400536;

function close(actual: number, expected: number, label: string): void {
  assert.ok(
    Math.abs(actual - expected) <= 1e-12 * Math.max(1, Math.abs(expected)),
    `${label}: ${actual} vs ${expected}`,
  );
}

Deno.test("`combinePartialSynthesis()` follows Appendix A on hand-computed cases", () => {
  // q = 1, 2, 3; u = 0.5 each: q̄ = 2, b = (1 + 0 + 1)/2 = 1, ū = 0.5, T = 1/3 + 1/2 = 5/6,
  // ν = 2·(1 + 0.5/(1/3))² = 2·2.5² = 12.5.
  const a = combinePartialSynthesis([1, 2, 3], [0.5, 0.5, 0.5]);
  assert.equal(a.m, 3);
  close(a.estimate, 2, "q̄");
  close(a.between, 1, "b");
  close(a.within, 0.5, "ū");
  close(a.variance, 5 / 6, "T");
  close(a.se, Math.sqrt(5 / 6), "se");
  close(a.df, 12.5, "ν");
  close(a.lower, 2 - QT_975_12_5 * Math.sqrt(5 / 6), "lower");
  close(a.upper, 2 + QT_975_12_5 * Math.sqrt(5 / 6), "upper");
  const ninety = combinePartialSynthesis([1, 2, 3], [0.5, 0.5, 0.5], 0.9);
  close(ninety.upper, 2 + QT_95_12_5 * Math.sqrt(5 / 6), "90% upper");

  // q = 10, 14; u = 4, 6: q̄ = 12, b = 8, ū = 5, T = 8/2 + 5 = 9, ν = 1·(1 + 5/4)² = 5.0625.
  const b = combinePartialSynthesis(Float64Array.of(10, 14), Float64Array.of(4, 6));
  close(b.variance, 9, "T");
  close(b.df, 5.0625, "ν");
  close(b.lower, 12 - 3 * QT_975_5_0625, "lower");

  // ū = 0: T = b/m = 1, ν = m − 1 = 1.
  const c = combinePartialSynthesis([1, 3], [0, 0]);
  close(c.variance, 1, "T");
  close(c.df, 1, "ν");
  close(c.upper, 2 + QT_975_1, "upper");
});

Deno.test("`combinePartialSynthesis()`: b = 0 (equal estimates, or m = 1) gives ν = ∞ and a normal interval", () => {
  const equal = combinePartialSynthesis([4, 4], [1, 3]);
  assert.equal(equal.between, 0);
  close(equal.variance, 2, "T");
  assert.equal(equal.df, Infinity);
  close(equal.upper, 4 + QNORM_975 * Math.sqrt(2), "upper");
  const single = combinePartialSynthesis([5], [4]);
  assert.equal(single.between, 0);
  assert.equal(single.df, Infinity);
  close(single.se, 2, "se");
  close(single.lower, 5 - 2 * QNORM_975, "lower");
  const degenerate = combinePartialSynthesis([7, 7], [0, 0]);
  assert.equal(degenerate.lower, 7);
  assert.equal(degenerate.upper, 7);
});

Deno.test("`combinePartialSynthesis()` rejects bad input with a named parameter", () => {
  assert.throws(() => combinePartialSynthesis([], []), /m=0/);
  assert.throws(() => combinePartialSynthesis([1, 2], [1]), /length=1, m=2/);
  assert.throws(() => combinePartialSynthesis([1, 2], [1, -1]), /u\[1\]=-1/);
  assert.throws(() => combinePartialSynthesis([1, NaN], [1, 1]), /q\[1\]=NaN/);
  assert.throws(() => combinePartialSynthesis([1, 2], [1, 1], 1), /level=1/);
});

function table(count: number[], countSE: number[], mean: number[], meanSE: number[]): SurveyTable {
  return {
    by: ["a", "b"],
    labels: [["all", "all"], ["all", "p"]],
    count: Float64Array.from(count),
    countSE: Float64Array.from(countSE),
    mean: Float64Array.from(mean),
    meanSE: Float64Array.from(meanSE),
  };
}

Deno.test("`combineTables()` combines every cell's count and mean; an empty cell stays NaN", () => {
  const tables = [
    table([10, 1], [2, 0.5], [1, NaN], [0.1, NaN]),
    table([14, 3], [Math.sqrt(6), 0.5], [2, 5], [0.2, 0.3]),
  ];
  const combined = combineTables(tables);
  assert.equal(combined.m, 2);
  assert.deepEqual(combined.labels, tables[0].labels);
  const cell = combinePartialSynthesis([10, 14], [4, 6]);
  close(combined.count[0], cell.estimate, "count");
  close(combined.countSE[0], cell.se, "countSE");
  close(combined.countDf[0], 5.0625, "countDf");
  close(combined.countLower[0], cell.lower, "countLower");
  const mean = combinePartialSynthesis([1, 2], [0.01, 0.04]);
  close(combined.meanUpper[0], mean.upper, "meanUpper");
  close(combined.count[1], 2, "count of the second cell");
  assert.ok(Number.isNaN(combined.mean[1]) && Number.isNaN(combined.meanSE[1]));
  assert.ok(Number.isNaN(combined.meanLower[1]));
  const other = { ...tables[1], labels: [["all", "all"], ["all", "q"]] as const };
  assert.throws(() => combineTables([tables[0], other]), /table 1 has different/);
  assert.throws(() => combineTables([]), /m=0/);
});
