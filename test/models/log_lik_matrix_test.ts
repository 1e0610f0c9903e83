import assert from "node:assert/strict";
import { logLikMatrix } from "../../src/models/log_lik_matrix.ts";
import { NegBinModel } from "../../src/models/negbin.ts";
import { makeDesign } from "./_helpers.ts";

const model = new NegBinModel(makeDesign(Float64Array.from([0, 3, 7, 1, 12]), 2, 1));
const draws = Float64Array.from([
  [1, 0.2, 1, 1, 2],
  [1.5, -0.1, 0.5, 2, 30],
  [0.7, 0.4, 2, 0.3, 0.4],
].flat());

Deno.test("`logLikMatrix()` stacks logLik row by row for every draw", () => {
  const m = logLikMatrix(model, draws);
  assert.equal(m.length, 3 * 5);
  for (let s = 0; s < 3; s++) {
    const row = model.logLik(draws.slice(s * 5, s * 5 + 5), new Float64Array(5));
    assert.deepEqual(m.slice(s * 5, s * 5 + 5), row);
  }
});

Deno.test("`logLikMatrix()` writes into a given buffer and checks shapes", () => {
  const out = new Float64Array(15);
  assert.equal(logLikMatrix(model, draws, out), out);
  assert.deepEqual(out, logLikMatrix(model, draws));
  assert.throws(() => logLikMatrix(model, draws.subarray(0, 7)), RangeError);
  assert.throws(() => logLikMatrix(model, draws, new Float64Array(14)), RangeError);
});
