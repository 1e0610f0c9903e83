import assert from "node:assert/strict";
import { correlation } from "../../src/stats/correlation.ts";

Deno.test("`correlation()` is ±1 on a line, 0 on orthogonal centred samples, and matches a hand value", () => {
  const x = new Float64Array([1, 2, 3, 4, 5]);
  assert.ok(Math.abs(correlation(x, x.map((v) => 3 * v - 7)) - 1) < 1e-15);
  assert.ok(Math.abs(correlation(x, x.map((v) => 2 - v)) + 1) < 1e-15);
  assert.equal(correlation(new Float64Array([-1, 0, 1]), new Float64Array([1, -2, 1])), 0);
  // x = 1..5, y = (2, 1, 4, 3, 5): Sxy = 8, Sxx = Syy = 10, r = 0.8.
  assert.ok(Math.abs(correlation(x, new Float64Array([2, 1, 4, 3, 5])) - 0.8) < 1e-15);
});
