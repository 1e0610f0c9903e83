import assert from "node:assert/strict";
import { fitModel } from "../../src/mcmc/fit.ts";
import { sample } from "../../src/mcmc/sample.ts";
import { buildDesign } from "../../src/data/design.ts";
import {
  FBS_COEFFICIENT_SD,
  FbsModel,
  lkj2LogDensity,
  logOneMinusTanhSquared,
} from "../../src/models/fbs.ts";
import type { Design } from "../../src/models/model.ts";
import { NormalModel } from "../../src/models/normal.ts";
import { isSurveyModel, synthesizeWeights } from "../../src/models/survey_model.ts";
import { Rng } from "../../src/random/rng.ts";
import { simulatePopulation } from "../../src/survey/population.ts";
import { ppsSample, sampleDataset } from "../../src/survey/pps_sample.ts";
import * as mh from "./_helpers.ts";

/** θ for K coefficients: β_y = (b_y, 0.4, −0.3, …), β_w = (b_w, −0.5, 0.6, …), σ_y, σ_w, ρ. */
function thetaFor(k: number, by: number, bw: number, sy: number, sw: number, rho: number) {
  const t = new Float64Array(2 * k + 3);
  for (let j = 0; j < k; j++) {
    t[j] = j === 0 ? by : j % 2 === 1 ? 0.4 : -0.3;
    t[k + j] = j === 0 ? bw : j % 2 === 1 ? -0.5 : 0.6;
  }
  t.set([sy, sw, rho], 2 * k);
  return t;
}

/**
 * A survey design whose K − 1 covariates are the treatment dummies of a K-level factor
 * (record i has level i mod K), with (log y, log w) drawn from the FBS model at θ.
 */
function fbsDesign(n: number, k: number, theta: Float64Array, seed: number): Design {
  const rng = new Rng(seed, 21);
  const [sy, sw, rho] = theta.subarray(2 * k);
  return mh.factorSurveyDesign(n, k, (level) => {
    const my = theta[0] + (level > 0 ? theta[level] : 0);
    const mw = theta[k] + (level > 0 ? theta[k + level] : 0);
    const z1 = rng.normal();
    const z2 = rng.normal();
    return [Math.exp(my + sy * z1), Math.exp(mw + sw * (rho * z1 + Math.sqrt(1 - rho * rho) * z2))];
  });
}

/** A random u near θ: coefficients ±0.3, log-scales ±0.5, atanh ρ ±0.5. */
function jitter(model: FbsModel, theta: Float64Array, seed: number): Float64Array {
  const rng = new Rng(seed, 5);
  const u = model.unconstrain(theta);
  for (let j = 0; j < u.length; j++) {
    u[j] += (2 * rng.uniform() - 1) * (j < 2 * (model.design.k) ? 0.3 : 0.5);
  }
  return u;
}

Deno.test("`FbsModel.logDensity()` gradient matches finite differences (K = 1 and 3, α, censoring)", () => {
  mh.checkGradientsForK((k) => {
    const theta = thetaFor(k, 3, 2, 0.6, 0.8, -0.5);
    return { model: new FbsModel(fbsDesign(40, k, theta, 1 + k)), theta };
  }, jitter);
});

Deno.test("`FbsModel.logDensity()` is the prior plus Σ clamp(α·ℓ, ±C)", () => {
  const theta = thetaFor(3, 3, 2, 0.6, 0.8, 0.4);
  mh.checkTargetAt(new FbsModel(fbsDesign(30, 3, theta, 7)), theta, 8);
});

Deno.test("`FbsModel.logLik()` matches the bivariate normal density from mathjs inv and det", () => {
  const theta = thetaFor(3, 3, 2, 0.6, 0.8, -0.7);
  const design = fbsDesign(12, 3, theta, 9);
  const model = new FbsModel(design);
  for (const [sy, sw, rho] of [[0.6, 0.8, -0.7], [0.05, 3, 0.99], [2, 0.1, 0], [1, 1, -0.999]]) {
    theta.set([sy, sw, rho], 6);
    const l = model.logLik(theta, new Float64Array(12));
    const sigma = [[sy * sy, rho * sy * sw], [rho * sy * sw, sw * sw]];
    for (let i = 0; i < 12; i++) {
      const level = i % 3;
      const r = [
        Math.log(design.y[i]) - theta[0] - (level > 0 ? theta[level] : 0),
        Math.log(design.weight![i]) - theta[3] - (level > 0 ? theta[3 + level] : 0),
      ];
      const ref = mh.bivariateNormalLogPdf(r, sigma);
      mh.assertClose(l[i], ref, 1e-11, 1e-11, `ℓ[${i}] at σ_y=${sy}, σ_w=${sw}, ρ=${rho}`);
    }
  }
});

Deno.test("`FbsModel` prior: N(0, 10²) coefficients, half-t(3, 0, 10) scales and LKJ(6) by hand", () => {
  const theta = new Float64Array([1.5, -0.5, 0.4, 2.5, 0.3]);
  const design: Design = {
    n: 1,
    k: 1,
    y: new Float64Array([1]),
    x: new Float64Array([1]),
    coefficientNames: ["intercept"],
    weight: new Float64Array([1]),
  };
  const model = new FbsModel(design);
  assert.equal(model.dim, 5);
  assert.equal(FBS_COEFFICIENT_SD, 10);
  const u = model.unconstrain(theta);
  // half-t(3, 0, 10) at x: 2Γ(2)/(Γ(3/2)√(3π)·10)·(1 + x²/300)⁻², with Γ(3/2) = √π/2; times x.
  const halfT = (x: number) => 4 / (Math.PI * Math.sqrt(3) * 10) * (1 + x * x / 300) ** -2 * x;
  const normal = (b: number, s: number) =>
    Math.exp(-0.5 * (b / s) ** 2) / (s * Math.sqrt(2 * Math.PI));
  const rho = theta[4];
  const lkj = (2772 / 2048) * (1 - rho * rho) ** 5 * (1 - rho * rho);
  const want = Math.log(normal(1.5, 10) * normal(-0.5, 10) * halfT(0.4) * halfT(2.5) * lkj);
  const grad = new Float64Array(5);
  const got = model.logDensity(u, grad, { alpha: new Float64Array(1) });
  mh.assertClose(got, want, 1e-13, 1e-13, "log prior");
  // ∂/∂β log N(β | 0, 10²) = −β/100.
  mh.assertClose(grad[0], -1.5 / 100, 1e-15, 0, "∂/∂β_y");
  mh.assertClose(grad[1], 0.5 / 100, 1e-15, 0, "∂/∂β_w");
  // d/du log[p(e^u)·e^u] = 1 − 4z/(1 + z), z = x²/300; LKJ(6): −12ρ.
  for (const [j, x] of [[2, 0.4], [3, 2.5]]) {
    const z = x * x / 300;
    mh.assertClose(grad[j], 1 - 4 * z / (1 + z), 1e-14, 0, model.paramNames[j]);
  }
  mh.assertClose(grad[4], -12 * rho, 1e-14, 0, "∂/∂atanh ρ");
});

Deno.test("`lkj2LogDensity()` integrates to 1 over v and `logOneMinusTanhSquared()` is stable", () => {
  // ∫ exp(log p(v)) dv by the trapezoid rule on [−12, 12] (the tails are below e^{−100}).
  for (const eta of [1, 2, 6]) {
    const h = 1e-3;
    let sum = 0;
    for (let v = -12; v <= 12 + h / 2; v += h) sum += Math.exp(lkj2LogDensity(v, eta));
    mh.assertClose(sum * h, 1, 1e-9, 0, `∫ LKJ(${eta})`);
  }
  for (const v of [-3, -0.2, 0, 0.7, 5]) {
    mh.assertClose(
      logOneMinusTanhSquared(v),
      Math.log(1 - Math.tanh(v) ** 2),
      1e-12,
      1e-15,
      `v=${v}`,
    );
  }
  // 1 − tanh²v = 4e^{−2|v|}/(1 + e^{−2|v|})² where tanh v rounds to ±1.
  for (const v of [30, -400]) {
    const a = Math.abs(v);
    mh.assertClose(logOneMinusTanhSquared(v), Math.log(4) - 2 * a, 1e-15, 0, `v=${v}`);
  }
});

Deno.test("`FbsModel` constrain/unconstrain round trip, names and range checks", () => {
  const theta = thetaFor(3, 3, 2, 0.6, 0.8, -0.95);
  const model = new FbsModel(fbsDesign(6, 3, theta, 2));
  assert.equal(model.dim, 9);
  assert.deepEqual(model.paramNames, [
    ...mh.threeLevelNames("beta_y_"),
    ...mh.threeLevelNames("beta_w_"),
    "sigma_y",
    "sigma_w",
    "rho",
  ]);
  const u = mh.checkRangeChecks(model, theta, [[6, 0], [7, -1], [8, 1], [8, -1.5]]);
  mh.assertAllClose(u.subarray(0, 6), theta.subarray(0, 6), 0, "u_beta = beta");
  mh.assertClose(u[6], Math.log(0.6), 1e-15, 0, "u_sigma_y");
  mh.assertClose(u[7], Math.log(0.8), 1e-15, 0, "u_sigma_w");
  mh.assertClose(u[8], Math.atanh(-0.95), 1e-15, 0, "u_rho");
});

Deno.test("`FbsModel` needs survey weights, is a survey model and is built by `createModel()`", () => {
  const design = fbsDesign(5, 2, thetaFor(2, 1, 1, 1, 1, 0), 3);
  mh.checkSurveyModelBuilt("fbs", FbsModel, design);
  assert.throws(() => new FbsModel({ ...design, weight: new Float64Array(4) }), /weight/);
  assert.throws(() => new FbsModel({ ...design, x: design.x.map(() => 0.5) }), /intercept/);
  assert.ok(!isSurveyModel(new NormalModel(design)));
});

Deno.test("`FbsModel` ignores an α = 0 record whose ℓ is not finite", () => {
  const theta = thetaFor(2, 3, 2, 0.6, 0.8, 0.3);
  mh.checkSurveyZeroRecord((d) => new FbsModel(d), fbsDesign(20, 2, theta, 4), theta, "y");
});

Deno.test("`FbsModel.simulateSurvey()`: ỹ* ~ N(xβ_y, σ_y²) and log w* = xβ_w + ρσ_w(ỹ* − xβ_y)/σ_y", () => {
  const k = 3;
  const theta = thetaFor(k, 3, 2, 0.6, 0.8, -0.6);
  const n = 30;
  const model = new FbsModel(fbsDesign(n, k, theta, 5));
  const out = { y: new Float64Array(n), w: new Float64Array(n) };
  const [sy, sw, rho] = theta.subarray(2 * k);
  const my = (level: number) => theta[0] + (level > 0 ? theta[level] : 0);
  mh.checkSurveyOutcomes(model, theta, k, sy, my, {
    check: (draw) => {
      for (let i = 0; i < n; i++) {
        const level = i % k;
        const mw = theta[k] + (level > 0 ? theta[k + level] : 0);
        const d = Math.log(draw.y[i]) - my(level);
        mh.assertClose(
          Math.log(draw.w[i]),
          mw + rho * sw * d / sy,
          1e-13,
          1e-13,
          "smoothed log w*",
        );
      }
    },
    label: (level) => `level ${level}: ỹ* − xβ_y`,
  });
  // With a total, the same weights are scaled by one constant so Σ w* is that total.
  const unscaled = model.simulateSurvey(theta, new Rng(9), out).w.slice();
  const scaled = model.simulateSurvey(theta, new Rng(9), out, 1234.5).w;
  mh.assertClose(scaled.reduce((s, w) => s + w, 0), 1234.5, 1e-14, 0, "Σ w* = total");
  const ratio = scaled[0] / unscaled[0];
  for (let i = 0; i < n; i++) mh.assertClose(scaled[i] / unscaled[i], ratio, 1e-13, 0, "one scale");
});

Deno.test("`FbsModel.initialPoint()` recovers θ from least squares on a large sample", () => {
  const theta = thetaFor(3, 3, 2, 0.6, 0.8, -0.5);
  const model = new FbsModel(fbsDesign(3000, 3, theta, 11));
  const start = model.constrain(model.initialPoint());
  for (let j = 0; j < model.dim; j++) {
    mh.assertClose(start[j], theta[j], 0, 0.08, model.paramNames[j]);
  }
});

Deno.test("`fitModel()` on FBS data recovers β, σ and ρ without divergences", () => {
  const k = 2;
  const theta = thetaFor(k, 3, 2, 0.5, 0.7, -0.6);
  const model = new FbsModel(fbsDesign(200, k, theta, 12));
  mh.checkFitRecovers(model, theta);
});

Deno.test("`fitModel()` on a §4.1 PPS sample: FBS on field and gender has no divergences", () => {
  // K = 9 (intercept, 7 field dummies, gender), dim 21: the fit on which Appendix C's
  // per-coefficient scales diverged (docs/decisions.md "FBS coefficients ~ N(0, 10²)").
  const population = simulatePopulation(new Rng(1), { size: 20_000 });
  const sample = ppsSample(population, 1000, new Rng(2));
  const design = buildDesign(
    sampleDataset(sample),
    { y: "salary", x: ["field", "gender"], weight: "w" },
    "positive",
  );
  const model = new FbsModel(design);
  assert.equal(model.dim, 21);
  const fit = fitModel(model, { alpha: null }, { seed: 3, chains: 2, warmup: 300, draws: 300 });
  assert.equal(fit.divergences, 0);
  assert.ok(fit.rhatMax <= 1.05, `R̂ max ${fit.rhatMax}`);
  // Within a field the draw probability is ∝ π = y·e^{0.4·Z₂}, so the sample's (log y, log π)
  // is the population's bivariate normal, covariance [[0.16, 0.16], [0.16, 0.32]], tilted by
  // e^{log π}: the same covariance. log w = const_h − log π, so σ_y = 0.4, σ_w = √0.32 and
  // ρ = −1/√2, up to the field × gender interaction of the cell means, which the additive model
  // leaves in the residuals.
  const truth = { sigma_y: 0.4, sigma_w: Math.sqrt(0.32), rho: -Math.SQRT1_2 };
  for (const [name, value] of Object.entries(truth)) {
    const s = fit.summary[name];
    assert.ok(Math.abs(s.mean - value) < 4 * s.sd + 0.01, `${name}: mean ${s.mean} sd ${s.sd}`);
  }
});

Deno.test("`fitModel()` uses the model's dense metric unless the options name another", () => {
  const k = 2;
  const theta = thetaFor(k, 3, 2, 0.5, 0.7, -0.6);
  const model = new FbsModel(fbsDesign(60, k, theta, 14));
  assert.equal(model.metric, "dense");
  const options = { seed: 5, chains: 1, warmup: 60, draws: 20 };
  const run = (metric: "diag" | "dense") =>
    sample((u, g) => model.logDensity(u, g, { alpha: null }), model.dim, {
      ...options,
      init: model.initialPoint(),
      metric,
    }).draws;
  const draws = (fit: { draws: Float64Array }) => fit.draws.slice(0, model.dim);
  const first = (raw: Float64Array) => model.constrain(raw.slice(0, model.dim));
  const plain = { ...options, precondition: "none" as const };
  assert.deepEqual(draws(fitModel(model, { alpha: null }, plain)), first(run("dense")));
  assert.deepEqual(
    draws(fitModel(model, { alpha: null }, { ...plain, metric: "diag" })),
    first(run("diag")),
  );
  assert.notDeepEqual(first(run("dense")), first(run("diag")));
});

Deno.test("`synthesizeWeights()` with `FbsModel.weightLaw()`: log w* ~ N(xβ_w + ρσ_w(ỹ* − xβ_y)/σ_y, σ_w²(1 − ρ²)) up to one constant, Σ w* = total", () => {
  const k = 3;
  const theta = thetaFor(k, 3, 2, 0.6, 0.8, -0.6);
  const n = 6000;
  const model = new FbsModel(fbsDesign(n, k, theta, 5));
  const y = model.simulate(theta, new Rng(6, 1), new Float64Array(n));
  const w = synthesizeWeights(model, theta, y, new Rng(7, 1), 5e5, new Float64Array(n));
  const [sy, sw, rho] = theta.subarray(2 * k);
  const z = new Float64Array(n);
  const r = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    const level = i % k;
    const my = theta[0] + (level > 0 ? theta[level] : 0);
    const mw = theta[k] + (level > 0 ? theta[k + level] : 0);
    z[i] = (Math.log(y[i]) - my) / sy;
    r[i] = Math.log(w[i]) - mw - rho * sw * z[i];
    total += w[i];
  }
  mh.assertClose(total, 5e5, 1e-13, 0, "Σ w*_i = total");
  const mr = r.reduce((s, v) => s + v, 0) / n;
  const variance = r.reduce((s, v) => s + (v - mr) ** 2, 0) / n;
  const expected = sw * sw * (1 - rho * rho);
  assert.ok(Math.abs(variance - expected) < 5 * Math.sqrt(2 / n) * expected, `${variance}`);
  // The residual is independent of ỹ*: its slope on z is within 5 SE of 0.
  const slope = r.reduce((s, v, i) => s + (v - mr) * z[i], 0) / z.reduce((s, v) => s + v * v, 0);
  assert.ok(Math.abs(slope) < 5 * Math.sqrt(expected / n), `slope ${slope}`);
});
