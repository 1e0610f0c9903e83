import assert from "node:assert/strict";
import { inv } from "mathjs";
import {
  cholesky,
  choleskyKeeping,
  choleskySolve,
  inverseFromCholesky,
} from "../../src/stats/cholesky.ts";

/** AᵀA + I for a fixed 4×4 A (symmetric positive definite). */
const A4 = (() => {
  const a = [3, 1, 0, 2, 1, 4, 1, 0, 0, 1, 5, 1, 2, 0, 1, 6];
  const g = new Float64Array(16);
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < 4; j++) {
      let s = i === j ? 1 : 0;
      for (let r = 0; r < 4; r++) s += a[r * 4 + i] * a[r * 4 + j];
      g[i * 4 + j] = s;
    }
  }
  return g;
})();

Deno.test("`choleskySolve()` and `inverseFromCholesky()` agree with mathjs's inverse", () => {
  const l = cholesky(A4, 4);
  assert.ok(l !== null);
  const expected = inv(Array.from({ length: 4 }, (_, i) => [...A4.subarray(i * 4, i * 4 + 4)]));
  const inverse = inverseFromCholesky(l, 4);
  const b = Float64Array.of(1, -2, 0.5, 3);
  const x = choleskySolve(l, b);
  assert.deepEqual([...b], [1, -2, 0.5, 3]);
  for (let i = 0; i < 4; i++) {
    let s = 0;
    for (let j = 0; j < 4; j++) {
      assert.ok(Math.abs(inverse[i * 4 + j] - expected[i][j]) < 1e-14, `A⁻¹[${i},${j}]`);
      s += expected[i][j] * b[j];
    }
    assert.ok(Math.abs(x[i] - s) < 1e-13, `x[${i}]`);
  }
});

Deno.test("`choleskyKeeping()` drops refused columns, factoring the rest as `cholesky()`", () => {
  // Column 3 of the 5×5 matrix repeats column 1: its pivot is 0 (to rounding) against them.
  const idx = [0, 1, 2, 1, 3];
  const a = new Float64Array(25);
  for (let i = 0; i < 5; i++) for (let j = 0; j < 5; j++) a[i * 5 + j] = A4[idx[i] * 4 + idx[j]];
  const { kept, l } = choleskyKeeping(a, 5, (_, pivot) => pivot > 1e-10);
  assert.deepEqual(kept, [0, 1, 2, 4]);
  assert.deepEqual(l, cholesky(A4, 4));
  const none = choleskyKeeping(A4, 4, (j) => j !== 0 && j !== 2);
  assert.deepEqual(none.kept, [1, 3]);
  const sub = Float64Array.of(A4[5], A4[7], A4[13], A4[15]);
  assert.deepEqual(none.l, cholesky(sub, 2));
  assert.equal(cholesky(a, 5), null);
});
