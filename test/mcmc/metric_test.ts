import assert from "node:assert/strict";
import { inv, multiply } from "mathjs";
import {
  metricEstimator,
  regularizedCovariance,
  regularizedVariance,
  welfordAdd,
  welfordCovarianceAdd,
  welfordCovarianceInit,
  welfordInit,
} from "../../src/mcmc/mass_matrix.ts";
import { denseMetric, diagMetric } from "../../src/mcmc/metric.ts";
import type { LogDensityFn } from "../../src/mcmc/nuts.ts";
import { sample } from "../../src/mcmc/sample.ts";
import { Rng } from "../../src/random/rng.ts";
import { cholesky } from "../../src/stats/cholesky.ts";

/** Row-major d×d as nested arrays, for mathjs. */
function nested(a: Float64Array, d: number): number[][] {
  return Array.from({ length: d }, (_, i) => [...a.subarray(i * d, (i + 1) * d)]);
}

// A correlated 3×3 inverse metric with scales 0.1, 1, 10.
const SIGMA3 = Float64Array.of(
  0.01,
  0.05,
  -0.3,
  0.05,
  1,
  2,
  -0.3,
  2,
  100,
);

Deno.test("`denseMetric()` draws p ~ N(0, Σ⁻¹) and computes p♯ = Σp and ½pᵀΣp as mathjs does", () => {
  const metric = denseMetric(SIGMA3, 3);
  const precision = inv(nested(SIGMA3, 3)) as number[][];
  const p = Float64Array.of(0.3, -1.2, 0.07);
  const want = multiply(nested(SIGMA3, 3), [...p]) as number[];
  const sharp = new Float64Array(3);
  metric.sharp(sharp, p);
  want.forEach((w, i) => assert.ok(Math.abs(sharp[i] - w) < 1e-14 * 100, `p♯[${i}]`));
  const kinetic = 0.5 * want.reduce((s, w, i) => s + w * p[i], 0);
  assert.ok(Math.abs(metric.kineticEnergy(p) - kinetic) < 1e-13 * kinetic);
  const q = Float64Array.of(1, 2, 3);
  metric.drift(q, p, 0.5);
  want.forEach((w, i) => assert.ok(Math.abs(q[i] - (i + 1 + 0.5 * w)) < 1e-12, `q[${i}]`));
  assert.deepEqual([...metric.inverseDiagonal()], [0.01, 1, 100]);

  // Empirical covariance of 200 000 momenta vs M = Σ⁻¹, within 5 standard errors
  // (Var(p_i p_j) = M_ii M_jj + M_ij² for a Gaussian).
  const rng = new Rng(12);
  const n = 200_000;
  const sums = new Float64Array(9);
  const draw = new Float64Array(3);
  for (let s = 0; s < n; s++) {
    metric.sampleMomentum(rng, draw);
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) sums[i * 3 + j] += draw[i] * draw[j];
  }
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const m = precision[i][j];
      const se = Math.sqrt((precision[i][i] * precision[j][j] + m * m) / n);
      const got = sums[i * 3 + j] / n;
      assert.ok(Math.abs(got - m) < 5 * se, `Cov(p)[${i},${j}] = ${got}, want ${m}`);
    }
  }
});

Deno.test("`diagMetric()` and a diagonal `denseMetric()` draw the same momenta", () => {
  const m = Float64Array.of(0.25, 4, 1e-4);
  const dense = new Float64Array(9);
  m.forEach((v, j) => (dense[j * 3 + j] = v));
  const a = new Float64Array(3);
  const b = new Float64Array(3);
  diagMetric(m).sampleMomentum(new Rng(3), a);
  denseMetric(dense, 3).sampleMomentum(new Rng(3), b);
  a.forEach((x, j) => assert.ok(Math.abs(x - b[j]) < 1e-15 * Math.abs(x)));
  assert.equal(
    diagMetric(m).kineticEnergy(a),
    0.5 * (0.25 * a[0] ** 2 + 4 * a[1] ** 2 + 1e-4 * a[2] ** 2),
  );
});

Deno.test("`cholesky()` reconstructs Σ = LLᵀ and refuses a matrix that is not positive definite", () => {
  const l = cholesky(SIGMA3, 3);
  assert.ok(l !== null);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      let s = 0;
      for (let k = 0; k < 3; k++) s += l[i * 3 + k] * l[j * 3 + k];
      assert.ok(Math.abs(s - SIGMA3[i * 3 + j]) < 1e-13, `(LLᵀ)[${i},${j}]`);
      if (j > i) assert.equal(l[i * 3 + j], 0);
    }
  }
  assert.equal(cholesky(Float64Array.of(1, 0, 0, 0), 2), null);
  assert.equal(cholesky(Float64Array.of(1, NaN, NaN, 1), 2), null);
  assert.throws(() => denseMetric(Float64Array.of(1, 2, 2, 1), 2), /not positive definite/);
  assert.throws(() => denseMetric(Float64Array.of(1, 0.5, 0.4, 1), 2), /symmetric/);
  assert.throws(() => denseMetric(Float64Array.of(1, 0, 0), 2), /length must be dim²=4/);
  assert.throws(() => diagMetric(Float64Array.of(1, 0)), /inverseMassDiag\[1\]=0/);
});

Deno.test("`regularizedCovariance()` matches a two-pass covariance with Stan's shrinkage", () => {
  const rng = new Rng(6);
  const d = 4;
  const n = 57;
  // Correlated draws far from the origin, where a one-pass sum of squares would lose digits.
  const xs = Array.from({ length: n }, () => {
    const z = [rng.normal(), rng.normal(), rng.normal(), rng.normal()];
    return Float64Array.of(1e4 + 3 * z[0], -50 + z[0] + 0.1 * z[1], 2 * z[2] - z[1], 1e-3 * z[3]);
  });
  const w = welfordCovarianceInit(d);
  const delta = new Float64Array(d);
  for (const x of xs) welfordCovarianceAdd(w, x, delta);
  const out = regularizedCovariance(w, new Float64Array(d * d));
  const mean = Array.from({ length: d }, (_, j) => xs.reduce((s, x) => s + x[j], 0) / n);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++) {
      const s = xs.reduce((a, x) => a + (x[i] - mean[i]) * (x[j] - mean[j]), 0) / (n - 1);
      const want = (n / (n + 5)) * s + (i === j ? 1e-3 * 5 / (n + 5) : 0);
      const scale = Math.sqrt(out[i * d + i] * out[j * d + j]);
      assert.ok(Math.abs(out[i * d + j] - want) < 1e-12 * scale, `Σ̂[${i},${j}]`);
      assert.equal(out[i * d + j], out[j * d + i]);
    }
  }
  // Its diagonal is the diagonal estimator's, bit for bit.
  const v = welfordInit(d);
  for (const x of xs) welfordAdd(v, x);
  const diag = regularizedVariance(v, new Float64Array(d));
  for (let j = 0; j < d; j++) assert.equal(out[j * d + j], diag[j]);
  // Fewer than two draws: the current value stands in for S.
  const one = welfordCovarianceInit(2);
  welfordCovarianceAdd(one, Float64Array.of(1, 2), new Float64Array(2));
  const kept = regularizedCovariance(one, Float64Array.of(2, 1, 1, 3));
  assert.deepEqual([...kept], [2 / 6 + 5e-3 / 6, 1 / 6, 1 / 6, 3 / 6 + 5e-3 / 6]);
});

Deno.test("`metricEstimator()` falls back to the diagonal when Σ̂ has no Cholesky factor", () => {
  // Two identical coordinates with variance ~1e20: the ridge 1e-3·5/(n+5) is lost in rounding.
  const estimator = metricEstimator("dense", 2);
  const diag = metricEstimator("diag", 2);
  for (let s = 0; s < 30; s++) {
    const x = Float64Array.of(1e10 * Math.sin(s), 1e10 * Math.sin(s));
    estimator.add(x);
    diag.add(x);
  }
  const metric = estimator.endWindow();
  assert.equal(metric.kind, "diag");
  assert.equal(estimator.fallbacks, 1);
  assert.deepEqual(metric.inverseDiagonal(), diag.endWindow().inverseDiagonal());
  // The next window, well conditioned, is dense again.
  for (let s = 0; s < 30; s++) estimator.add(Float64Array.of(Math.sin(s), Math.cos(s)));
  assert.equal(estimator.endWindow().kind, "dense");
  assert.equal(estimator.fallbacks, 1);
});

interface Regression {
  options: { seed: number; chains: number; warmup: number; draws: number; init: number[] };
  draws: number[];
  stepSizes: number[];
  inverseMassDiag: number[][];
  gradientEvaluations: number;
  divergences: number;
}
const REGRESSION = JSON.parse(
  await Deno.readTextFile(new URL("./diag_regression.json", import.meta.url)),
) as Regression;

/** (u0, u1) ~ N(0, [[0.01, 0.9], [0.9, 100]]); exp(u2) ~ Gamma(3, 1); exp(u3) ~ Gamma(0.7, 4). */
const REGRESSION_TARGET: LogDensityFn = (u, g) => {
  const a = u[0] / 0.1;
  const b = u[1] / 10;
  const s = 1 - 0.81;
  const e2 = Math.exp(u[2]);
  const e3 = 4 * Math.exp(u[3]);
  g[0] = -(a - 0.9 * b) / (s * 0.1);
  g[1] = -(b - 0.9 * a) / (s * 10);
  g[2] = 3 - e2;
  g[3] = 0.7 - e3;
  return -(a * a - 1.8 * a * b + b * b) / (2 * s) + 3 * u[2] - e2 + 0.7 * u[3] - e3;
};

Deno.test("`sample()` with the diagonal metric reproduces the draws recorded before the dense metric", () => {
  const { init, ...options } = REGRESSION.options;
  for (const metric of [undefined, "diag"] as const) {
    const r = sample(REGRESSION_TARGET, 4, { ...options, init: Float64Array.from(init), metric });
    assert.deepEqual([...r.draws], REGRESSION.draws);
    assert.deepEqual(r.stepSizes, REGRESSION.stepSizes);
    assert.deepEqual(r.chainInfo.map((c) => c.inverseMassDiag), REGRESSION.inverseMassDiag);
    assert.equal(r.gradientEvaluations, REGRESSION.gradientEvaluations);
    assert.equal(r.divergences, REGRESSION.divergences);
    assert.ok(r.chainInfo.every((c) => c.metric === "diag"));
  }
  assert.throws(
    () =>
      sample(REGRESSION_TARGET, 4, {
        seed: 1,
        init: new Float64Array(4),
        metric: "full" as "dense",
      }),
    /metric=full/,
  );
});
