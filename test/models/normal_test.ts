import assert from "node:assert/strict";
import type { Design } from "../../src/models/model.ts";
import { NormalModel } from "../../src/models/normal.ts";
import {
  assertClose,
  checkGradients,
  checkRoundTrip,
  checkSimulatedMean,
  checkTargetIsWeightedSum,
  checkZeroWeightRecord,
  designAtEta,
  makeDesign,
  simulatedModel,
  thetaAt,
  uniforms,
} from "./_helpers.ts";

const build = (d: Design) => new NormalModel(d);

Deno.test("`NormalModel.logDensity()` gradient matches finite differences (K = 1 and 3)", () => {
  for (const k of [1, 3]) {
    const model = simulatedModel(build, 0, 40, k, thetaAt(2, 1.5), 1 + k);
    const centre = new Float64Array(model.dim);
    centre[0] = 2;
    checkGradients(model, centre, 0.5, 50 + k);
  }
});

Deno.test("`NormalModel.logDensity()` is the prior plus Σ clamp(α·ℓ, ±C)", () => {
  const model = simulatedModel(build, 0, 30, 3, thetaAt(1, 2), 5);
  const u = model.unconstrain(thetaAt(1, 2)(model.dim));
  const alpha = uniforms(30, 0, 1, 6);
  checkTargetIsWeightedSum(model, u, alpha);
  checkTargetIsWeightedSum(model, u, alpha, 1.2);
});

Deno.test("`NormalModel.logLik()` matches the normal density", () => {
  const ys = [0, 1.5, -3, 1e6, 2];
  const etas = [0, -0.5, 2, 1e6 - 3, 2 + 1e-9];
  const model = build(designAtEta(ys, etas));
  for (const sigma of [1e-3, 0.7, 40]) {
    const l = model.logLik(new Float64Array([0, 1, 1, 1, sigma]), new Float64Array(ys.length));
    for (let i = 0; i < ys.length; i++) {
      const z = (ys[i] - etas[i]) / sigma;
      const pdf = Math.exp(-0.5 * z * z) / (sigma * Math.sqrt(2 * Math.PI));
      const ref = pdf > 1e-300
        ? Math.log(pdf)
        : -0.5 * z * z - Math.log(sigma * Math.sqrt(2 * Math.PI));
      assertClose(l[i], ref, 1e-13, 1e-14, `ℓ at y=${ys[i]}, σ=${sigma}`);
    }
  }
});

Deno.test("`NormalModel` constrain/unconstrain round trip: u = log σ", () => {
  const model = build(makeDesign(new Float64Array([1, 2, 3]), 2, 1));
  const theta = new Float64Array([0.5, -0.2, 0.7, 1.3, 2.5]);
  checkRoundTrip(model, theta, "sigma");
  assertClose(model.unconstrain(theta)[4], Math.log(2.5), 1e-15, 0, "u_sigma");
});

Deno.test("`NormalModel.simulate()` averages to the model mean η", () => {
  const model = build(makeDesign(new Float64Array(50), 2, 3));
  const theta = new Float64Array([3, -1, 1, 1, 2]);
  const x = model.design.x;
  checkSimulatedMean(model, theta, (i) => theta[0] + theta[1] * x[2 * i + 1], () => 4, 200, 4);
});

Deno.test("`NormalModel` ignores an α = 0 record whose ℓ is not finite", () => {
  const y = simulatedModel(build, 0, 20, 2, thetaAt(1, 1), 8).design.y;
  checkZeroWeightRecord(build, y, NaN, new Float64Array([1, 0.2, 0, 0, 0]));
  checkZeroWeightRecord(build, y, Infinity, new Float64Array([1, 0.2, 0, 0, 0]));
});

Deno.test("`NormalModel.initialPoint()` starts at the mean and standard deviation", () => {
  const model = build(makeDesign(new Float64Array([1, 3, 5, 7]), 2, 1));
  const u = model.initialPoint();
  assert.equal(u[0], 4);
  assertClose(u[4], 0.5 * Math.log(20 / 3), 1e-15, 0, "log σ");
  assert.ok(Number.isFinite(model.logDensity(u, null, { alpha: null })));
});
