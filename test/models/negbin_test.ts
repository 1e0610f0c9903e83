import assert from "node:assert/strict";
import { gamma, lgamma as mjLgamma, log } from "mathjs";
import type { Design } from "../../src/models/model.ts";
import { NegBinModel } from "../../src/models/negbin.ts";
import { PoissonModel } from "../../src/models/poisson.ts";
import * as h from "./_helpers.ts";

const build = (d: Design) => new NegBinModel(d);

/** Kahan-compensated Σ_{j<y} log(a + j). */
function sumLogs(a: number, y: number): number {
  let s = 0;
  let c = 0;
  for (let j = 0; j < y; j++) {
    const t = Math.log(a + j) - c;
    const next = s + t;
    c = next - s - t;
    s = next;
  }
  return s;
}

h.logDensityTests("NegBinModel", build, {
  placeholder: 0,
  gradient: { at: [Math.log(20), 3], radius: 0.3, seed: 30 },
  target: { at: [2, 4], censor: 1.5 },
});

Deno.test("`NegBinModel.logDensity()` gradient holds at tiny and huge φ", () => {
  const model = h.simulatedModel(build, 0, 30, 2, h.thetaAt(2, 5), 9);
  const alpha = h.uniforms(30, 0, 1, 10);
  for (const logRecipPhi of [6, -8]) {
    const u = new Float64Array([2, 0.2, 0, 0, logRecipPhi]);
    const grad = new Float64Array(model.dim);
    model.logDensity(u, grad, { alpha });
    const step = 1e-4;
    const f = (v: number) => {
      const w = Float64Array.from(u);
      w[4] = v;
      return model.logDensity(w, null, { alpha });
    };
    const d = (s: number) => (f(u[4] + s) - f(u[4] - s)) / (2 * s);
    h.assertClose(
      grad[4],
      (4 * d(step / 2) - d(step)) / 3,
      1e-6,
      1e-6,
      `∂/∂log(1/φ) at ${logRecipPhi}`,
    );
  }
});

Deno.test("`NegBinModel.logLik()` matches the neg_binomial_2 closed form from mathjs at edge cases", () => {
  const ys = [0, 5, 1e5, 0, 3, 1e5, 0, 12, 1e5, 2];
  const etas = [0, 1, Math.log(1e5), 2, 1, Math.log(9e4), Math.log(1e5), 3, 0, -20];
  for (const phi of [1e-3, 0.5, 7, 1e6]) {
    const model = build(h.designAtEta(ys, etas));
    const l = model.logLik(new Float64Array([0, 1, 1, 1, phi]), new Float64Array(ys.length));
    for (let i = 0; i < ys.length; i++) {
      const y = ys[i];
      const mu = Math.exp(etas[i]);
      const terms = [
        mjLgamma(y + phi) as number,
        -(mjLgamma(phi) as number),
        -(mjLgamma(y + 1) as number),
        phi * (log(phi / (mu + phi)) as number),
        y * (log(mu / (mu + phi)) as number),
      ];
      const ref = terms.reduce((a, b) => a + b, 0);
      const scale = terms.reduce((a, b) => a + Math.abs(b), 0);
      // mathjs lgamma: about 2e-10 absolute; each term rounded to about 1e-16 relative.
      h.assertClose(l[i], ref, 0, 1e-9 + 1e-14 * scale, `ℓ at y=${y}, η=${etas[i]}, φ=${phi}`);
      // A tighter reference for integer y: Γ(y+φ)/Γ(φ) = Π_{j<y}(φ + j), y! = Π_{j<y}(1 + j).
      const tight = sumLogs(phi, y) - sumLogs(1, y) - phi * Math.log1p(mu / phi) +
        y * (etas[i] - Math.log(mu + phi));
      const tightScale = sumLogs(phi, y) + sumLogs(1, y) + Math.abs(y * etas[i]) + mu +
        Math.abs(y * Math.log(mu + phi));
      h.assertClose(l[i], tight, 0, 1e-14 + 1e-14 * tightScale, `tight ℓ at y=${y}, φ=${phi}`);
    }
  }
});

Deno.test("`NegBinModel.logLik()` matches the pmf built from mathjs gamma at small counts", () => {
  const ys = [0, 1, 4, 9];
  const etas = [0.5, -1, 1.5, 2];
  const phi = 2.5;
  const model = build(h.designAtEta(ys, etas));
  const l = model.logLik(new Float64Array([0, 1, 1, 1, phi]), new Float64Array(4));
  for (let i = 0; i < 4; i++) {
    const y = ys[i];
    const mu = Math.exp(etas[i]);
    const pmf = (gamma(y + phi) as number) / ((gamma(phi) as number) * (gamma(y + 1) as number)) *
      Math.pow(phi / (mu + phi), phi) * Math.pow(mu / (mu + phi), y);
    h.assertClose(l[i], Math.log(pmf), 1e-13, 1e-13, `log pmf at y=${y}`);
  }
});

Deno.test("`NegBinModel.logLik()` tends to the Poisson log-likelihood as φ → ∞", () => {
  const design = h.makeDesign(Float64Array.from([0, 1, 4, 30, 200]), 2, 4);
  const theta = new Float64Array([1.5, 0.4, 1, 1, 1e13]);
  const nb = build(design).logLik(theta, new Float64Array(5));
  const pois = new PoissonModel(design).logLik(theta.subarray(0, 4), new Float64Array(5));
  // log NB − log Poisson = ((y − μ)² − y)/(2φ) + O(φ⁻²): a few 1e-9 here, resolved only if the
  // lgamma(y+φ) − lgamma(φ) term is computed without cancellation.
  const x = design.x;
  for (let i = 0; i < 5; i++) {
    const mu = Math.exp(theta[0] + theta[1] * x[2 * i + 1]);
    const y = design.y[i];
    const gap = ((y - mu) ** 2 - y) / (2 * theta[4]);
    h.assertClose(nb[i] - pois[i], gap, 0, 2e-12, `record ${i}`);
  }
});

Deno.test("`NegBinModel` constrain/unconstrain round trip: u = log(1/φ)", () => {
  const model = build(h.makeDesign(new Float64Array([1, 2, 3]), 2, 1));
  const theta = new Float64Array([0.5, -0.2, 0.7, 1.3, 4]);
  h.checkPhiRoundTrip(model, theta);
});

Deno.test("`NegBinModel.simulate()` averages to the model mean e^η", () => {
  const model = build(h.makeDesign(new Float64Array(50), 2, 3));
  const theta = new Float64Array([Math.log(6), 0.3, 1, 1, 3]);
  const x = model.design.x;
  const mean = (i: number) => Math.exp(theta[0] + theta[1] * x[2 * i + 1]);
  const variance = (i: number) => mean(i) + mean(i) ** 2 / theta[4];
  h.checkSimulatedMean(model, theta, mean, variance, 200, 4);
});

Deno.test("`NegBinModel` ignores an α = 0 record whose ℓ is not finite", () => {
  const y = h.simulatedModel(build, 0, 20, 2, h.thetaAt(1, 3), 8).design.y;
  h.checkZeroWeightRecord(build, y, -1, new Float64Array([1, 0.2, 0, 0, -1]));
});

Deno.test("`NegBinModel.initialPoint()` uses the moment estimate of φ", () => {
  const y = new Float64Array([0, 2, 10, 4, 1, 7]);
  const model = build(h.makeDesign(y, 1, 1));
  const u = model.initialPoint();
  const mean = 4;
  const variance = (16 + 4 + 36 + 0 + 9 + 9) / 5;
  h.assertClose(u[0], Math.log(mean), 1e-15, 0, "intercept");
  h.assertClose(u[2], -Math.log(mean ** 2 / (variance - mean)), 1e-14, 0, "log(1/φ)");
  assert.ok(Number.isFinite(model.logDensity(u, null, { alpha: null })));
});
