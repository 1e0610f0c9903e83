import assert from "node:assert/strict";
import { Rng } from "../../src/random/rng.ts";
import {
  bootstrapStandardError,
  inInterval,
  Judge,
  monteCarloInterval,
  quantileStandardError,
  verdict,
  verdictTable,
  verdictText,
  wilsonInterval,
  withinMonteCarloError,
} from "../../src/studies/verdict.ts";

Deno.test("`verdictTable()` lists every row under the four columns", () => {
  const table = verdictTable([
    verdict({ quantity: "median", paper: "[96.0, 101.0]", ours: "[95.5, 100.0]" }, Judge.agrees()),
    verdict({ quantity: "k", paper: "0.95", ours: "1" }, Judge.differs("k = 1 was tried first")),
  ]);
  const lines = table.split("\n");
  assert.equal(lines[0], "| paper reports | paper | ppsynth | verdict |");
  assert.equal(lines.length, 4);
  assert.equal(lines[3], "| k | 0.95 | 1 | differs: k = 1 was tried first |");
  assert.throws(() => verdictTable([]), RangeError);
});

Deno.test("`Judge.within()` agrees exactly when the paper's number lies in our interval, and says so", () => {
  const interval = monteCarloInterval(10, 0.1); // 10 ± 2·√2·0.1
  assert.deepEqual(Judge.within(10.28, interval, "far"), Judge.agrees(interval, 10.28));
  const far = Judge.within(10.29, interval, "far");
  assert.equal(far.status, "differs");
  assert.deepEqual([far.interval, far.paperValue], [interval, 10.29]);
  // The interval and withinMonteCarloError decide alike, at and beyond the edge.
  for (const paper of [9.7, 9.72, 10, 10.28, 10.3]) {
    assert.equal(inInterval(paper, interval), withinMonteCarloError(10, paper, 0.1), `${paper}`);
  }
  assert.equal(verdictText(Judge.agrees()), "agrees within Monte Carlo error");
  assert.equal(verdictText(Judge.agrees(null, null, "same order")), "agrees: same order");
  assert.equal(verdictText(Judge.byConstruction("a setting")), "agrees by construction: a setting");
  assert.equal(
    verdictText(Judge.tie("z = 1.1")),
    "agrees: a tie within Monte Carlo error (z = 1.1)",
  );
});

Deno.test("`withinMonteCarloError()` allows z·√2 standard errors plus half the rounding", () => {
  assert.equal(withinMonteCarloError(1.28, 1, 0.1), true); // 0.28 ≤ 0.283
  assert.equal(withinMonteCarloError(1.29, 1, 0.1), false);
  assert.equal(withinMonteCarloError(1.05, 1, 0, { rounding: 0.1 }), true);
  assert.equal(withinMonteCarloError(1.06, 1, 0, { rounding: 0.1 }), false);
  assert.throws(() => withinMonteCarloError(1, 1, NaN), RangeError);
});

Deno.test("`bootstrapStandardError()` is seeded and near the textbook error of a mean", () => {
  const values = Array.from({ length: 200 }, (_, i) => (i * 37) % 101);
  const mean = (x: Float64Array) => x.reduce((s, v) => s + v, 0) / x.length;
  const a = bootstrapStandardError(values, mean);
  assert.equal(bootstrapStandardError(values, mean), a);
  assert.notEqual(bootstrapStandardError(values, mean, { seed: 2 }), a);
  const m = mean(Float64Array.from(values));
  const sd = Math.sqrt(values.reduce((s, v) => s + (v - m) ** 2, 0) / values.length);
  assert.ok(Math.abs(a / (sd / Math.sqrt(values.length)) - 1) < 0.1, `se = ${a}`);
  assert.throws(() => bootstrapStandardError([1], mean), RangeError);
});

Deno.test("`wilsonInterval()` brackets k/R and stays in [0, 1]", () => {
  const [lo, hi] = wilsonInterval(50, 100);
  assert.ok(lo < 0.5 && hi > 0.5 && Math.abs(hi - lo - 0.192) < 0.002);
  assert.deepEqual(wilsonInterval(100, 100).map((v) => v <= 1), [true, true]);
  assert.equal(wilsonInterval(100, 100)[1], 1);
  assert.throws(() => wilsonInterval(3, 2), RangeError);
});

Deno.test("`quantileStandardError()` takes the larger of the order-statistic and normal errors", () => {
  // Normal-looking values: both estimates near the textbook √(p(1 − p)/R)/φ(z_p)·σ.
  const rng = new Rng(5);
  const normal = Array.from({ length: 400 }, () => 10 + 2 * rng.normal());
  const textbook = Math.sqrt(0.025 * 0.975 / 400) / 0.05844094433345147 * 2;
  const se = quantileStandardError(normal, 0.975);
  assert.ok(se >= 0.8 * textbook && se < 1.6 * textbook, `se ${se}, textbook ${textbook}`);
  // Ties collapse the order-statistic bracket; the normal estimate keeps the error positive.
  const tied = [...Array(90).fill(72), 69, 70, 70, 71, 71, 71, 74, 75, 75, 76];
  assert.ok(quantileStandardError(tied, 0.975) > 0);
  assert.equal(quantileStandardError(Array(50).fill(3), 0.5), 0);
  assert.throws(() => quantileStandardError([1, 2], 1), RangeError);
  assert.throws(() => quantileStandardError([1], 0.5), RangeError);
});
