import assert from "node:assert/strict";
import { balance, checkCharge, fits } from "../../src/jobs/ledger.ts";
import { Rng } from "../../src/random/rng.ts";

/**
 * A finite float64 as the exact integer x·2^1074 (every float64 is m·2^e with e ≥ −1074), so
 * sums and comparisons of floats are exact in BigInt arithmetic.
 */
function scaled(x: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = exponent === 0 ? fraction : fraction | (1n << 52n);
  const magnitude = mantissa << BigInt((exponent === 0 ? 1 : exponent) - 1);
  return bits >> 63n ? -magnitude : magnitude;
}

const exactSum = (values: number[]) => values.reduce((sum, v) => sum + scaled(v), 0n);

Deno.test("the exact scaling of the reference maps floats to x·2^1074", () => {
  assert.equal(scaled(1), 2n ** 1074n);
  assert.equal(scaled(0.75), 3n * 2n ** 1072n);
  assert.equal(scaled(Number.MIN_VALUE), 1n);
  assert.equal(scaled(-2), -(2n ** 1075n));
});

Deno.test("`balance()` spends at least the exact sum and leaves at most the exact remainder", () => {
  const rng = new Rng(2024);
  for (let trial = 0; trial < 200; trial++) {
    const charges = Array.from(
      { length: 1 + (rng.nextUint32() % 12) },
      () => rng.uniform() * 10 ** (rng.uniform() * 4 - 2),
    );
    const total = charges.reduce((a, b) => a + b, 0) * (1 + rng.uniform());
    const { spent, remaining } = balance(total, charges);
    const trueSpent = exactSum(charges);
    assert.ok(scaled(spent) >= trueSpent, `trial ${trial}: spent below the exact sum`);
    assert.ok(
      scaled(remaining) <= scaled(total) - trueSpent,
      `trial ${trial}: remaining above the exact remainder`,
    );
    assert.ok(remaining >= 0);
  }
});

Deno.test("`balance()` of exactly representable charges is exact", () => {
  assert.deepEqual(balance(1, [0.25, 0.5]), { spent: 0.75, remaining: 0.25 });
  assert.deepEqual(balance(2, []), { spent: 0, remaining: 2 });
  assert.deepEqual(balance(1, [0.75, 0.5]), { spent: 1.25, remaining: 0 });
});

Deno.test("`fits()` refuses a charge whose exact sum exceeds the budget, even by one ulp", () => {
  // 0.1 + 0.2 in float64 exceeds the float64 0.3 exactly; rounding must not hide it.
  assert.ok(scaled(0.1) + scaled(0.2) > scaled(0.3));
  assert.ok(scaled(0.1) + scaled(0.2) <= scaled(0.30000000000000004));
  assert.equal(fits(0.3, [0.1], 0.2), false);
  assert.equal(fits(0.30000000000000004, [0.1], 0.2), true);
  assert.equal(fits(1, [0.5], 0.5), true);
  // A sum that rounds to nearest below the exact value is moved up: 1 + 2^−60 > 1.
  assert.equal(fits(1, [1], 2 ** -60), false);
  assert.equal(fits(1, [], 0), true);
});

Deno.test("the ledger refuses negative, NaN and infinite charges and budgets", () => {
  for (const bad of [-1, -1e-300, NaN, Infinity, -Infinity]) {
    assert.throws(() => checkCharge(bad), RangeError);
    assert.throws(() => fits(10, [], bad), RangeError);
    assert.throws(() => balance(10, [bad]), RangeError);
  }
  for (const bad of [0, -1, NaN, Infinity]) assert.throws(() => balance(bad, []), RangeError);
  assert.doesNotThrow(() => checkCharge(0));
});
