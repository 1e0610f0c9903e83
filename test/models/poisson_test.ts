import assert from "node:assert/strict";
import { exp, factorial, lgamma as mjLgamma, log, pow } from "mathjs";
import type { Design } from "../../src/models/model.ts";
import { PoissonModel } from "../../src/models/poisson.ts";
import * as h from "./_helpers.ts";

const build = (d: Design) => new PoissonModel(d);

h.logDensityTests("PoissonModel", build, {
  placeholder: 0,
  gradient: { at: [Math.log(5)], radius: 0.3, seed: 20 },
  target: { at: [1], censor: 0.8 },
});

Deno.test("`PoissonModel.logLik()` matches y·log μ − μ − lgamma(y+1) from mathjs at edge cases", () => {
  const ys = [0, 0, 1, 3, 7, 1e5, 1e5, 40];
  const etas = [-2, 5, 0, Math.log(2), -3, Math.log(1e5), Math.log(1e5) + 0.01, 12];
  const model = build(h.designAtEta(ys, etas));
  const l = model.logLik(new Float64Array([0, 1, 1, 1]), new Float64Array(ys.length));
  for (let i = 0; i < ys.length; i++) {
    const mu = Math.exp(etas[i]);
    const lg = mjLgamma(ys[i] + 1) as number;
    const ref = ys[i] * etas[i] - mu - lg;
    // mathjs lgamma is accurate to about 2e-10 in absolute terms.
    const scale = Math.abs(ys[i] * etas[i]) + mu + lg;
    h.assertClose(l[i], ref, 0, 1e-9 + 1e-14 * scale, `ℓ at y=${ys[i]}, η=${etas[i]}`);
    if (ys[i] <= 40) {
      const pmf = (pow(mu, ys[i]) as number) * (exp(-mu) as number) /
        (factorial(ys[i]) as number);
      h.assertClose(l[i], log(pmf) as number, 1e-13, 1e-13, `log pmf at y=${ys[i]}`);
    }
  }
});

Deno.test("`PoissonModel` constrain/unconstrain round trip and parameter names", () => {
  const model = build(h.makeDesign(new Float64Array([1, 2, 3]), 2, 1));
  h.checkRoundTrip(model, new Float64Array([0.5, -0.2, 0.7, 1.3]), null);
  assert.throws(() => model.constrain(new Float64Array(3)), RangeError);
});

Deno.test("`PoissonModel.simulate()` averages to the model mean e^η", () => {
  const model = build(h.makeDesign(new Float64Array(50), 2, 3));
  const theta = new Float64Array([Math.log(4), 0.3, 1, 1]);
  const x = model.design.x;
  const mean = (i: number) => Math.exp(theta[0] + theta[1] * x[2 * i + 1]);
  h.checkSimulatedMean(model, theta, mean, mean, 200, 4);
});

Deno.test("`PoissonModel` ignores an α = 0 record whose ℓ is not finite", () => {
  const y = h.simulatedModel(build, 0, 20, 2, h.thetaAt(1), 8).design.y;
  h.checkZeroWeightRecord(build, y, -1, new Float64Array([1, 0.2, 0, 0]));
});

Deno.test("`PoissonModel.initialPoint()` starts at the log mean with a finite target", () => {
  const model = build(h.makeDesign(new Float64Array([2, 4, 6, 0]), 2, 1));
  const u = model.initialPoint();
  h.assertClose(u[0], Math.log(3), 1e-15, 0, "intercept");
  assert.deepEqual([...u.subarray(1)], [0, 0, 0]);
  assert.ok(Number.isFinite(model.logDensity(u, null, { alpha: null })));
});
