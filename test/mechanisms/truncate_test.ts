import assert from "node:assert/strict";
import { truncateWeights } from "../../src/mechanisms/truncate.ts";

Deno.test("`truncateWeights()` zeroes records whose bound exceeds ε/2", () => {
  const alpha = new Float64Array([1, 0.5, 0.8, 0.3, 0.7, 0]);
  const bounds = new Float64Array([2, 3, 2.5, Infinity, NaN, 9]);
  // ε = 5, threshold 2.5: 2 keeps, 3 drops, 2.5 (exactly at ε/2) keeps, non-finite drop.
  assert.deepEqual([...truncateWeights(alpha, bounds, 5)], [1, 0, 0.8, 0, 0, 0]);
  // The input is not modified.
  assert.deepEqual([...alpha], [1, 0.5, 0.8, 0.3, 0.7, 0]);
});

Deno.test("`truncateWeights()` rejects bad arguments naming them", () => {
  const alpha = new Float64Array([1, 0.5]);
  const bounds = new Float64Array([1, 2]);
  assert.throws(() => truncateWeights(alpha, new Float64Array(3), 5), {
    name: "RangeError",
    message: /recordBounds/,
  });
  assert.throws(() => truncateWeights(alpha, bounds, 0), /epsilonPerDataset=0/);
  assert.throws(() => truncateWeights(alpha, bounds, Infinity), /epsilonPerDataset=Infinity/);
  assert.throws(() => truncateWeights(new Float64Array([1, -0.5]), bounds, 5), /alpha: entry 1/);
  assert.throws(() => truncateWeights(alpha, new Float64Array([-1, 0]), 5), /entry 0/);
});
