import assert from "node:assert/strict";
import { Rng } from "../../src/random/rng.ts";
import { quantileStandardError } from "../../src/stats/quantile_standard_error.ts";

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
