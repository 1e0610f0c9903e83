import assert from "node:assert/strict";
import {
  centredTerm,
  type EncodedFile,
  LatentClassModel,
  logMeanExp,
} from "../../src/models/latent_class.ts";
import { sampleGamma } from "../../src/random/distributions.ts";
import { Rng } from "../../src/random/rng.ts";

/** A file of n records over columns with the given levels, codes uniform (with repeats). */
function randomFile(n: number, levels: number[], rng: Rng): EncodedFile {
  return {
    n,
    columns: levels.map((L, j) => ({
      name: `c${j}`,
      levels: L,
      codes: Int32Array.from({ length: n }, () => Math.floor(rng.uniform() * L)),
    })),
  };
}

/** A θ with π and every φ_kj drawn from Dirichlet(1). */
function randomTheta(model: LatentClassModel, rng: Rng): Float64Array {
  const theta = new Float64Array(model.dim);
  const fill = (start: number, m: number) => {
    let total = 0;
    for (let l = 0; l < m; l++) total += theta[start + l] = sampleGamma(rng, 1, 1);
    for (let l = 0; l < m; l++) theta[start + l] /= total;
  };
  fill(0, model.K);
  for (let k = 0; k < model.K; k++) {
    model.levels.forEach((L, j) => fill(model.phiIndex(k, j, 0), L));
  }
  return theta;
}

/** u_i by the definition: plain products and powers, no logs until the end. */
function bruteTerm(
  model: LatentClassModel,
  file: EncodedFile,
  theta: Float64Array,
  i: number,
  a: number,
) {
  let sum = 0;
  for (let k = 0; k < model.K; k++) {
    let f = theta[model.piIndex(k)];
    file.columns.forEach((c, j) => f *= theta[model.phiIndex(k, j, c.codes[i])]);
    sum += Math.pow(f, a);
  }
  return Math.log(sum / model.K);
}

Deno.test("recordTerm() equals log (1/K) Σ_k (π_k f_k(x_i))^α evaluated directly", () => {
  const rng = new Rng(7);
  const file = randomFile(40, [2, 3, 5, 2], rng);
  const model = new LatentClassModel(file, 4);
  for (let t = 0; t < 5; t++) {
    const theta = randomTheta(model, rng);
    for (let i = 0; i < file.n; i++) {
      for (const a of [1, 0.73, 0.2, 0.01]) {
        const want = bruteTerm(model, file, theta, i, a);
        assert.ok(Math.abs(model.recordTerm(theta, i, a) - want) < 1e-12 * Math.max(1, -want));
      }
    }
  }
});

Deno.test("recordTerm() tends to log 1 = 0 as α → 0 and is log p − log K at α = 1", () => {
  const rng = new Rng(8);
  const file = randomFile(10, [3, 4], rng);
  const model = new LatentClassModel(file, 5);
  const theta = randomTheta(model, rng);
  const logLik = model.logLik(theta, new Float64Array(file.n));
  for (let i = 0; i < file.n; i++) {
    assert.equal(model.recordTerm(theta, i, 0), 0);
    const small = model.recordTerm(theta, i, 1e-9);
    assert.ok(small < 0 && small > -1e-7);
    assert.ok(Math.abs(model.recordTerm(theta, i, 1) - (logLik[i] - Math.log(5))) < 1e-12);
    assert.ok(
      Math.abs(logLik[i] - Math.log(Math.exp(bruteTerm(model, file, theta, i, 1)) * 5)) < 1e-12,
    );
  }
});

Deno.test("termMatrix(), termMaxima() and centredTerm() equal recordTerm() with mixed α over repeated records", () => {
  const rng = new Rng(9);
  // Up to 96 patterns among 200 records, so records repeat and columns fall into several blocks.
  const file = randomFile(200, [2, 2, 3, 4, 2], rng);
  const model = new LatentClassModel(file, 3);
  assert.ok(model.patterns < file.n);
  const alpha = Float64Array.from({ length: file.n }, (_, i) => [1, 0.5, 0, 0.25][i % 4]);
  const S = 6;
  const draws = new Float64Array(S * model.dim);
  for (let s = 0; s < S; s++) draws.set(randomTheta(model, rng), s * model.dim);
  const matrix = model.termMatrix(draws, alpha);
  const maxima = model.termMaxima(draws, alpha);
  const centred = centredTerm(maxima);
  for (let i = 0; i < file.n; i++) {
    let max = 0;
    let min = Infinity;
    for (let s = 0; s < S; s++) {
      const theta = draws.subarray(s * model.dim, (s + 1) * model.dim);
      const want = model.recordTerm(theta, i, alpha[i]);
      assert.ok(Math.abs(matrix[s * file.n + i] - want) < 1e-12 * Math.max(1, -want));
      max = Math.max(max, Math.abs(want));
      min = Math.min(min, Math.abs(want));
    }
    assert.ok(Math.abs(maxima.perRecord[i] - max) < 1e-12 * Math.max(1, max));
    assert.equal(Math.abs(matrix[maxima.argDraw[i] * file.n + i]), maxima.perRecord[i]);
    assert.ok(Math.abs(maxima.minimum[i] - min) < 1e-12 * Math.max(1, min));
    assert.equal(Math.abs(matrix[maxima.argMinDraw[i] * file.n + i]), maxima.minimum[i]);
    assert.ok(Math.abs(centred[i] - (max - min) / 2) < 1e-12 * Math.max(1, max));
    if (alpha[i] === 0) assert.equal(centred[i], 0);
  }
  const terms = model.terms(draws.subarray(0, model.dim), alpha, new Float64Array(file.n));
  assert.deepEqual(terms, matrix.subarray(0, file.n));
});

Deno.test("logMeanExp() is stable far below the exponential's range", () => {
  const v = Float64Array.of(-1000, -1000 + Math.log(3));
  assert.ok(Math.abs(logMeanExp(v, 0, 2) - (-1000 + Math.log(2))) < 1e-12);
  assert.equal(logMeanExp(Float64Array.of(-Infinity, -Infinity), 0, 2), -Infinity);
});

Deno.test("simulate() draws cells with frequencies Σ_k π_k φ_k1 φ_k2 (within 5 standard errors)", () => {
  const rng = new Rng(10);
  const file = randomFile(5, [2, 3], rng);
  const model = new LatentClassModel(file, 3);
  const theta = randomTheta(model, rng);
  const n = 40_000;
  const synthetic = model.simulate(theta, n, new Rng(11));
  assert.equal(synthetic.n, n);
  assert.deepEqual(synthetic.columns.map((c) => [c.name, c.levels]), [["c0", 2], ["c1", 3]]);
  for (let a = 0; a < 2; a++) {
    for (let b = 0; b < 3; b++) {
      let p = 0;
      for (let k = 0; k < 3; k++) {
        p += theta[k] * theta[model.phiIndex(k, 0, a)] * theta[model.phiIndex(k, 1, b)];
      }
      let count = 0;
      for (let i = 0; i < n; i++) {
        if (synthetic.columns[0].codes[i] === a && synthetic.columns[1].codes[i] === b) count++;
      }
      assert.ok(Math.abs(count / n - p) < 5 * Math.sqrt(p * (1 - p) / n), `cell ${a},${b}`);
    }
  }
});

Deno.test("LatentClassModel refuses codes outside a column's levels and K < 1", () => {
  const bad = { n: 1, columns: [{ name: "a", levels: 2, codes: Int32Array.of(2) }] };
  assert.throws(() => new LatentClassModel(bad, 2), /code outside 0\.\.1/);
  const ok = { n: 1, columns: [{ name: "a", levels: 2, codes: Int32Array.of(1) }] };
  assert.throws(() => new LatentClassModel(ok, 0), /classes/);
  assert.equal(new LatentClassModel(ok, 2).paramNames().length, new LatentClassModel(ok, 2).dim);
});
