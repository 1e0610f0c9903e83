import assert from "node:assert/strict";
import type { Design } from "../../src/models/model.ts";
import { NormalModel } from "../../src/models/normal.ts";
import * as h from "./_helpers.ts";

const build = (d: Design) => new NormalModel(d);

h.logDensityTests("NormalModel", build, {
  placeholder: 0,
  gradient: { at: [2, 1.5], radius: 0.5, seed: 50 },
  target: { at: [1, 2], censor: 1.2 },
});

Deno.test("`NormalModel.logLik()` matches the normal density", () => {
  const ys = [0, 1.5, -3, 1e6, 2];
  const etas = [0, -0.5, 2, 1e6 - 3, 2 + 1e-9];
  const model = build(h.designAtEta(ys, etas));
  for (const sigma of [1e-3, 0.7, 40]) {
    const l = model.logLik(new Float64Array([0, 1, 1, 1, sigma]), new Float64Array(ys.length));
    for (let i = 0; i < ys.length; i++) {
      const z = (ys[i] - etas[i]) / sigma;
      const pdf = Math.exp(-0.5 * z * z) / (sigma * Math.sqrt(2 * Math.PI));
      const ref = pdf > 1e-300
        ? Math.log(pdf)
        : -0.5 * z * z - Math.log(sigma * Math.sqrt(2 * Math.PI));
      h.assertClose(l[i], ref, 1e-13, 1e-14, `ℓ at y=${ys[i]}, σ=${sigma}`);
    }
  }
});

Deno.test("`NormalModel` constrain/unconstrain round trip: u = log σ", () => {
  const model = build(h.makeDesign(new Float64Array([1, 2, 3]), 2, 1));
  const theta = new Float64Array([0.5, -0.2, 0.7, 1.3, 2.5]);
  h.checkRoundTrip(model, theta, "sigma");
  h.assertClose(model.unconstrain(theta)[4], Math.log(2.5), 1e-15, 0, "u_sigma");
});

Deno.test("`NormalModel.simulate()` averages to the model mean η", () => {
  const model = build(h.makeDesign(new Float64Array(50), 2, 3));
  const theta = new Float64Array([3, -1, 1, 1, 2]);
  const x = model.design.x;
  h.checkSimulatedMean(model, theta, (i) => theta[0] + theta[1] * x[2 * i + 1], () => 4, 200, 4);
});

Deno.test("`NormalModel` ignores an α = 0 record whose ℓ is not finite", () => {
  const y = h.simulatedModel(build, 0, 20, 2, h.thetaAt(1, 1), 8).design.y;
  h.checkZeroWeightRecord(build, y, NaN, new Float64Array([1, 0.2, 0, 0, 0]));
  h.checkZeroWeightRecord(build, y, Infinity, new Float64Array([1, 0.2, 0, 0, 0]));
});

Deno.test("`NormalModel.initialPoint()` starts at the mean and standard deviation", () => {
  const model = build(h.makeDesign(new Float64Array([1, 3, 5, 7]), 2, 1));
  const u = model.initialPoint();
  assert.equal(u[0], 4);
  h.assertClose(u[4], 0.5 * Math.log(20 / 3), 1e-15, 0, "log σ");
  assert.ok(Number.isFinite(model.logDensity(u, null, { alpha: null })));
});
