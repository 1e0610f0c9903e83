import assert from "node:assert/strict";
import { all, create } from "mathjs";
import { HurdleModel } from "../../src/models/hurdle.ts";
import { LogisticModel } from "../../src/models/logistic.ts";
import { LognormalModel } from "../../src/models/lognormal.ts";
import type { Design } from "../../src/models/model.ts";
import * as h from "./_helpers.ts";

const build = (d: Design) => new HurdleModel(d);
const big = create(all, { number: "BigNumber", precision: 40 });

/** ℓ of the hurdle model in 40-digit arithmetic (the inputs' shortest decimal forms as exact). */
function exactLogLik(y: number, etaG: number, etaB: number, sigma: number): number {
  const scope = {
    y: big.bignumber(y),
    g: big.bignumber(etaG),
    b: big.bignumber(etaB),
    s: big.bignumber(sigma),
  };
  if (y === 0) return Number(big.evaluate("-log(1 + exp(g))", scope));
  return Number(
    big.evaluate(
      "-log(1 + exp(-g)) - log(y * s * sqrt(2 * pi)) - (log(y) - b)^2 / (2 * s^2)",
      scope,
    ),
  );
}

h.logDensityTests("HurdleModel", build, {
  placeholder: 1,
  gradient: { at: [0.4, 0.7], radius: 0.8, seed: 140 },
  target: { at: [0.2, 0.9], censor: 1.1 },
});

Deno.test("`HurdleModel.logLik()` matches log(1 − p) and log p + the lognormal density in 40-digit arithmetic", () => {
  // Dyadic inputs, so that the decimal BigNumbers hold the very doubles the model sees.
  const ys = [0, 0, 0, 0.25, 1, 3.5, 1024, 0.0009765625];
  const etaG = [-800, 0, 800, 0.75, -3, 36.75, -800, 5];
  const etaB = [0, 0, 0, -1.5, 0.5, 1.25, 7, -6.5];
  // K = 3 with x = (1, η_γ, η_β): γ = (0, 1, 0) and β = (0, 0, 1) put record i at (η_γ, η_β).
  const n = ys.length;
  const x = new Float64Array(3 * n);
  ys.forEach((_, i) => x.set([1, etaG[i], etaB[i]], 3 * i));
  const model = build({
    n,
    k: 3,
    y: Float64Array.from(ys),
    x,
    coefficientNames: ["intercept", "g", "b"],
  });
  for (const sigma of [0.125, 0.5, 4]) {
    const theta = Float64Array.of(0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, sigma);
    const l = model.logLik(theta, new Float64Array(n));
    ys.forEach((y, i) => {
      const want = exactLogLik(y, etaG[i], etaB[i], sigma);
      // Each term of ℓ is rounded once; the tolerance scales with their absolute sum.
      const terms = y === 0 ? 0 : 0.92 + Math.abs(Math.log(y)) + Math.abs(Math.log(sigma)) +
        (Math.log(y) - etaB[i]) ** 2 / (2 * sigma * sigma);
      const scale = Math.abs(want) + terms;
      const where = `ℓ at y=${y}, η=(${etaG[i]}, ${etaB[i]}), σ=${sigma}`;
      h.assertClose(l[i], want, 0, 1e-300 + 1e-15 * scale, where);
    });
  }
});

Deno.test("`HurdleModel.logLik()` is the logistic ℓ of [y > 0] plus, for y > 0, the lognormal ℓ", () => {
  const base = h.simulatedModel(build, 1, 40, 3, h.thetaAt(0.1, 0.8), 31).design;
  const zeros = base.y.filter((y) => y === 0).length;
  assert.ok(zeros > 5 && zeros < 35, `zeros: ${zeros}`);
  const hurdle = build(base);
  const theta = Float64Array.of(0.1, -0.5, 0.3, 1.2, 0.2, -0.4, 1, 1, 1, 1, 1, 1, 0.7);
  const l = hurdle.logLik(theta, new Float64Array(40));
  const positive = base.y.map((y) => y > 0 ? 1 : 0);
  const logistic = new LogisticModel({ ...base, y: positive }).logLik(
    Float64Array.of(0.1, -0.5, 0.3, 1, 1, 1),
    new Float64Array(40),
  );
  const lognormal = new LognormalModel({ ...base, y: base.y.map((y) => y > 0 ? y : 1) }).logLik(
    Float64Array.of(1.2, 0.2, -0.4, 1, 1, 1, 0.7),
    new Float64Array(40),
  );
  for (let i = 0; i < 40; i++) {
    const want = logistic[i] + (positive[i] === 1 ? lognormal[i] : 0);
    h.assertClose(l[i], want, 1e-15, 1e-15, `record ${i}`);
  }
});

Deno.test("`HurdleModel` parameter names, dimensions and constrain/unconstrain round trip", () => {
  const model = build(h.makeDesign(Float64Array.of(0, 1, 2), 2, 1));
  const coefficients = ["nonzero:intercept", "nonzero:x1", "amount:intercept", "amount:x1"];
  h.checkTwoPartRoundTrip(
    model,
    [...coefficients, ...coefficients.map((c) => `sigma_beta_${c}`), "sigma"],
    Float64Array.of(0.5, -0.2, 3, 0.1, 0.7, 1.3, 0.2, 4, 0.6),
    8,
    /Invalid sigma: must be positive/,
  );
});

Deno.test("`HurdleModel.simulate()` gives zeros with frequency 1 − p_i and lognormal amounts", () => {
  const model = build(h.makeDesign(new Float64Array(10).fill(1), 2, 5));
  const theta = Float64Array.of(0.3, 1.1, 2, 0.5, 1, 1, 1, 1, 0.4);
  const x = model.design.x;
  const reps = 4000;
  const zeros = new Float64Array(10);
  const logSum = new Float64Array(10);
  h.simulateRecords(model, theta, reps, 23, (i, y) => {
    assert.ok(y >= 0);
    if (y === 0) zeros[i]++;
    else logSum[i] += Math.log(y);
  });
  for (let i = 0; i < 10; i++) {
    const v = x[2 * i + 1];
    const p = 1 / (1 + Math.exp(-(theta[0] + theta[1] * v)));
    h.assertFrequency(zeros[i], reps, 1 - p, `record ${i}: zeros`);
    const positives = reps - zeros[i];
    const mean = theta[2] + theta[3] * v;
    const got = logSum[i] / positives;
    assert.ok(Math.abs(got - mean) < 5 * 0.4 / Math.sqrt(positives), `record ${i}: log amount`);
  }
});

Deno.test("`HurdleModel` gives a negative or non-finite outcome ℓ = −∞ and ignores it at α = 0", () => {
  const y = h.simulatedModel(build, 1, 20, 2, h.thetaAt(0.5, 0.8), 8).design.y;
  const u = Float64Array.of(0.5, 0.2, 1, 0.1, 0, 0, 0, 0, -0.2);
  h.checkZeroWeightRecord(build, y, -1, u);
  h.checkZeroWeightRecord(build, y, Infinity, u);
  h.checkZeroWeightRecord(build, y, NaN, u);
});

Deno.test("`HurdleModel.initialPoint()` starts at the share of positives and the moments of their log", () => {
  const model = build(h.makeDesign(Float64Array.of(0, Math.E, Math.E ** 3, 0, 0), 2, 1));
  const u = model.initialPoint();
  h.assertClose(u[0], Math.log(2.5 / 3.5), 1e-15, 0, "nonzero intercept");
  h.assertClose(u[2], 2, 1e-15, 0, "amount intercept");
  h.assertClose(u[8], 0.5 * Math.log(2), 1e-15, 0, "log σ");
  assert.deepEqual([u[1], u[3], ...u.subarray(4, 8)], [0, 0, 0, 0, 0, 0]);
  assert.ok(Number.isFinite(model.logDensity(u, null, { alpha: null })));
  const allZero = build(h.makeDesign(new Float64Array(3), 1, 1)).initialPoint();
  assert.deepEqual([...allZero], [Math.log(0.5 / 3.5), 0, 0, 0, 0]);
});
