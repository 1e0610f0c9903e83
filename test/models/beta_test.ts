import assert from "node:assert/strict";
import { gamma, lgamma as mjLgamma } from "mathjs";
import { BetaModel } from "../../src/models/beta.ts";
import type { Design } from "../../src/models/model.ts";
import * as h from "./_helpers.ts";

const build = (d: Design) => new BetaModel(d);

h.logDensityTests("BetaModel", build, {
  placeholder: 0.5,
  gradient: { at: [-0.5, 6], radius: 0.4, seed: 40 },
  target: { at: [0.2, 4], censor: 0.4 },
});

Deno.test("`BetaModel.logLik()` matches the Beta(μφ, (1−μ)φ) closed form from mathjs at edge cases", () => {
  const ys: number[] = [];
  const etas: number[] = [];
  for (const y of [1e-6, 0.3, 0.97, 1 - 1e-6]) {
    for (const eta of [-15, -1, 0, 2, 15]) {
      ys.push(y);
      etas.push(eta);
    }
  }
  const model = build(h.designAtEta(ys, etas));
  for (const phi of [1e-3, 0.8, 30, 1e6]) {
    const l = model.logLik(new Float64Array([0, 1, 1, 1, phi]), new Float64Array(ys.length));
    for (let i = 0; i < ys.length; i++) {
      const mu = 1 / (1 + Math.exp(-etas[i]));
      const nu = 1 / (1 + Math.exp(etas[i]));
      const terms = [
        mjLgamma(phi) as number,
        -(mjLgamma(mu * phi) as number),
        -(mjLgamma(nu * phi) as number),
        (mu * phi - 1) * Math.log(ys[i]),
        (nu * phi - 1) * Math.log1p(-ys[i]),
      ];
      const ref = terms.reduce((a, b) => a + b, 0);
      const scale = terms.reduce((a, b) => a + Math.abs(b), 0);
      // mathjs lgamma: about 2e-10 absolute; each term rounded to about 1e-16 relative.
      h.assertClose(l[i], ref, 0, 1e-9 + 1e-14 * scale, `ℓ at y=${ys[i]}, η=${etas[i]}, φ=${phi}`);
    }
  }
});

Deno.test("`BetaModel.logLik()` matches the density built from mathjs gamma", () => {
  const ys = [0.1, 0.5, 0.8, 0.33];
  const etas = [0, 1.2, -0.7, 2];
  const phi = 7.5;
  const model = build(h.designAtEta(ys, etas));
  const l = model.logLik(new Float64Array([0, 1, 1, 1, phi]), new Float64Array(4));
  for (let i = 0; i < 4; i++) {
    const a = phi / (1 + Math.exp(-etas[i]));
    const b = phi - a;
    const pdf = (gamma(phi) as number) / ((gamma(a) as number) * (gamma(b) as number)) *
      Math.pow(ys[i], a - 1) * Math.pow(1 - ys[i], b - 1);
    h.assertClose(l[i], Math.log(pdf), 1e-13, 1e-13, `log pdf at y=${ys[i]}`);
  }
});

Deno.test("`BetaModel` constrain/unconstrain round trip: u = log(1/φ)", () => {
  const model = build(h.makeDesign(new Float64Array([0.1, 0.2, 0.3]), 2, 1));
  const theta = new Float64Array([0.5, -0.2, 0.7, 1.3, 12]);
  h.checkPhiRoundTrip(model, theta);
});

Deno.test("`BetaModel.simulate()` averages to the model mean logit⁻¹(η)", () => {
  const model = build(h.makeDesign(new Float64Array(50).fill(0.5), 2, 3));
  const theta = new Float64Array([-0.4, 0.5, 1, 1, 5]);
  const x = model.design.x;
  const mean = (i: number) => 1 / (1 + Math.exp(-(theta[0] + theta[1] * x[2 * i + 1])));
  const variance = (i: number) => mean(i) * (1 - mean(i)) / (1 + theta[4]);
  h.checkSimulatedMean(model, theta, mean, variance, 200, 4);
});

Deno.test("`BetaModel` ignores α = 0 records at y = 0 and y = 1", () => {
  const y = h.simulatedModel(build, 0.5, 20, 2, h.thetaAt(0, 5), 8).design.y;
  h.checkZeroWeightRecord(build, y, 0, new Float64Array([0, 0.2, 0, 0, -1]));
  h.checkZeroWeightRecord(build, y, 1, new Float64Array([0, 0.2, 0, 0, -1]));
});

Deno.test("`BetaModel.initialPoint()` uses the mean and the moment estimate of φ", () => {
  const y = new Float64Array([0.2, 0.4, 0.6, 0.4]);
  const model = build(h.makeDesign(y, 1, 1));
  const u = model.initialPoint();
  const variance = (0.04 + 0 + 0.04 + 0) / 3;
  h.assertClose(u[0], Math.log(0.4 / 0.6), 1e-14, 1e-15, "intercept");
  h.assertClose(u[2], -Math.log((0.4 * 0.6) / variance - 1), 1e-14, 0, "log(1/φ)");
  assert.ok(Number.isFinite(model.logDensity(u, null, { alpha: null })));
});
