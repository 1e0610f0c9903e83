import assert from "node:assert/strict";
import { acceptReweight, reweight } from "../../src/mechanisms/reweighting.ts";
import { Rng } from "../../src/random/rng.ts";

Deno.test("`reweight()` matches eq. 3.1 by hand, clamping at 1", () => {
  const alpha = new Float64Array([0.5, 0.2, 0, 0.9, 0.6, 0.3]);
  const bounds = new Float64Array([2, 1, 0, 4, 0.5, 0]);
  // k·α·Δ/Δ_i with k = 0.5, Δ = 4: 0.5, 0.4, (α = 0), 0.45, 2.4 → 1, (Δ_i = 0 keeps 0.3).
  assert.deepEqual([...reweight(alpha, bounds, 4, 0.5)], [0.5, 0.4, 0, 0.45, 1, 0.3]);
});

Deno.test("`reweight()` never exceeds 1, keeps zeros and brings implied bounds under k·Δ", () => {
  const seed = crypto.getRandomValues(new Uint32Array(1))[0];
  const rng = new Rng(seed);
  const n = 500;
  const alpha = new Float64Array(n);
  const bounds = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    alpha[i] = rng.uniform() < 0.1 ? 0 : rng.uniform();
    bounds[i] = rng.uniform() < 0.05 ? 0 : 3 * rng.uniform();
  }
  let overall = 0;
  for (const b of bounds) overall = Math.max(overall, b);
  const k = 0.5 + 0.5 * rng.uniform();
  const out = reweight(alpha, bounds, overall, k);
  for (let i = 0; i < n; i++) {
    const message = `seed ${seed}, record ${i}`;
    assert.ok(out[i] >= 0 && out[i] <= 1, message);
    if (alpha[i] === 0) assert.equal(out[i], 0, message);
    else if (bounds[i] === 0) assert.equal(out[i], alpha[i], message);
    else {
      const expected = Math.min(1, (k * alpha[i] * overall) / bounds[i]);
      assert.ok(Math.abs(out[i] - expected) <= 1e-15 * expected, message);
      // With ℓ fixed at the draws, the new record bound is α^w_i·Δ_i/α_i ≤ k·Δ.
      assert.ok((out[i] * bounds[i]) / alpha[i] <= k * overall * (1 + 1e-15), message);
    }
  }
});

Deno.test("`reweight()` rejects bad arguments naming them", () => {
  const alpha = new Float64Array([0.5, 1]);
  const bounds = new Float64Array([1, 2]);
  assert.throws(() => reweight(alpha, new Float64Array(1), 2, 0.9), {
    name: "RangeError",
    message: /recordBounds/,
  });
  assert.throws(() => reweight(alpha, bounds, 2, 0), /k=0/);
  assert.throws(() => reweight(alpha, bounds, 2, 1.1), /k=1.1/);
  // Eq. 3.1 and Algorithm 3 require k < 1.
  assert.throws(() => reweight(alpha, bounds, 2, 1), /must lie in \(0, 1\): k=1/);
  assert.throws(() => reweight(alpha, bounds, NaN, 0.9), /overall=NaN/);
  assert.throws(() => reweight(alpha, bounds, Infinity, 0.9), /overall=Infinity/);
  assert.throws(() => reweight(alpha, bounds, 1.5, 0.9), /recordBounds: entry 1/);
  assert.throws(() => reweight(new Float64Array([1.5, 1]), bounds, 2, 0.9), /alpha: entry 0/);
  assert.throws(() => reweight(alpha, new Float64Array([NaN, 1]), 2, 0.9), /entry 0/);
});

Deno.test("`acceptReweight()` accepts within the relative tolerance only", () => {
  assert.equal(acceptReweight(2, 2, 0), true);
  assert.equal(acceptReweight(2, 1.5, 0), true);
  assert.equal(acceptReweight(2, 2.01, 0), false);
  assert.equal(acceptReweight(2, 2.01, 0.01), true);
  assert.equal(acceptReweight(2, 2.03, 0.01), false);
  assert.equal(acceptReweight(2, Infinity, 0.5), false);
  assert.throws(() => acceptReweight(NaN, 1, 0), /previousOverall=NaN/);
  assert.throws(() => acceptReweight(1, NaN, 0), /newOverall=NaN/);
  assert.throws(() => acceptReweight(1, 1, -0.1), /tolerance=-0.1/);
});
