import assert from "node:assert/strict";
import { all, create } from "mathjs";
import { CategoricalModel } from "../../src/models/categorical.ts";
import { LogisticModel } from "../../src/models/logistic.ts";
import type { Design } from "../../src/models/model.ts";
import * as h from "./_helpers.ts";

const LEVELS = ["a", "b", "c"];
const build = (d: Design) => new CategoricalModel({ ...d, outcomeLevels: LEVELS });
const big = create(all, { number: "BigNumber", precision: 40 });

/** η_y − log Σ_l e^{η_l} with η_0 = 0, in 40-digit arithmetic. */
function exactLogLik(y: number, eta: readonly number[]): number {
  const scope: Record<string, unknown> = {};
  const terms = ["exp(0)"];
  eta.forEach((v, l) => {
    scope[`e${l}`] = big.bignumber(v);
    terms.push(`exp(e${l})`);
  });
  const picked = y === 0 ? "0" : `e${y - 1}`;
  return Number(big.evaluate(`${picked} - log(${terms.join(" + ")})`, scope));
}

h.logDensityTests("CategoricalModel", build, {
  placeholder: 0,
  gradient: { at: [0.3], radius: 1, seed: 120 },
  target: { at: [-0.2], censor: 0.9 },
});

Deno.test("`CategoricalModel.logDensity()` gradient matches finite differences with five levels", () => {
  const five = (d: Design) =>
    new CategoricalModel({ ...d, outcomeLevels: ["p", "q", "r", "s", "t"] });
  const model = h.simulatedModel(five, 0, 60, 3, h.thetaAt(0.5), 4);
  assert.deepEqual(new Set(model.design.y), new Set([0, 1, 2, 3, 4]));
  h.checkGradients(model, new Float64Array(model.dim), 1, 130);
});

Deno.test("`CategoricalModel.logLik()` matches the log softmax in 40-digit arithmetic, to |η| = 800", () => {
  // Dyadic η, so that the decimal BigNumber holds the very double the model sees.
  const cases: [number, number, number][] = [
    [0, 0, 0],
    [2, 0.75, -1.5],
    [1, 800, 799.5],
    [0, 800, 799.5],
    [2, -800, -40],
    [0, -800, -40],
    [1, 36.75, -0.125],
  ];
  // x = (1, v, w), β_b = (0, 1, 0) and β_c = (0, 0, 1) put record i at (η_b, η_c) = (v, w).
  const n = cases.length;
  const x = new Float64Array(3 * n);
  cases.forEach(([, v, w], i) => x.set([1, v, w], 3 * i));
  const design = {
    n,
    k: 3,
    y: Float64Array.from(cases, ([y]) => y),
    x,
    coefficientNames: ["intercept", "v", "w"],
    outcomeLevels: LEVELS,
  };
  // The WebAssembly loop (the default) and the TypeScript one: V8's Math.log1p rounds
  // correctly, the WebAssembly log1p to under one ulp.
  for (const simd of [true, false]) {
    const model = new CategoricalModel(design, { simd });
    const theta = Float64Array.of(0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1);
    const l = model.logLik(theta, new Float64Array(n));
    cases.forEach(([y, v, w], i) => {
      h.assertClose(l[i], exactLogLik(y, [v, w]), 4e-16, 1e-300, `ℓ at y=${y}, η=(${v}, ${w})`);
    });
    h.assertClose(l[0], -Math.log(3), simd ? Number.EPSILON : 1e-16, 0, `η = 0, simd: ${simd}`);
  }
});

Deno.test("`CategoricalModel` with two levels is the logistic model with the same prior", () => {
  const design = h.makeDesign(Float64Array.of(0, 1, 1, 0, 1, 0, 0, 1), 3, 9);
  const categorical = new CategoricalModel({ ...design, outcomeLevels: ["no", "yes"] });
  const logistic = new LogisticModel(design);
  assert.equal(categorical.dim, logistic.dim);
  const u = Float64Array.of(0.3, -0.8, 1.1, 0.2, -0.4, 0.6);
  const alpha = h.uniforms(8, 0, 1, 3);
  for (const weighting of [{ alpha: null }, { alpha }, { alpha, censor: 0.4 }]) {
    const g1 = new Float64Array(6);
    const g2 = new Float64Array(6);
    const v1 = categorical.logDensity(u, g1, weighting);
    const v2 = logistic.logDensity(u, g2, weighting);
    h.assertClose(v1, v2, 1e-14, 0, "log density");
    h.assertAllClose(g1, g2, 1e-14, "gradient");
  }
  const theta = logistic.constrain(u);
  h.assertAllClose(
    categorical.logLik(theta, new Float64Array(8)),
    logistic.logLik(theta, new Float64Array(8)),
    1e-15,
    "ℓ",
  );
});

Deno.test("`CategoricalModel` parameter names, dimensions and constrain/unconstrain round trip", () => {
  const model = build(h.makeDesign(Float64Array.of(0, 1, 2), 2, 1));
  const coefficients = ["level=b:intercept", "level=b:x1", "level=c:intercept", "level=c:x1"];
  h.checkTwoPartRoundTrip(
    model,
    [...coefficients, ...coefficients.map((c) => `sigma_beta_${c}`)],
    Float64Array.of(0.5, -0.2, 1.5, 0.1, 0.7, 1.3, 0.2, 4),
    6,
    /sigma_beta_level=c:intercept/,
  );
});

Deno.test("`CategoricalModel.simulate()` draws each level with frequency p_il", () => {
  const model = build(h.makeDesign(new Float64Array(12), 2, 5));
  const theta = Float64Array.of(0.4, 1.2, -0.6, -0.9, 1, 1, 1, 1);
  const x = model.design.x;
  const reps = 3000;
  const counts = new Float64Array(12 * 3);
  h.simulateRecords(model, theta, reps, 21, (i, y) => counts[3 * i + y]++);
  for (let i = 0; i < 12; i++) {
    const v = x[2 * i + 1];
    const w = [1, Math.exp(theta[0] + theta[1] * v), Math.exp(theta[2] + theta[3] * v)];
    const total = w[0] + w[1] + w[2];
    for (let l = 0; l < 3; l++) {
      h.assertFrequency(counts[3 * i + l], reps, w[l] / total, `record ${i}, level ${l}`);
    }
  }
});

Deno.test("`CategoricalModel` gives an outcome that is no level's code ℓ = −∞ and ignores it at α = 0", () => {
  const y = h.simulatedModel(build, 0, 20, 2, h.thetaAt(0.2), 8).design.y;
  const u = Float64Array.of(0.2, 0.5, -0.1, 0.3, 0, 0, 0, 0);
  h.checkZeroWeightRecord(build, y, 3, u);
  h.checkZeroWeightRecord(build, y, 1.5, u);
  h.checkZeroWeightRecord(build, y, -1, u);
});

Deno.test("`CategoricalModel.initialPoint()` starts each intercept at its smoothed log-odds", () => {
  const model = build(h.makeDesign(Float64Array.of(0, 0, 1, 2, 2, 2), 2, 1));
  const u = model.initialPoint();
  h.assertClose(u[0], Math.log(1.5 / 2.5), 1e-15, 0, "level b");
  h.assertClose(u[2], Math.log(3.5 / 2.5), 1e-15, 0, "level c");
  assert.deepEqual([u[1], u[3], ...u.subarray(4)], [0, 0, 0, 0, 0, 0]);
  assert.ok(Number.isFinite(model.logDensity(u, null, { alpha: null })));
});

Deno.test("`CategoricalModel` needs outcome levels, at least two", () => {
  const design = h.makeDesign(Float64Array.of(0, 1), 1, 1);
  assert.throws(() => new CategoricalModel(design), /needs outcomeLevels .*length=0/);
  assert.throws(
    () => new CategoricalModel({ ...design, outcomeLevels: ["a"] }),
    /at least two levels: length=1/,
  );
});
