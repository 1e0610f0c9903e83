import assert from "node:assert/strict";
import { lipschitz } from "../../src/mechanisms/lipschitz.ts";
import { createModel } from "../../src/models/mod.ts";
import { Rng } from "../../src/random/rng.ts";
import { samplePoisson } from "../../src/random/distributions.ts";
import { twoRecordPoisson } from "../models/_helpers.ts";

/** The Supplement 1 R script's double loop: |Σ_j α_jℓ_sj − Σ_{j≠i} α_jℓ_sj|, O(S·n²). */
function naiveLeaveOneOut(ll: Float64Array[], alpha: Float64Array): Float64Array[] {
  return ll.map((row) => {
    const full = row.reduce((sum, l, j) => sum + alpha[j] * l, 0);
    return row.map((_, i) => {
      let without = 0;
      for (let j = 0; j < row.length; j++) if (j !== i) without += alpha[j] * row[j];
      return Math.abs(full - without);
    });
  });
}

Deno.test("`lipschitz()` equals the leave-one-out double loop on random inputs", () => {
  const seed = crypto.getRandomValues(new Uint32Array(1))[0];
  const rng = new Rng(seed);
  const n = 40;
  const k = 2;
  const y = Float64Array.from({ length: n }, () => samplePoisson(rng, 20));
  const x = new Float64Array(n * k);
  for (let i = 0; i < n; i++) [x[i * k], x[i * k + 1]] = [1, rng.normal()];
  const model = createModel("poisson", {
    n,
    k,
    y,
    x,
    coefficientNames: ["intercept", "z"],
  });
  const S = 25;
  const draws = new Float64Array(S * model.dim);
  for (let s = 0; s < S; s++) {
    const u = Float64Array.from({ length: model.dim }, () => 0.3 * rng.normal());
    u[0] += 3;
    draws.set(model.constrain(u), s * model.dim);
  }
  const alpha = Float64Array.from({ length: n }, () => rng.uniform());
  alpha[3] = 0;
  const result = lipschitz(model, draws, { alpha, matrix: true });
  const ll = Array.from(
    { length: S },
    (_, s) => model.logLik(draws.subarray(s * model.dim, (s + 1) * model.dim), new Float64Array(n)),
  );
  const naive = naiveLeaveOneOut(ll, alpha);
  let best = { value: -1, record: -1, draw: -1 };
  for (let i = 0; i < n; i++) {
    let max = 0;
    for (let s = 0; s < S; s++) {
      const value = naive[s][i];
      assert.ok(
        Math.abs(result.matrix![s * n + i] - value) <= 1e-9 * (1 + value),
        `seed ${seed}: L[${s},${i}]`,
      );
      max = Math.max(max, value);
      if (value > best.value) best = { value, record: i, draw: s };
    }
    assert.ok(Math.abs(result.perRecord[i] - max) <= 1e-9 * (1 + max), `seed ${seed}: record ${i}`);
  }
  assert.equal(result.perRecord[3], 0);
  assert.ok(Math.abs(result.overall - best.value) <= 1e-9 * best.value);
  assert.deepEqual(result.argmax, { record: best.record, draw: best.draw });
  const streamed = lipschitz(model, draws, { alpha });
  assert.equal(streamed.matrix, undefined);
  assert.deepEqual(streamed.perRecord, result.perRecord);
});

Deno.test("`lipschitz()` rejects draws and weights of the wrong shape", () => {
  const model = twoRecordPoisson();
  assert.throws(() => lipschitz(model, new Float64Array(3)), /not a positive multiple of 2/);
  assert.throws(
    () => lipschitz(model, new Float64Array(2), { alpha: new Float64Array(3) }),
    /alpha has 3 entries, expected 2/,
  );
});
