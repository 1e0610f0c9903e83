import assert from "node:assert/strict";
import { wilsonInterval } from "../../src/stats/wilson_interval.ts";

Deno.test("`wilsonInterval()` brackets k/R and stays in [0, 1]", () => {
  const [lo, hi] = wilsonInterval(50, 100);
  assert.ok(lo < 0.5 && hi > 0.5 && Math.abs(hi - lo - 0.192) < 0.002);
  assert.deepEqual(wilsonInterval(100, 100).map((v) => v <= 1), [true, true]);
  assert.equal(wilsonInterval(100, 100)[1], 1);
  assert.throws(() => wilsonInterval(3, 2), RangeError);
});
