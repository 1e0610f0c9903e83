import assert from "node:assert/strict";
import {
  countInBalls,
  cwWeights,
  isolationRisk,
  lwWeights,
  swAlphaForEpsilon,
  swAlphaForLipschitz,
} from "../../src/mechanisms/weights.ts";
import { randomTrials } from "../random/_stats.ts";

function assertClose(actual: ArrayLike<number>, expected: number[], tolerance = 1e-14): void {
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < expected.length; i++) {
    assert.ok(
      Math.abs(actual[i] - expected[i]) <= tolerance,
      `entry ${i}: ${actual[i]} vs ${expected[i]}`,
    );
  }
}

Deno.test("`lwWeights()` matches Algorithm 1 by hand for n = 4", () => {
  // f = (1, 3, 5, 9): min 1, max 9, f̃ = (0, 1/4, 1/2, 1).
  const f = new Float64Array([1, 3, 5, 9]);
  assert.deepEqual([...lwWeights(f, { c: 1, g: -0.25 })], [0.75, 0.5, 0.25, 0]);
  // Clamping at 1: 1.5, 1.25, 1, 0.5.
  assert.deepEqual([...lwWeights(f, { c: 1, g: 0.5 })], [1, 1, 1, 0.5]);
  // Clamping at 0: 2·(1, 3/4, 1/2, 0) − 1.2 = 0.8, 0.3, −0.2, −1.2.
  assertClose(lwWeights(f, { c: 2, g: -1.2 }), [0.8, 0.3, 0, 0]);
  // c = 0: one scalar weight.
  assert.deepEqual([...lwWeights(f, { c: 0, g: 0.4 })], [0.4, 0.4, 0.4, 0.4]);
});

Deno.test("`lwWeights()` gives non-finite bounds weight 0 and leaves them out of min and max", () => {
  const f = new Float64Array([1, Infinity, 3, NaN]);
  assert.deepEqual([...lwWeights(f, { c: 1, g: 0.25 })], [1, 0, 0.25, 0]);
  assert.deepEqual([...lwWeights(new Float64Array([Infinity]), { c: 1, g: 0 })], [0]);
});

Deno.test("`lwWeights()` sets f̃ = 0 when every bound is equal", () => {
  assert.deepEqual([...lwWeights(new Float64Array([2, 2, 2]), { c: 0.5, g: 0.25 })], [
    0.75,
    0.75,
    0.75,
  ]);
});

Deno.test("`lwWeights()` rejects bad arguments naming them", () => {
  const f = new Float64Array([1, 2]);
  assert.throws(() => lwWeights(f, { c: -1, g: 0 }), { name: "RangeError", message: /c=-1/ });
  assert.throws(() => lwWeights(f, { c: NaN, g: 0 }), /Invalid c/);
  assert.throws(() => lwWeights(f, { c: 1, g: Infinity }), /Invalid g/);
  assert.throws(() => lwWeights(new Float64Array(0), { c: 1, g: 0 }), /recordBounds/);
  assert.throws(() => lwWeights(new Float64Array([1, -2]), { c: 1, g: 0 }), /entry 1/);
});

Deno.test("`isolationRisk()` counts ties at exactly the radius as inside (absolute radius)", () => {
  // y = (1, 2, 2, 3, 5), r = 1: inside counts 3, 4, 4, 3, 1 of n = 5.
  const y = new Float64Array([1, 2, 2, 3, 5]);
  assertClose(isolationRisk(y, { radius: 1, relative: false }), [0.4, 0.2, 0.2, 0.4, 0.8]);
  // r = 0: only exact duplicates are inside.
  assertClose(isolationRisk(y, { radius: 0, relative: false }), [0.8, 0.6, 0.6, 0.8, 0.8]);
});

Deno.test("`isolationRisk()` uses r_i = radius·|y_i| by default", () => {
  // ρ = 0.5: r = (2, 3, 4, 6, 10); balls [2,6], [3,9], [4,12], [6,18], [10,30].
  const y = new Float64Array([4, 6, 8, 12, 20]);
  assertClose(isolationRisk(y, { radius: 0.5 }), [0.6, 0.4, 0.2, 0.4, 0.6]);
  // Negative values and zero: r = (2, 0, 0, 1).
  const signed = new Float64Array([-4, 0, 0, 2]);
  assertClose(isolationRisk(signed, { radius: 0.5, relative: true }), [0.75, 0.5, 0.5, 0.75]);
});

Deno.test("`isolationRisk()` equals the O(n²) count on random inputs with ties", () => {
  randomTrials(20, (rng, trial, label) => {
    const n = 1 + Math.floor(rng.uniform() * 150);
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const integer = Math.floor(rng.uniform() * 30) - 10;
      y[i] = rng.uniform() < 0.7 ? integer : integer + rng.uniform();
    }
    const relative = trial % 2 === 0;
    const radius = [0, 0.1, 0.25, 0.5, 1, 2.5, 3][Math.floor(rng.uniform() * 7)];
    const risk = isolationRisk(y, { radius, relative });
    for (let i = 0; i < n; i++) {
      const r = relative ? radius * Math.abs(y[i]) : radius;
      let outside = 0;
      for (let j = 0; j < n; j++) if (Math.abs(y[j] - y[i]) > r) outside++;
      assert.equal(risk[i], outside / n, `${label}, record ${i}`);
    }
  });
});

Deno.test("`countInBalls()` counts values of another sample and rejects unsorted input", () => {
  const sorted = new Float64Array([1, 2, 3, 10]);
  const counts = countInBalls(sorted, new Float64Array([2, 10, 50]), {
    radius: 1,
    relative: false,
  });
  assert.deepEqual([...counts], [3, 1, 0]);
  assert.throws(
    () => countInBalls(new Float64Array([2, 1]), new Float64Array([1]), { radius: 1 }),
    /entry 1/,
  );
});

Deno.test("`cwWeights()` is clamp(c·(1 − IR) + g, 0, 1)", () => {
  // IR = (0.4, 0.2, 0.2, 0.4, 0.8) from the absolute-radius case above.
  const y = new Float64Array([1, 2, 2, 3, 5]);
  assertClose(cwWeights(y, { radius: 1, relative: false, c: 1, g: 0 }), [0.6, 0.8, 0.8, 0.6, 0.2]);
  // 2·(0.6, 0.8, 0.8, 0.6, 0.2) − 0.5 = 0.7, 1.1, 1.1, 0.7, −0.1.
  assertClose(cwWeights(y, { radius: 1, relative: false, c: 2, g: -0.5 }), [0.7, 1, 1, 0.7, 0]);
});

Deno.test("`isolationRisk()` and `cwWeights()` reject bad arguments naming them", () => {
  const y = new Float64Array([1, 2]);
  assert.throws(() => isolationRisk(y, { radius: -1 }), {
    name: "RangeError",
    message: /radius=-1/,
  });
  assert.throws(() => isolationRisk(y, { radius: Infinity }), /Invalid radius/);
  assert.throws(() => isolationRisk(new Float64Array([1, NaN]), { radius: 1 }), /y: entry 1/);
  assert.throws(() => isolationRisk(new Float64Array(0), { radius: 1 }), /Invalid y/);
  assert.throws(() => cwWeights(y, { radius: 1, c: 1, g: NaN }), /Invalid g/);
});

Deno.test("`swAlphaForLipschitz()` and `swAlphaForEpsilon()` follow SPEC §2", () => {
  assert.equal(swAlphaForLipschitz(2, 8), 0.25);
  assert.equal(swAlphaForLipschitz(10, 8), 1);
  // ε = 2·α·Δ_x·m: α = 6/(2·3·4) = 0.25.
  assert.equal(swAlphaForEpsilon(6, 3, 4), 0.25);
  assert.equal(swAlphaForEpsilon(100, 1, 4), 1);
  assert.throws(() => swAlphaForLipschitz(0, 8), /target=0/);
  assert.throws(() => swAlphaForLipschitz(1, Infinity), /unweighted=Infinity/);
  assert.throws(() => swAlphaForEpsilon(NaN, 1, 1), /epsilon=NaN/);
  assert.throws(() => swAlphaForEpsilon(1, 0, 1), /m=0/);
  assert.throws(() => swAlphaForEpsilon(1, 1.5, 1), /m=1.5/);
  assert.throws(() => swAlphaForEpsilon(1, 1, -2), /unweighted=-2/);
});
