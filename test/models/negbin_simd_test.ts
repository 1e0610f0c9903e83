import assert from "node:assert/strict";
import type { Weighting } from "../../src/models/model.ts";
import { NegBinModel } from "../../src/models/negbin.ts";
import { NegBinSimd } from "../../src/models/negbin_simd.ts";
import { Rng } from "../../src/random/rng.ts";
import { digammaDiff, lgamma, log1pExp, logPochhammer, sigmoid } from "../../src/stats/special.ts";
import * as h from "./_helpers.ts";

/** The agreement asked of the WASM loops: 1e-12 of the sum of the absolute terms. */
const RTOL = 1e-12;

/** A NegBinModel, its prior-only twin (n = 0) and the WASM loops on one design. */
interface Case {
  readonly model: NegBinModel;
  readonly prior: NegBinModel;
  readonly simd: NegBinSimd;
  readonly values: readonly number[];
  readonly ids: Int32Array;
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly k: number;
  readonly n: number;
}

/**
 * n records with k − 1 standard normal covariates; outcomes mostly small counts, with zeros and
 * some of 10⁵ (large terms that cancel in ℓ).
 */
function makeCase(n: number, k: number, seed: number): Case {
  const rng = new Rng(seed, 5);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = rng.uniform();
    y[i] = v < 0.1 ? 0 : v < 0.15 ? 1e5 + Math.floor(10 * rng.uniform()) : Math.floor(60 * v);
  }
  const design = h.makeDesign(y, k, seed);
  const index = new Map<number, number>();
  const values: number[] = [];
  const ids = Int32Array.from(y, (v) => {
    let t = index.get(v);
    if (t === undefined) index.set(v, t = values.push(v) - 1);
    return t;
  });
  return {
    model: new NegBinModel(design, { simd: false }),
    prior: new NegBinModel(
      { ...design, n: 0, y: new Float64Array(0), x: new Float64Array(0) },
      { simd: false },
    ),
    simd: new NegBinSimd(design, ids, values.length),
    values,
    ids,
    x: design.x,
    y,
    k,
    n,
  };
}

/** negbin.ts's tables at φ: log Γ(v+φ) − log Γ(φ) − log Γ(v+1) and φ·[ψ(v+φ) − ψ(φ)]. */
function tables(c: Case, phi: number): { cst: Float64Array; psi: Float64Array } {
  return {
    cst: Float64Array.from(c.values, (v) => logPochhammer(phi, v) - lgamma(v + 1)),
    psi: Float64Array.from(c.values, (v) => phi * digammaDiff(phi, v)),
  };
}

/** η_i − log φ at u. */
function dAt(c: Case, u: Float64Array, i: number): number {
  let eta = u[0];
  for (let j = 1; j < c.k; j++) eta += c.x[i * c.k + j] * u[j];
  return eta + u[2 * c.k];
}

/**
 * Σ of the absolute terms of the log density and of each gradient entry (prior included): the
 * scale of the sums' rounding. Also the number of records the censor clamps.
 */
function scales(c: Case, u: Float64Array, w: Weighting) {
  const k = c.k;
  const priorGrad = new Float64Array(2 * k + 1);
  const total = [Math.abs(c.prior.logDensity(u, priorGrad, { alpha: null }))];
  const grad = priorGrad.map(Math.abs);
  const phi = Math.exp(-u[2 * k]);
  const { psi } = tables(c, phi);
  const l = c.model.logLik(c.model.constrain(u), new Float64Array(c.n));
  const censor = w.censor ?? Infinity;
  let clamped = 0;
  for (let i = 0; i < c.n; i++) {
    const a = w.alpha === null ? 1 : w.alpha[i];
    if (a === 0) continue;
    if (Math.abs(a * l[i]) > censor) {
      clamped++;
      total[0] += censor;
      continue;
    }
    total[0] += Math.abs(a * l[i]);
    const d = dAt(c, u, i);
    const s = sigmoid(d);
    const yi = c.y[i];
    const g = Math.abs(a * yi) + Math.abs(a * (yi + phi) * s);
    grad[0] += g;
    for (let j = 1; j < k; j++) grad[j] += g * Math.abs(c.x[i * k + j]);
    grad[2 * k] += a *
      (phi * (log1pExp(d) + s) + Math.abs(yi * sigmoid(-d)) + Math.abs(psi[c.ids[i]]));
  }
  return { total: total[0], grad, clamped };
}

/** Asserts actual = expected or |actual − expected| ≤ RTOL·scale. */
function close(actual: number, expected: number, scale: number, what: string): void {
  if (actual === expected) return;
  const err = Math.abs(actual - expected) / scale;
  assert.ok(err <= RTOL, `${what}: ${actual} vs ${expected} (error ${err} of ${scale})`);
}

/** The WASM density and gradient (plus the prior) against NegBinModel.logDensity at u. */
function checkDensity(c: Case, u: Float64Array, w: Weighting, label: string): void {
  const k = c.k;
  const expectedGrad = new Float64Array(2 * k + 1);
  const expected = c.model.logDensity(u, expectedGrad, w);
  const { cst, psi } = tables(c, Math.exp(-u[2 * k]));
  const grad = new Float64Array(2 * k + 1);
  const value = c.prior.logDensity(u, grad, { alpha: null }) +
    c.simd.logDensity(u, grad, w, cst, psi);
  const scale = scales(c, u, w);
  close(value, expected, scale.total, `${label} value`);
  for (let j = 0; j <= 2 * k; j++) {
    close(grad[j], expectedGrad[j], scale.grad[j], `${label} grad[${j}]`);
  }
  const noGrad = c.prior.logDensity(u, null, { alpha: null }) +
    c.simd.logDensity(u, null, w, cst, psi);
  close(noGrad, expected, scale.total, `${label} value without gradient`);
}

/** The WASM ℓ_i against NegBinModel.logLik at θ(u), each relative to its terms' sum. */
function checkLogLik(c: Case, u: Float64Array, label: string): void {
  const k = c.k;
  const theta = c.model.constrain(u);
  const phi = theta[2 * k];
  const expected = c.model.logLik(theta, new Float64Array(c.n));
  const { cst } = tables(c, phi);
  const actual = c.simd.logLik(theta, new Float64Array(c.n), cst);
  for (let i = 0; i < c.n; i++) {
    const d = dAt(c, u, i);
    const yi = c.y[i];
    const t = Math.abs(cst[c.ids[i]]) + Math.abs((phi + yi) * log1pExp(d)) + Math.abs(yi * d);
    close(actual[i], expected[i], t, `${label} ℓ[${i}]`);
  }
}

/** u with coefficients `beta`, log σ_β = 0 and log(1/φ) = `logRecipPhi`. */
function uAt(k: number, beta: readonly number[], logRecipPhi: number): Float64Array {
  const u = new Float64Array(2 * k + 1);
  u.set(beta);
  u[2 * k] = logRecipPhi;
  return u;
}

Deno.test("`NegBinSimd.available` holds in Deno", () => {
  assert.equal(NegBinSimd.available, true);
});

for (const k of [1, 2, 3]) {
  Deno.test(`\`NegBinSimd\` matches NegBinModel's loops at k = ${k}, with and without α and C`, () => {
    const c = makeCase(1237, k, 40 + k);
    const alpha = h.uniforms(c.n, 0, 1, 50 + k).map((a, i) => (i % 7 === 0 ? 0 : a));
    const ones = new Float64Array(c.n).fill(1);
    const beta = [2.5, 0.6, -0.4].slice(0, k);
    for (const logRecipPhi of [-3, 0, 6, -8]) {
      const u = uAt(k, beta, logRecipPhi);
      const weightings: [string, Weighting][] = [
        ["α = 1", { alpha: null }],
        ["α", { alpha }],
        ["α = 1, C", { alpha: null, censor: h.censorAwayFromKinks(c.model, u, ones) }],
        ["α, C", { alpha, censor: h.censorAwayFromKinks(c.model, u, alpha) }],
      ];
      for (const [name, w] of weightings) {
        if (w.censor !== undefined) {
          const { clamped } = scales(c, u, w);
          assert.ok(clamped > 0 && clamped < c.n, `${name}: the censor clamps ${clamped}`);
        }
        checkDensity(c, u, w, `k=${k} log(1/φ)=${logRecipPhi} ${name}`);
      }
      checkLogLik(c, u, `k=${k} log(1/φ)=${logRecipPhi}`);
    }
  });
}

Deno.test("`NegBinSimd` matches at extreme η (d from −1000 to 1000, past exp's range)", () => {
  const c2 = makeCase(801, 2, 7);
  const alpha = h.uniforms(c2.n, 0, 1, 8);
  for (const slope of [300, 40]) {
    for (const logRecipPhi of [-3, 4]) {
      const u = uAt(2, [1, slope], logRecipPhi);
      checkDensity(c2, u, { alpha: null }, `slope ${slope}, log(1/φ)=${logRecipPhi}`);
      checkDensity(c2, u, { alpha }, `slope ${slope}, log(1/φ)=${logRecipPhi}, α`);
      checkLogLik(c2, u, `slope ${slope}, log(1/φ)=${logRecipPhi}`);
    }
  }
  const c1 = makeCase(33, 1, 9);
  for (const b0 of [-1000, -740, -709, -30, 0, 30, 709, 1000]) {
    const u = uAt(1, [b0], 0);
    checkDensity(c1, u, { alpha: null }, `β_0 = ${b0}`);
    checkLogLik(c1, u, `β_0 = ${b0}`);
  }
});

Deno.test("`NegBinSimd` record ranges add up to the whole and leave the rest of `out` alone", () => {
  for (const n of [1, 2, 3, 1025]) {
    const c = makeCase(n, 3, 60 + n);
    const u = uAt(3, [2, 0.5, -0.3], -1);
    const { cst, psi } = tables(c, Math.exp(-u[6]));
    const alpha = h.uniforms(n, 0, 1, 61);
    const w = { alpha, censor: 50 };
    const whole = new Float64Array(7);
    const total = c.simd.logDensity(u, whole, w, cst, psi);
    const parts = new Float64Array(7);
    const cut = Math.floor(n / 2) | 1;
    const sum = c.simd.logDensity(u, parts, w, cst, psi, 0, Math.min(cut, n)) +
      c.simd.logDensity(u, parts, w, cst, psi, Math.min(cut, n), n);
    const scale = scales(c, u, w);
    close(sum, total, scale.total, `n=${n} split value`);
    for (let j = 0; j < 7; j++) close(parts[j], whole[j], scale.grad[j], `n=${n} split grad[${j}]`);
    const theta = c.model.constrain(u);
    const full = c.simd.logLik(theta, new Float64Array(n), cst);
    const out = new Float64Array(n).fill(7);
    c.simd.logLik(theta, out, cst, Math.min(cut, n), n);
    for (let i = 0; i < n; i++) assert.equal(out[i], i < Math.min(cut, n) ? 7 : full[i]);
  }
});

Deno.test("`NegBinSimd` rejects inconsistent arguments", () => {
  const c = makeCase(5, 2, 3);
  const u = uAt(2, [1, 0], 0);
  const { cst, psi } = tables(c, 1);
  const design = { n: 5, k: 2, y: c.y, x: c.x };
  assert.throws(() => new NegBinSimd(design, c.ids.map(() => c.values.length), c.values.length));
  assert.throws(() => new NegBinSimd(design, c.ids.subarray(1), c.values.length));
  assert.throws(() => c.simd.logDensity(u, null, { alpha: null }, cst.subarray(1), psi));
  assert.throws(() => c.simd.logDensity(u, null, { alpha: new Float64Array(4) }, cst, psi));
  assert.throws(() => c.simd.logDensity(u, null, { alpha: null }, cst, psi, 3, 2));
  assert.throws(() => c.simd.logLik(u, new Float64Array(4), cst));
});
