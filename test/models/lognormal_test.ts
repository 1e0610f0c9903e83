import assert from "node:assert/strict";
import { LognormalModel } from "../../src/models/lognormal.ts";
import type { Design } from "../../src/models/model.ts";
import * as h from "./_helpers.ts";

const build = (d: Design) => new LognormalModel(d);

h.logDensityTests("LognormalModel", build, {
  placeholder: 1,
  gradient: { at: [2, 0.8], radius: 0.5, seed: 60 },
  target: { at: [1, 0.5], censor: 1.2 },
});

Deno.test("`LognormalModel.logLik()` matches the lognormal density of y", () => {
  const ys = [1, 1e-8, 1e8, 3.7, 0.25];
  const etas = [0, -18, 18, 1, -1];
  const model = build(h.designAtEta(ys, etas));
  for (const sigma of [1e-2, 0.4, 10]) {
    const l = model.logLik(new Float64Array([0, 1, 1, 1, sigma]), new Float64Array(ys.length));
    for (let i = 0; i < ys.length; i++) {
      const z = (Math.log(ys[i]) - etas[i]) / sigma;
      const pdf = Math.exp(-0.5 * z * z) / (ys[i] * sigma * Math.sqrt(2 * Math.PI));
      h.assertClose(l[i], Math.log(pdf), 1e-13, 1e-14, `ℓ at y=${ys[i]}, σ=${sigma}`);
    }
  }
});

Deno.test("`LognormalModel` constrain/unconstrain round trip: u = log σ", () => {
  const model = build(h.makeDesign(new Float64Array([1, 2, 3]), 2, 1));
  const theta = new Float64Array([0.5, -0.2, 0.7, 1.3, 0.4]);
  h.checkRoundTrip(model, theta, "sigma");
});

Deno.test("`LognormalModel.simulate()` averages to the model mean e^{η + σ²/2}", () => {
  const model = build(h.makeDesign(new Float64Array(50).fill(1), 2, 3));
  const theta = new Float64Array([1, 0.3, 1, 1, 0.3]);
  const x = model.design.x;
  const s2 = theta[4] ** 2;
  const eta = (i: number) => theta[0] + theta[1] * x[2 * i + 1];
  const mean = (i: number) => Math.exp(eta(i) + s2 / 2);
  const variance = (i: number) => (Math.exp(s2) - 1) * Math.exp(2 * eta(i) + s2);
  h.checkSimulatedMean(model, theta, mean, variance, 200, 4);
});

Deno.test("`LognormalModel` ignores α = 0 records at y = 0 and y < 0", () => {
  const y = h.simulatedModel(build, 1, 20, 2, h.thetaAt(1, 0.5), 8).design.y;
  h.checkZeroWeightRecord(build, y, 0, new Float64Array([1, 0.2, 0, 0, 0]));
  h.checkZeroWeightRecord(build, y, -2, new Float64Array([1, 0.2, 0, 0, 0]));
});

Deno.test("`LognormalModel.initialPoint()` starts at the mean and sd of log y", () => {
  const model = build(h.makeDesign(new Float64Array([1, Math.E, Math.E ** 2]), 1, 1));
  const u = model.initialPoint();
  h.assertClose(u[0], 1, 1e-15, 0, "intercept");
  h.assertClose(u[2], 0, 0, 1e-15, "log σ");
  assert.ok(Number.isFinite(model.logDensity(u, null, { alpha: null })));
});
