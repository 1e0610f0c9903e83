import assert from "node:assert/strict";
import { identificationRisk } from "../../src/synthesis/risk.ts";
import { randomTrials } from "../random/_stats.ts";

/** The definition, record by record: O(n²). */
function naiveRisk(y: Float64Array, ystar: Float64Array, radius: number, relative: boolean) {
  const n = y.length;
  let expected = 0;
  let unique = 0;
  for (let i = 0; i < n; i++) {
    const r = relative ? radius * Math.abs(y[i]) : radius;
    let c = 0;
    for (let j = 0; j < n; j++) if (Math.abs(ystar[j] - y[i]) <= r) c++;
    const t = Math.abs(ystar[i] - y[i]) <= r ? 1 : 0;
    if (c > 0) expected += t / c;
    if (c === 1 && t === 1) unique++;
  }
  return { expectedMatchRisk: expected, trueMatchRate: unique / n };
}

Deno.test("`identificationRisk()` matches a hand count with ties at the radius", () => {
  // r = 1. Record 0 (y = 1): y* in [0, 2] are 1.2 (own) and 2 (at the radius): c = 2, T = 1.
  // Record 1 (y = 5): [4, 6] holds 5.5 (own) only: c = 1, T = 1.
  // Record 2 (y = 9): [8, 10] holds nothing: c = 0. Record 3 (y = 3): [2, 4] holds 2 (not its
  // own, 20): c = 1, T = 0.
  const y = new Float64Array([1, 5, 9, 3]);
  const ystar = new Float64Array([1.2, 5.5, 2, 20]);
  const risk = identificationRisk(y, ystar, { radius: 1, relative: false });
  assert.deepEqual(risk, { expectedMatchRisk: 1.5, trueMatchRate: 0.25 });
  // Relative radius 0.5: r = (0.5, 2.5, 4.5, 1.5). Record 0: [0.5, 1.5] holds 1.2: c = 1, T = 1.
  // Record 1: [2.5, 7.5] holds 5.5: c = 1, T = 1. Record 2: [4.5, 13.5] holds 5.5: c = 1, T = 0.
  // Record 3: [1.5, 4.5] holds 2: c = 1, T = 0.
  assert.deepEqual(identificationRisk(y, ystar, { radius: 0.5 }), {
    expectedMatchRisk: 2,
    trueMatchRate: 0.5,
  });
});

Deno.test("`identificationRisk()` equals the O(n²) count on random inputs", () => {
  randomTrials(20, (rng, trial, message) => {
    const n = 1 + Math.floor(rng.uniform() * 120);
    const y = new Float64Array(n);
    const ystar = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      y[i] = Math.floor(rng.uniform() * 40) - 5;
      ystar[i] = rng.uniform() < 0.6
        ? y[i] + Math.floor(rng.uniform() * 5) - 2
        : rng.uniform() * 40;
    }
    const relative = trial % 2 === 1;
    const radius = [0, 0.05, 0.25, 0.5, 1, 2][Math.floor(rng.uniform() * 6)];
    const expected = naiveRisk(y, ystar, radius, relative);
    const actual = identificationRisk(y, ystar, { radius, relative });
    assert.ok(
      Math.abs(actual.expectedMatchRisk - expected.expectedMatchRisk) <= 1e-12 * n,
      message,
    );
    assert.equal(actual.trueMatchRate, expected.trueMatchRate, message);
  });
});

Deno.test("`identificationRisk()` rejects bad arguments naming them", () => {
  const y = new Float64Array([1, 2]);
  assert.throws(() => identificationRisk(y, new Float64Array(3), { radius: 1 }), /ystar/);
  assert.throws(() => identificationRisk(new Float64Array(0), y, { radius: 1 }), /Invalid y/);
  assert.throws(() => identificationRisk(y, new Float64Array([0, NaN]), { radius: 1 }), /entry 1/);
  assert.throws(
    () => identificationRisk(new Float64Array([NaN, 1]), y, { radius: 1 }),
    /y: entry 0/,
  );
  assert.throws(() => identificationRisk(y, y, { radius: -1 }), {
    name: "RangeError",
    message: /radius=-1/,
  });
});
