import assert from "node:assert/strict";
import { utilityOf } from "../../src/synthesis/utility.ts";
import { Rng } from "../../src/random/rng.ts";

function close(actual: number, expected: number, tolerance: number, message = ""): void {
  assert.ok(
    Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)),
    `${message} ${actual} vs ${expected}`,
  );
}

Deno.test("`utilityOf()` matches hand-computed summaries and ECDF measures", () => {
  const u = utilityOf(new Float64Array([4, 1, 3, 2]), new Float64Array([2, 5, 2]));
  // y sorted (1, 2, 3, 4): index 1 + 3p → median 2.5, q15 1.45, q90 3.7.
  close(u.confidential.mean, 2.5, 1e-15);
  close(u.confidential.median, 2.5, 1e-15);
  close(u.confidential.q15, 1.45, 1e-15);
  close(u.confidential.q90, 3.7, 1e-15);
  // y* sorted (2, 2, 5): index 1 + 2p → median 2, q15 2, q90 2 + 0.8·3 = 4.4.
  close(u.synthetic.mean, 3, 1e-15);
  assert.equal(u.synthetic.median, 2);
  assert.equal(u.synthetic.q15, 2);
  close(u.synthetic.q90, 4.4, 1e-15);
  // Pooled (1, 2, 2, 2, 3, 4, 5): F − F* = 1/4, −1/6 (three times), 1/12, 1/3, 0.
  close(u.ecdfMax, 1 / 3, 1e-15);
  close(u.ecdfMeanSquared, (1 / 16 + 3 / 36 + 1 / 144 + 1 / 9) / 7, 1e-15);
});

Deno.test("`utilityOf()` matches R's quantile(type = 7), mean and ecdf", () => {
  // options(digits = 17)
  // y <- c(3.2, 1.5, 7.7, 2.2, 9.1, 4.4, 0.3, 5.5, 6.6, 8.8, 2.2)
  // ys <- c(2.5, 0.9, 6.1, 4.4, 10.2, 3.3, 2.2)
  // quantile(y, c(0.15, 0.5, 0.9), type = 7, names = FALSE)
  //   1.8500000000000001 4.4000000000000004 8.8000000000000007
  // quantile(ys, c(0.15, 0.5, 0.9), type = 7, names = FALSE)
  //   2.0700000000000003 3.2999999999999998 7.7400000000000011
  // c(mean(y), mean(ys))  4.6818181818181817 4.2285714285714286
  // z <- c(y, ys); d <- ecdf(y)(z) - ecdf(ys)(z); c(max(abs(d)), mean(d^2))
  //   0.220779220779220742 0.011253537227563204
  const y = new Float64Array([3.2, 1.5, 7.7, 2.2, 9.1, 4.4, 0.3, 5.5, 6.6, 8.8, 2.2]);
  const ys = new Float64Array([2.5, 0.9, 6.1, 4.4, 10.2, 3.3, 2.2]);
  const u = utilityOf(y, ys);
  close(u.confidential.q15, 1.8500000000000001, 1e-15);
  close(u.confidential.median, 4.4000000000000004, 1e-15);
  close(u.confidential.q90, 8.8000000000000007, 1e-15);
  close(u.synthetic.q15, 2.0700000000000003, 1e-15);
  close(u.synthetic.median, 3.2999999999999998, 1e-15);
  close(u.synthetic.q90, 7.7400000000000011, 1e-15);
  close(u.confidential.mean, 4.6818181818181817, 1e-15);
  close(u.synthetic.mean, 4.2285714285714286, 1e-15);
  close(u.ecdfMax, 0.220779220779220742, 1e-15);
  close(u.ecdfMeanSquared, 0.011253537227563204, 1e-14);
});

Deno.test("`utilityOf()` ECDF measures equal a naive loop over the pooled records", () => {
  const seed = crypto.getRandomValues(new Uint32Array(1))[0];
  const rng = new Rng(seed);
  for (let trial = 0; trial < 10; trial++) {
    const n = 1 + Math.floor(rng.uniform() * 80);
    const m = 1 + Math.floor(rng.uniform() * 80);
    const draw = () => (rng.uniform() < 0.5 ? Math.floor(rng.uniform() * 10) : rng.uniform() * 10);
    const y = Float64Array.from({ length: n }, draw);
    const ys = Float64Array.from({ length: m }, draw);
    const pooled = [...y, ...ys];
    let max = 0;
    let sumSquares = 0;
    for (const t of pooled) {
      const f = y.filter((v) => v <= t).length / n;
      const fs = ys.filter((v) => v <= t).length / m;
      max = Math.max(max, Math.abs(f - fs));
      sumSquares += (f - fs) ** 2;
    }
    const u = utilityOf(y, ys);
    close(u.ecdfMax, max, 1e-15, `seed ${seed}, trial ${trial}: max`);
    close(u.ecdfMeanSquared, sumSquares / pooled.length, 1e-13, `seed ${seed}, trial ${trial}`);
  }
});

Deno.test("`utilityOf()` is zero for identical samples and rejects bad input naming it", () => {
  const y = new Float64Array([3, 1, 2, 2]);
  const u = utilityOf(y, Float64Array.from(y).reverse());
  assert.equal(u.ecdfMax, 0);
  assert.equal(u.ecdfMeanSquared, 0);
  assert.deepEqual(u.confidential, u.synthetic);
  assert.throws(() => utilityOf(new Float64Array(0), y), {
    name: "RangeError",
    message: /Invalid y/,
  });
  assert.throws(() => utilityOf(y, new Float64Array([1, Infinity])), /ystar: entry 1/);
});
