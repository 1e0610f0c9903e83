import assert from "node:assert/strict";
import {
  inInterval,
  Judge,
  monteCarloInterval,
  verdict,
  verdictTable,
  verdictText,
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
