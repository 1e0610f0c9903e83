import assert from "node:assert/strict";
import { CategoricalModel } from "../../src/models/categorical.ts";
import { LogisticModel } from "../../src/models/logistic.ts";
import { LogitSimd } from "../../src/models/logit_simd.ts";
import type { Design, Model, Weighting } from "../../src/models/model.ts";
import { Rng } from "../../src/random/rng.ts";
import * as h from "./_helpers.ts";

/** The agreement asked of the WASM loops: 1e-12 of the sum of the absolute terms. */
const RTOL = 1e-12;

/** One design, the model on the WASM loops and its TypeScript twin (`simd: false`). */
interface Case {
  readonly simd: Model;
  readonly plain: Model;
  readonly design: Design;
  /** L (2 for the logistic model). */
  readonly levels: number;
}

/**
 * n records with k − 1 covariates N(0, 3²) (every row distinct, so never grouped, but
 * `groupRows: false` as well for k = 1) and level codes drawn uniformly; `invalid` records get an
 * outcome that is not a level's code.
 */
function makeCase(
  kind: "logistic" | "categorical",
  n: number,
  k: number,
  levels: number,
  seed: number,
  invalid: readonly number[] = [],
): Case {
  const rng = new Rng(seed, 9);
  const y = Float64Array.from({ length: n }, () => Math.floor(rng.uniform() * levels));
  for (const [q, i] of invalid.entries()) y[i] = [levels, -1, 0.5][q % 3];
  const base = h.makeDesign(y, k, seed);
  const design = {
    ...base,
    x: base.x.map((v, at) => at % k === 0 ? v : 3 * v),
    outcomeLevels: Array.from({ length: levels }, (_, l) => `level${l}`),
  };
  const build = (simd: boolean) =>
    kind === "logistic"
      ? new LogisticModel(design, { groupRows: false, simd })
      : new CategoricalModel(design, { groupRows: false, simd });
  return { simd: build(true), plain: build(false), design, levels };
}

/** Record i's η_il (l = 0..L−1, η_i0 = 0) at the coefficients of u. */
function etas(c: Case, u: Float64Array, i: number): number[] {
  const { k, x } = c.design;
  const eta = [0];
  for (let l = 1; l < c.levels; l++) {
    let v = 0;
    for (let j = 0; j < k; j++) v += x[i * k + j] * u[(l - 1) * k + j];
    eta.push(v);
  }
  return eta;
}

/**
 * Record i's ℓ terms (|η_y − m| + log1p(rest), m = max_l η_l, rest = Σ_l e^{η_l − m} over all
 * levels but one at the maximum) and probabilities p_l, or null for an outcome that is not a
 * level's code.
 */
function recordTerms(c: Case, u: Float64Array, i: number): { l: number; p: number[] } | null {
  const y = c.design.y[i];
  if (!(Number.isInteger(y) && y >= 0 && y < c.levels)) return null;
  const eta = etas(c, u, i);
  const m = Math.max(...eta);
  const top = eta.indexOf(m);
  const rest = eta.reduce((s, v, l) => l === top ? s : s + Math.exp(v - m), 0);
  return {
    l: Math.abs(eta[y] - m) + Math.log1p(rest),
    p: eta.map((v) => Math.exp(v - m) / (1 + rest)),
  };
}

/**
 * Σ of the absolute terms of the log density and of each gradient entry (prior included: the
 * density with every α = 0), and the number of records the censor clamps.
 */
function scales(c: Case, u: Float64Array, w: Weighting) {
  const { n, k, x, y } = c.design;
  const censor = w.censor ?? Infinity;
  const ell = c.plain.logLik(c.plain.constrain(u), new Float64Array(n));
  const priorGrad = new Float64Array(c.simd.dim);
  let total = Math.abs(c.plain.logDensity(u, priorGrad, { alpha: new Float64Array(n) }));
  const grad = priorGrad.map(Math.abs);
  let clamped = 0;
  for (let i = 0; i < n; i++) {
    const a = w.alpha === null ? 1 : w.alpha[i];
    if (a === 0) continue;
    const terms = recordTerms(c, u, i);
    if (terms === null || Math.abs(a * ell[i]) > censor) {
      clamped++;
      total += Math.min(censor, Number.MAX_VALUE);
      continue;
    }
    total += a * terms.l;
    for (let l = 1; l < c.levels; l++) {
      // |α·(1[y = l] − p_l)|'s terms: α·(1[y = l] + p_l).
      const g = a * ((y[i] === l ? 1 : 0) + terms.p[l]);
      for (let j = 0; j < k; j++) grad[(l - 1) * k + j] += g * Math.abs(x[i * k + j]);
    }
  }
  return { total, grad, clamped };
}

/**
 * Asserts actual = expected or |actual − expected| ≤ RTOL·scale + 1e-300 (the kernel's exp is 0
 * below −708, where e^x < 3.4e-308 and Math.exp is subnormal).
 */
function close(actual: number, expected: number, scale: number, what: string): void {
  if (actual === expected) return;
  const err = Math.abs(actual - expected);
  assert.ok(
    err <= RTOL * scale + 1e-300,
    `${what}: ${actual} vs ${expected} (error ${err / scale} of ${scale})`,
  );
}

/** The WASM density and gradient against the TypeScript loop's at u. */
function checkDensity(c: Case, u: Float64Array, w: Weighting, label: string): void {
  const expectedGrad = new Float64Array(c.simd.dim);
  const expected = c.plain.logDensity(u, expectedGrad, w);
  const grad = new Float64Array(c.simd.dim);
  const value = c.simd.logDensity(u, grad, w);
  const scale = scales(c, u, w);
  close(value, expected, scale.total, `${label} value`);
  for (let j = 0; j < c.simd.dim; j++) {
    close(grad[j], expectedGrad[j], scale.grad[j], `${label} grad[${j}]`);
  }
  close(c.simd.logDensity(u, null, w), expected, scale.total, `${label} value without gradient`);
}

/** The WASM ℓ_i against the TypeScript loop's at θ(u), each relative to its terms' sum. */
function checkLogLik(c: Case, u: Float64Array, label: string): void {
  const n = c.design.n;
  const theta = c.plain.constrain(u);
  const expected = c.plain.logLik(theta, new Float64Array(n));
  const actual = c.simd.logLik(theta, new Float64Array(n));
  for (let i = 0; i < n; i++) {
    close(actual[i], expected[i], recordTerms(c, u, i)?.l ?? 1, `${label} ℓ[${i}]`);
  }
}

/** u with the coefficients of `beta` level by level (cycled), log-scales 0. */
function uAt(c: Case, beta: readonly number[]): Float64Array {
  const u = new Float64Array(c.simd.dim);
  for (let j = 0; j < u.length / 2; j++) u[j] = beta[j % beta.length];
  return u;
}

/** Every weighting: α = 1, α with zeros, and each with a censor that clamps some records. */
function weightings(c: Case, u: Float64Array, seed: number): [string, Weighting][] {
  const n = c.design.n;
  const alpha = h.uniforms(n, 0, 1, seed).map((a, i) => (i % 7 === 0 ? 0 : a));
  const list: [string, Weighting][] = [["α = 1", { alpha: null }], ["α", { alpha }]];
  if (n >= 100) {
    const ones = new Float64Array(n).fill(1);
    list.push(
      ["α = 1, C", { alpha: null, censor: censorBetween(c, u, ones) }],
      ["α, C", { alpha, censor: censorBetween(c, u, alpha) }],
    );
  }
  return list;
}

/**
 * A censoring bound C in the middle of the widest gap between consecutive sorted |α_i·ℓ_i| in
 * their middle half, at least 10⁻⁶ of C wide: some records are clamped, some not, none at a kink.
 */
function censorBetween(c: Case, u: Float64Array, alpha: Float64Array): number {
  const l = c.plain.logLik(c.plain.constrain(u), new Float64Array(c.design.n));
  const v = Array.from(l, (li, i) => Math.abs(alpha[i] * li)).sort((a, b) => a - b);
  let at = 0;
  let gap = -1;
  for (let i = Math.floor(v.length / 4); i < Math.floor((3 * v.length) / 4); i++) {
    if (v[i + 1] - v[i] > gap) [gap, at] = [v[i + 1] - v[i], 0.5 * (v[i] + v[i + 1])];
  }
  assert.ok(gap > 1e-6 * at, `no usable gap for the censoring bound: widest=${gap} at ${at}`);
  return at;
}

/** The kinds of model and level counts the tests run: L = 2 runs the logistic kernel. */
const KINDS: ["logistic" | "categorical", number][] = [
  ["logistic", 2],
  ["categorical", 2],
  ["categorical", 3],
  ["categorical", 4],
  ["categorical", 7],
];

Deno.test("`LogitSimd.available` holds in Deno, and the models use it only for ungrouped rows", () => {
  assert.equal(LogitSimd.available, true);
  // One binary covariate: 4 distinct (row, outcome) keys in 400 records, grouped; the default
  // model then runs the grouped loop, bit for bit the one with `simd: false`.
  const rng = new Rng(3);
  const x = Float64Array.from(
    { length: 800 },
    (_, at) => at % 2 === 0 ? 1 : rng.uniform() < 0.5 ? 1 : 0,
  );
  const y = Float64Array.from({ length: 400 }, () => Math.floor(3 * rng.uniform()));
  const design = { n: 400, k: 2, y, x, coefficientNames: ["intercept", "b"] };
  const models: [Model, Model][] = [
    [
      new LogisticModel({ ...design, y: y.map((v) => v % 2) }),
      new LogisticModel({ ...design, y: y.map((v) => v % 2) }, { simd: false }),
    ],
    [
      new CategoricalModel({ ...design, outcomeLevels: ["a", "b", "c"] }),
      new CategoricalModel({ ...design, outcomeLevels: ["a", "b", "c"] }, { simd: false }),
    ],
  ];
  for (const [grouped, plain] of models) {
    const u = Float64Array.from({ length: grouped.dim }, (_, j) => 0.3 * Math.sin(j + 1));
    const [ga, gb] = [new Float64Array(grouped.dim), new Float64Array(grouped.dim)];
    const w = { alpha: h.uniforms(400, 0, 1, 4) };
    assert.ok(Object.is(grouped.logDensity(u, ga, w), plain.logDensity(u, gb, w)));
    assert.deepEqual(ga, gb);
    const theta = grouped.constrain(u);
    assert.deepEqual(
      grouped.logLik(theta, new Float64Array(400)),
      plain.logLik(theta, new Float64Array(400)),
    );
  }
});

for (const [kind, levels] of KINDS) {
  Deno.test(`\`LogitSimd\` matches the ${kind} loop at L = ${levels}, k = 1, 2, 6, n = 1..1237`, () => {
    for (const k of [1, 2, 6]) {
      for (const n of [1, 2, 3, 513, 1237]) {
        const c = makeCase(kind, n, k, levels, 10 * k + n);
        for (const beta of [[0.4, -0.3, 0.2], [-1.5, 0.8, -0.6, 0.1], [3, 1.2, -2]]) {
          const u = uAt(c, beta);
          const label = `${kind} L=${levels} k=${k} n=${n} β=${beta}`;
          for (const [name, w] of weightings(c, u, n + k)) {
            if (w.censor !== undefined) {
              const { clamped } = scales(c, u, w);
              assert.ok(clamped > 0 && clamped < n, `${name}: the censor clamps ${clamped}`);
            }
            checkDensity(c, u, w, `${label} ${name}`);
          }
          checkLogLik(c, u, label);
        }
      }
    }
  });
}

Deno.test("`LogitSimd` matches at extreme η (|η| up to 800 and past exp's range)", () => {
  for (const [kind, levels] of KINDS) {
    const c = makeCase(kind, 801, 2, levels, 7);
    const alpha = h.uniforms(801, 0, 1, 8);
    for (const beta of [[800, 0], [-800, 0], [1, 300], [-30, 40], [700, -250, 0, 90]]) {
      const u = uAt(c, beta);
      const label = `${kind} L=${levels} β=${beta}`;
      checkDensity(c, u, { alpha: null }, label);
      checkDensity(c, u, { alpha }, `${label} α`);
      checkLogLik(c, u, label);
    }
  }
});

Deno.test("`LogitSimd` matches the categorical loop at tied and nearly tied levels", () => {
  for (const levels of [3, 4, 7]) {
    const c = makeCase("categorical", 515, 3, levels, 20 + levels);
    const k = 3;
    const alpha = h.uniforms(515, 0, 1, 9);
    // β_l = β for every level (ties among all but the reference), β_1 = 0 (a tie with level 0
    // whenever the others are lower), and levels 1e-14 apart.
    const beta = [0.2, -0.7, 0.5];
    const ties = new Float64Array(c.simd.dim);
    const withZero = new Float64Array(c.simd.dim);
    const near = new Float64Array(c.simd.dim);
    for (let l = 1; l < levels; l++) {
      for (let j = 0; j < k; j++) {
        ties[(l - 1) * k + j] = beta[j];
        withZero[(l - 1) * k + j] = l === 1 ? 0 : beta[j] - 2;
        near[(l - 1) * k + j] = beta[j] * (1 + 1e-14 * l);
      }
    }
    const points: [string, Float64Array][] = [
      ["ties", ties],
      ["tie with level 0", withZero],
      ["near", near],
    ];
    for (const [name, u] of points) {
      const label = `L=${levels} ${name}`;
      checkDensity(c, u, { alpha: null }, label);
      checkDensity(c, u, { alpha }, `${label} α`);
      checkLogLik(c, u, label);
    }
  }
});

Deno.test("`LogitSimd` gives an invalid outcome ℓ = −∞ and the TypeScript loop's clamp", () => {
  for (const [kind, levels] of KINDS) {
    const c = makeCase(kind, 301, 3, levels, 30 + levels, [0, 17, 300]);
    const u = uAt(c, [0.5, -0.4, 0.3]);
    const alpha = h.uniforms(301, 0, 1, 31);
    alpha[17] = 0;
    const label = `${kind} L=${levels}`;
    for (const w of [{ alpha: null }, { alpha }]) {
      assert.equal(c.simd.logDensity(u, null, w), -Infinity);
      assert.equal(c.plain.logDensity(u, null, w), -Infinity);
    }
    checkDensity(c, u, { alpha, censor: 3 }, `${label} α, C = 3`);
    checkDensity(c, u, { alpha: null, censor: 3 }, `${label} C = 3`);
    // Without the invalid records' α, the density is finite and the same.
    const skip = alpha.map((a, i) => [0, 17, 300].includes(i) ? 0 : a);
    checkDensity(c, u, { alpha: skip }, `${label} invalid records skipped`);
    checkLogLik(c, u, label);
    const l = c.simd.logLik(c.simd.constrain(u), new Float64Array(301));
    assert.deepEqual([l[0], l[17], l[300]], [-Infinity, -Infinity, -Infinity]);
  }
});

Deno.test("the gradient through `LogitSimd` matches finite differences", () => {
  for (const [kind, levels] of KINDS) {
    const c = makeCase(kind, 401, 3, levels, 40 + levels);
    const u = uAt(c, [0.3, -0.2, 0.25, 0.1]);
    for (let j = c.simd.dim / 2; j < c.simd.dim; j++) u[j] = 0.2;
    const alpha = h.uniforms(401, 0, 1, 41);
    h.checkGradient(c.simd, u, { alpha: null });
    h.checkGradient(c.simd, u, { alpha });
    h.checkGradient(c.simd, u, { alpha, censor: censorBetween(c, u, alpha) });
  }
});

Deno.test("`LogitSimd` rejects inconsistent arguments", () => {
  const design = { n: 3, k: 2, x: new Float64Array(6) };
  assert.throws(() => new LogitSimd(design, Int32Array.of(0, 1), 2), RangeError);
  assert.throws(() => new LogitSimd(design, Int32Array.of(0, 1, 2), 2), RangeError);
  assert.throws(() => new LogitSimd(design, Int32Array.of(0, 1, -2), 3), RangeError);
  assert.throws(() => new LogitSimd(design, Int32Array.of(0, 0, 0), 1), RangeError);
  assert.throws(() => new LogitSimd({ ...design, x: new Float64Array(5) }, new Int32Array(3), 2));
  const simd = new LogitSimd(design, Int32Array.of(0, 1, 2), 3);
  const u = new Float64Array(4);
  assert.throws(() => simd.logDensity(u, null, { alpha: new Float64Array(2) }), RangeError);
  assert.throws(() => simd.logDensity(u, null, { alpha: null, censor: 0 }), RangeError);
  assert.throws(() => simd.logLik(u, new Float64Array(2)), RangeError);
});
