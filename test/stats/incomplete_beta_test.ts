import assert from "node:assert/strict";
import { combinations } from "mathjs";
import { betaMedian, regularizedIncompleteBeta } from "../../src/stats/incomplete_beta.ts";

/** The CDF of Beta(1/2, 3) in closed form: (15/16)·(2√x − (4/3)x^{3/2} + (2/5)x^{5/2}). */
function cdfHalfThree(x: number): number {
  return (15 / 16) * (2 * Math.sqrt(x) - (4 / 3) * x ** 1.5 + 0.4 * x ** 2.5);
}

/** I_x(a, b) for integer shapes: P(Binomial(a + b − 1, x) ≥ a), with mathjs' binomial coefficients. */
function integerShapeCdf(x: number, a: number, b: number): number {
  const n = a + b - 1;
  let sum = 0;
  for (let j = a; j <= n; j++) sum += combinations(n, j) * x ** j * (1 - x) ** (n - j);
  return sum;
}

Deno.test("`regularizedIncompleteBeta()` matches the closed-form CDF of Beta(0.5, 3) and R's pbeta", () => {
  for (const x of [1e-9, 0.001, 0.05, 0.2, 0.5, 0.8, 0.99]) {
    const got = regularizedIncompleteBeta(x, 0.5, 3);
    assert.ok(Math.abs(got - cdfHalfThree(x)) < 1e-14, `x=${x}: ${got} vs ${cdfHalfThree(x)}`);
  }
  // R 4.x: print(pbeta(0.4, 30, 20), digits = 17) = 0.0021684099204181289 (the other branch).
  assert.ok(Math.abs(regularizedIncompleteBeta(0.4, 30, 20) / 0.0021684099204181289 - 1) < 1e-12);
  assert.equal(regularizedIncompleteBeta(0, 0.5, 3), 0);
  assert.equal(regularizedIncompleteBeta(1, 0.5, 3), 1);
  assert.throws(() => regularizedIncompleteBeta(0.5, 0, 3), /Invalid a/);
  assert.throws(() => regularizedIncompleteBeta(1.5, 1, 3), /Invalid x/);
});

Deno.test("`regularizedIncompleteBeta()` matches the binomial sum at integer shapes, on both branches", () => {
  for (const [a, b] of [[1, 1], [2, 5], [7, 3], [12, 12], [1, 9]]) {
    for (const x of [0.01, 0.1, 0.35, 0.5, 0.65, 0.9, 0.999]) {
      const got = regularizedIncompleteBeta(x, a, b);
      const want = integerShapeCdf(x, a, b);
      assert.ok(Math.abs(got - want) < 1e-13, `I_${x}(${a}, ${b}) = ${got} vs ${want}`);
      // Symmetry: I_x(a, b) = 1 − I_{1−x}(b, a).
      assert.ok(Math.abs(got - (1 - regularizedIncompleteBeta(1 - x, b, a))) < 1e-13);
    }
  }
});

Deno.test("`betaMedian()` of Beta(0.5, 3) solves the closed-form CDF = 1/2 and matches R's qbeta", () => {
  const median = betaMedian(0.5, 3);
  assert.ok(Math.abs(cdfHalfThree(median) - 0.5) < 1e-14);
  // R 4.x: print(qbeta(0.5, 0.5, 3), digits = 17) = 0.079032767076173016.
  assert.ok(Math.abs(median - 0.079032767076173016) < 1e-13);
  // R: qbeta(0.5, 2.5, 7.5) = 0.23287867775885501.
  assert.ok(Math.abs(betaMedian(2.5, 7.5) - 0.23287867775885501) < 1e-13);
  // Symmetric shapes have median 1/2; Beta(a, 1) has median 2^{−1/a}.
  assert.ok(Math.abs(betaMedian(4, 4) - 0.5) < 1e-14);
  assert.ok(Math.abs(betaMedian(3, 1) - 2 ** (-1 / 3)) < 1e-14);
});
