import assert from "node:assert/strict";
import { FbpModel } from "../../src/models/fbp.ts";
import { normaliseToTotal } from "../../src/models/survey_model.ts";
import { createModel } from "../../src/models/mod.ts";
import type { Design } from "../../src/models/model.ts";
import { synthesizeWeights } from "../../src/models/survey_model.ts";
import { Rng } from "../../src/random/rng.ts";
import * as mh from "./_helpers.ts";

/**
 * θ for K coefficients: β = (b, 0.3, −0.2, …), κ_y, κ_x = (c, 0.4, −0.3, …), σ_y, σ_π.
 */
function thetaFor(k: number, b: number, kappaY: number, c: number, sy: number, sp: number) {
  const t = new Float64Array(2 * k + 3);
  for (let j = 0; j < k; j++) {
    t[j] = j === 0 ? b : j % 2 === 1 ? 0.3 : -0.2;
    t[k + 1 + j] = j === 0 ? c : j % 2 === 1 ? 0.4 : -0.3;
  }
  t[k] = kappaY;
  t[2 * k + 1] = sy;
  t[2 * k + 2] = sp;
  return t;
}

/** η_i = x_iβ and ξ_i = x_iκ_x of a record at level `level` of the design's factor. */
function means(theta: Float64Array, k: number, level: number): [number, number] {
  return [
    theta[0] + (level > 0 ? theta[level] : 0),
    theta[k + 1] + (level > 0 ? theta[k + 1 + level] : 0),
  ];
}

/**
 * A survey design whose K − 1 covariates are the treatment dummies of a K-level factor (record
 * i at level i mod K), with (log y, log π) drawn from FBP's sample distribution at θ: the
 * population's normal tilted by π, i.e. ỹ ~ N(η + κ_yσ_y², σ_y²) and
 * log π | ỹ ~ N(κ_y ỹ + ξ + σ_π², σ_π²); w = 1/π.
 */
function fbpDesign(n: number, k: number, theta: Float64Array, seed: number): Design {
  const rng = new Rng(seed, 22);
  const kappaY = theta[k];
  const [sy, sp] = theta.subarray(2 * k + 1);
  return mh.factorSurveyDesign(n, k, (level) => {
    const [eta, xi] = means(theta, k, level);
    const ly = eta + kappaY * sy * sy + sy * rng.normal();
    const logPi = kappaY * ly + xi + sp * sp + sp * rng.normal();
    return [Math.exp(ly), Math.exp(-logPi)];
  });
}

/** A random u near θ: β and κ ±0.2, log-scales ±0.4. */
function jitter(model: FbpModel, theta: Float64Array, seed: number): Float64Array {
  const rng = new Rng(seed, 5);
  const u = model.unconstrain(theta);
  const scales = model.dim - 2;
  for (let j = 0; j < u.length; j++) u[j] += (2 * rng.uniform() - 1) * (j < scales ? 0.2 : 0.4);
  return u;
}

Deno.test("`FbpModel.logDensity()` gradient matches finite differences (K = 1 and 3, α, censoring)", () => {
  mh.checkGradientsForK((k) => {
    const theta = thetaFor(k, 3, -0.5, 1, 0.5, 0.6);
    return { model: new FbpModel(fbpDesign(40, k, theta, 1 + k)), theta };
  }, jitter);
});

Deno.test("`FbpModel.logDensity()` is the prior plus Σ clamp(α·ℓ, ±C)", () => {
  const theta = thetaFor(3, 3, -0.5, 1, 0.5, 0.6);
  mh.checkTargetAt(new FbpModel(fbpDesign(30, 3, theta, 7)), theta, 8);
});

Deno.test("`FbpModel.logLik()` is the tilted bivariate normal density of (log y, log π) (mathjs)", () => {
  const k = 3;
  const theta = thetaFor(k, 3, -0.5, 1, 0.5, 0.6);
  const design = fbpDesign(12, k, theta, 9);
  const model = new FbpModel(design);
  for (const [kappaY, sy, sp] of [[-0.5, 0.5, 0.6], [1.3, 0.05, 2], [0, 2, 0.1]]) {
    theta[k] = kappaY;
    theta[2 * k + 1] = sy;
    theta[2 * k + 2] = sp;
    const l = model.logLik(theta, new Float64Array(12));
    // (ỹ, log π) in the population: covariance S; tilting by e^{log π} shifts the mean by S·e₂.
    const s = [[sy * sy, kappaY * sy * sy], [
      kappaY * sy * sy,
      kappaY * kappaY * sy * sy + sp * sp,
    ]];
    for (let i = 0; i < 12; i++) {
      const [eta, xi] = means(theta, k, i % k);
      const logPi = -Math.log(design.weight![i]);
      const r = [
        Math.log(design.y[i]) - (eta + s[0][1]),
        logPi - (kappaY * eta + xi + s[1][1]),
      ];
      const ref = mh.bivariateNormalLogPdf(r, s);
      mh.assertClose(l[i], ref, 1e-11, 1e-11, `ℓ[${i}] at κ_y=${kappaY}, σ_y=${sy}, σ_π=${sp}`);
    }
  }
});

Deno.test("`FbpModel` prior: N(0, 100) coefficients and half-Cauchy(0, 1) scales by hand", () => {
  const design: Design = {
    n: 1,
    k: 2,
    y: new Float64Array([1]),
    x: new Float64Array([1, 0]),
    coefficientNames: ["intercept", "z"],
    weight: new Float64Array([1]),
  };
  const model = new FbpModel(design);
  const theta = new Float64Array([11, -0.4, 0.7, -3, 1.2, 0.4, 2.5]);
  const normal = (b: number) => Math.exp(-b * b / 200) / (10 * Math.sqrt(2 * Math.PI));
  const halfCauchy = (x: number) => 2 / (Math.PI * (1 + x * x)) * x;
  const want = Math.log(
    normal(11) * normal(-0.4) * normal(0.7) * normal(-3) * normal(1.2) * halfCauchy(0.4) *
      halfCauchy(2.5),
  );
  const got = model.logDensity(model.unconstrain(theta), null, { alpha: new Float64Array(1) });
  mh.assertClose(got, want, 1e-13, 1e-13, "log prior");
});

Deno.test("`FbpModel` constrain/unconstrain round trip, names and range checks", () => {
  const theta = thetaFor(3, 3, -0.5, 1, 0.5, 0.6);
  const model = new FbpModel(fbpDesign(6, 3, theta, 2));
  assert.equal(model.dim, 9);
  assert.deepEqual(model.paramNames, [
    ...mh.threeLevelNames("beta_"),
    "kappa_y",
    ...mh.threeLevelNames("kappa_x_"),
    "sigma_y",
    "sigma_pi",
  ]);
  const u = mh.checkRangeChecks(model, theta, [[7, 0], [8, 0]]);
  mh.assertClose(u[8], Math.log(0.6), 1e-15, 0, "u_sigma_pi");
});

Deno.test("`FbpModel` needs survey weights, is a survey model and is built by `createModel()`", () => {
  const design = fbpDesign(5, 2, thetaFor(2, 1, 0, 0, 1, 1), 3);
  mh.checkSurveyModelBuilt("fbp", FbpModel, design);
  const { weight: _, ...noWeight } = design;
  assert.throws(() => createModel("fbp", noWeight), /weight/);
});

Deno.test("`FbpModel` ignores an α = 0 record whose ℓ is not finite", () => {
  const theta = thetaFor(2, 3, -0.5, 1, 0.5, 0.6);
  mh.checkSurveyZeroRecord((d) => new FbpModel(d), fbpDesign(20, 2, theta, 4), theta, "weight");
});

Deno.test("`FbpModel.simulateSurvey()`: ỹ* ~ N(xβ, σ_y²) and w* ∝ e^{−κ_y ỹ*} summing to the total", () => {
  const k = 3;
  const theta = thetaFor(k, 3, -0.5, 1, 0.5, 0.6);
  const model = new FbpModel(fbpDesign(30, k, theta, 5));
  const kappaY = theta[k];
  mh.checkSurveyOutcomes(model, theta, k, theta[2 * k + 1], (h) => means(theta, k, h)[0], {
    total: 4e6,
    check: (out) => {
      let total = 0;
      const offset = Math.log(out.w[0]) + kappaY * Math.log(out.y[0]);
      for (let i = 0; i < out.y.length; i++) {
        total += out.w[i];
        // log w* + κ_y ỹ* is one constant over the sample (no per-stratum scaling).
        const logged = Math.log(out.w[i]) + kappaY * Math.log(out.y[i]);
        mh.assertClose(logged, offset, 0, 1e-12, "log w* + κ_y ỹ*");
      }
      mh.assertClose(total, 4e6, 1e-14, 0, "Σ w*_i = total");
    },
    label: (h) => `stratum ${h}: ỹ* − xβ`,
  });
});

Deno.test("`FbpModel.simulateSurvey()` without a total sums to the sample's Σ w; bad totals throw", () => {
  const k = 2;
  const theta = thetaFor(k, 3, -0.5, 1, 0.5, 0.6);
  const design = fbpDesign(21, k, theta, 10);
  const model = new FbpModel(design);
  const out = { y: new Float64Array(21), w: new Float64Array(21) };
  model.simulateSurvey(theta, new Rng(1), out);
  const total = (v: Float64Array) => v.reduce((s, x) => s + x, 0);
  mh.assertClose(total(out.w), total(design.weight!), 1e-14, 0, "Σ w* = Σ w");
  for (const bad of [0, -1, NaN, Infinity]) {
    assert.throws(() => model.simulateSurvey(theta, new Rng(1), out, bad), /weightTotal/);
  }
});

Deno.test("`normaliseToTotal()` is exact for weights spanning 600 orders of magnitude", () => {
  const w = normaliseToTotal(Float64Array.of(700, 0, -700), 10, new Float64Array(3));
  // e^{700} dominates; the other two are 10·e^{−700} and 10·e^{−1400} = 0.
  mh.assertAllClose(w, [10, 10 * Math.exp(-700), 0], 1e-14, "weights");
  mh.assertAllClose(
    normaliseToTotal(Float64Array.of(3, 3), 7, new Float64Array(2)),
    [3.5, 3.5],
    1e-15,
    "equal",
  );
  assert.throws(() => normaliseToTotal(Float64Array.of(1), 1, new Float64Array(2)), /out.length=2/);
});

Deno.test("`FbpModel.initialPoint()` recovers θ from the tilted moments on a large sample", () => {
  const theta = thetaFor(3, 3, -0.5, 1, 0.5, 0.6);
  const model = new FbpModel(fbpDesign(4000, 3, theta, 11));
  const start = model.constrain(model.initialPoint());
  mh.assertAllClose(start, theta, 0.06, "initial θ");
});

Deno.test("`fitModel()` on FBP data recovers β, κ and σ without divergences", () => {
  const k = 2;
  const theta = thetaFor(k, 3, -0.5, 1, 0.5, 0.6);
  const model = new FbpModel(fbpDesign(300, k, theta, 12));
  mh.checkFitRecovers(model, theta);
});

Deno.test("`FbpModel.logLik()` does not depend on the weights' units: w·c with κ_x's intercept − log c", () => {
  const k = 3;
  const theta = thetaFor(k, 3, -0.5, 1, 0.5, 0.6);
  const design = fbpDesign(20, k, theta, 11);
  const c = 1234.5;
  const scaled = new FbpModel({ ...design, weight: design.weight!.map((w) => w * c) });
  const shifted = theta.slice();
  shifted[k + 1] -= Math.log(c);
  const l = new FbpModel(design).logLik(theta, new Float64Array(20));
  const ls = scaled.logLik(shifted, new Float64Array(20));
  for (let i = 0; i < 20; i++) mh.assertClose(ls[i], l[i], 1e-12, 1e-12, `ℓ[${i}]`);
});

Deno.test("`synthesizeWeights()` with `FbpModel.weightLaw()`: log π* ~ N(κ_y ỹ* + xκ_x, σ_π²), w* ∝ 1/π* summing to the total", () => {
  const k = 3;
  const theta = thetaFor(k, 3, -0.5, 1, 0.5, 0.6);
  const n = 6000;
  const model = new FbpModel(fbpDesign(n, k, theta, 5));
  const y = model.simulate(theta, new Rng(6, 1), new Float64Array(n));
  const w = synthesizeWeights(model, theta, y, new Rng(7, 1), 4e6, new Float64Array(n));
  const [kappaY, sp] = [theta[k], theta[2 * k + 2]];
  const r = new Float64Array(n);
  const ly = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    ly[i] = Math.log(y[i]);
    r[i] = -Math.log(w[i]) - kappaY * ly[i] - means(theta, k, i % k)[1];
    total += w[i];
  }
  mh.assertClose(total, 4e6, 1e-13, 0, "Σ w*_i = total");
  const mr = r.reduce((s, v) => s + v, 0) / n;
  const variance = r.reduce((s, v) => s + (v - mr) ** 2, 0) / n;
  assert.ok(Math.abs(variance - sp * sp) < 5 * Math.sqrt(2 / n) * sp * sp, `${variance}`);
  const my = ly.reduce((s, v) => s + v, 0) / n;
  const slope = r.reduce((s, v, i) => s + (v - mr) * (ly[i] - my), 0) /
    ly.reduce((s, v) => s + (v - my) ** 2, 0);
  assert.ok(Math.abs(slope) < 0.05, `slope ${slope}`);
});
