import assert from "node:assert/strict";
import { all, create } from "mathjs";
import { LogisticModel } from "../../src/models/logistic.ts";
import type { Design } from "../../src/models/model.ts";
import * as h from "./_helpers.ts";

const build = (d: Design) => new LogisticModel(d);
const big = create(all, { number: "BigNumber", precision: 40 });

/** y·η − log(1 + e^η) in 40-digit arithmetic (η's shortest decimal form taken as exact). */
function exactLogLik(y: number, eta: number): number {
  const scope = { y: big.bignumber(y), eta: big.bignumber(eta) };
  return Number(big.evaluate("y * eta - log(1 + exp(eta))", scope));
}

h.logDensityTests("LogisticModel", build, {
  placeholder: 0,
  gradient: { at: [0.4], radius: 1, seed: 110 },
  target: { at: [-0.3], censor: 0.6 },
});

Deno.test("`LogisticModel.logLik()` matches y·η − log(1 + e^η) in 40-digit arithmetic, to |η| = 800", () => {
  // Dyadic η, so that the decimal BigNumber holds the very double the model sees.
  const etas = [-800, -40, -5, -(2 ** -10), 0, 2 ** -21, 0.75, 3, 36.75, 40, 800];
  const ys = [...etas.map(() => 0), ...etas.map(() => 1)];
  const model = build(h.designAtEta(ys, [...etas, ...etas]));
  const l = model.logLik(Float64Array.of(0, 1, 1, 1), new Float64Array(ys.length));
  ys.forEach((y, i) => {
    const eta = etas[i % etas.length];
    h.assertClose(l[i], exactLogLik(y, eta), 4e-16, 1e-300, `ℓ at y=${y}, η=${eta}`);
  });
  assert.equal(l[0], 0);
  assert.equal(l[etas.length - 1], -800);
  assert.equal(l[etas.length], -800);
});

Deno.test("`LogisticModel.logDensity()` stays finite with the exact gradient y − logit⁻¹(η) at |η| = 800", () => {
  const model = build(h.designAtEta([0, 1, 0, 1], [800, 800, -800, -800]));
  const u = model.unconstrain(Float64Array.of(0, 1, 1, 1));
  const grad = new Float64Array(4);
  const prior = model.logDensity(u, null, { alpha: new Float64Array(4) });
  const value = model.logDensity(u, grad, { alpha: null });
  h.assertClose(value - prior, -1600, 1e-15, 0, "Σ ℓ");
  const priorGrad = new Float64Array(4);
  model.logDensity(u, priorGrad, { alpha: new Float64Array(4) });
  // Records: (y − p)·(1, η) = (−1, −800), (0, 0), (0, 0), (1, −800).
  h.assertAllClose([grad[0] - priorGrad[0], grad[1] - priorGrad[1]], [0, -1600], 1e-15, "grad");
});

Deno.test("`LogisticModel` constrain/unconstrain round trip and parameter names", () => {
  const model = build(h.makeDesign(Float64Array.of(0, 1, 1), 2, 1));
  h.checkRoundTrip(model, Float64Array.of(0.5, -0.2, 0.7, 1.3), null);
});

Deno.test("`LogisticModel.simulate()` draws each record's 1 with frequency logit⁻¹(η_i)", () => {
  const model = build(h.makeDesign(new Float64Array(30), 2, 3));
  const theta = Float64Array.of(-0.4, 1.5, 1, 1);
  const x = model.design.x;
  const reps = 2000;
  const ones = new Float64Array(30);
  h.simulateRecords(model, theta, reps, 17, (i, y) => {
    assert.ok(y === 0 || y === 1);
    ones[i] += y;
  });
  for (let i = 0; i < 30; i++) {
    const p = 1 / (1 + Math.exp(-(theta[0] + theta[1] * x[2 * i + 1])));
    h.assertFrequency(ones[i], reps, p, `record ${i}`);
  }
});

Deno.test("`LogisticModel` gives an outcome other than 0 or 1 ℓ = −∞ and ignores it at α = 0", () => {
  const y = h.simulatedModel(build, 0, 20, 2, h.thetaAt(0.2), 8).design.y;
  h.checkZeroWeightRecord(build, y, 2, Float64Array.of(0.2, 0.5, 0, 0));
  h.checkZeroWeightRecord(build, y, 0.5, Float64Array.of(0.2, 0.5, 0, 0));
  // Censored at C with α > 0, the record contributes −C: clamp(−∞, ±C).
  const model = build(h.designAtEta([1, 3], [0.3, 0.3]));
  const u = Float64Array.of(0, 1, 0, 0);
  const both = model.logDensity(u, null, { alpha: Float64Array.of(1, 0.5), censor: 2 });
  const first = model.logDensity(u, null, { alpha: Float64Array.of(1, 0), censor: 2 });
  h.assertClose(both - first, -2, 1e-15, 0, "clamped −∞");
  assert.equal(model.logDensity(u, null, { alpha: null }), -Infinity);
});

Deno.test("`LogisticModel.initialPoint()` starts at the smoothed log-odds of the mean", () => {
  const model = build(h.makeDesign(Float64Array.of(1, 1, 1, 0), 2, 1));
  const u = model.initialPoint();
  h.assertClose(u[0], Math.log(3.5 / 1.5), 1e-15, 0, "intercept");
  assert.deepEqual([...u.subarray(1)], [0, 0, 0]);
  const allOnes = build(h.makeDesign(Float64Array.of(1, 1), 1, 1)).initialPoint();
  assert.ok(Number.isFinite(allOnes[0]));
});

Deno.test("`LogisticModel` refuses a design whose outcome levels are not two", () => {
  const design = h.makeDesign(Float64Array.of(0, 1), 1, 1);
  assert.throws(
    () => build({ ...design, outcomeLevels: ["a", "b", "c"] }),
    /needs a binary outcome: outcomeLevels.length=3/,
  );
  assert.equal(build({ ...design, outcomeLevels: ["no", "yes"] }).dim, 2);
});
