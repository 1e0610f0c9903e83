import assert from "node:assert/strict";
import { buildDesign } from "../../src/data/design.ts";
import { parseCsv } from "../../src/data/csv.ts";
import { fitModel } from "../../src/mcmc/fit.ts";
import { fitModelParallel } from "../../src/mcmc/parallel_fit.ts";
import { lipschitz } from "../../src/mechanisms/lipschitz.ts";
import { parallelLipschitz } from "../../src/mechanisms/parallel_lipschitz.ts";
import { isJointModel, JointModel } from "../../src/models/joint.ts";
import { createModel } from "../../src/models/mod.ts";
import { modelFromRecipe, recipeOf } from "../../src/models/recipe.ts";
import { Rng } from "../../src/random/rng.ts";
import { combineFits, componentSeed } from "../../src/synthesis/joint_fit.ts";
import { checkGradient } from "./_helpers.ts";

/** n records: x numeric, g a public category, a ~ Poisson(e^{1 + 0.3x}), b ~ N(2 + 0.5a, 1). */
function data(n: number, seed: number) {
  const rng = new Rng(seed);
  const rows = ["x,g,a,b"];
  for (let i = 0; i < n; i++) {
    const x = rng.normal();
    const g = ["p", "q", "r"][i % 3];
    const mu = Math.exp(1 + 0.3 * x);
    // Poisson by inversion
    let a = 0;
    let p = Math.exp(-mu);
    let cdf = p;
    const u = rng.uniform();
    while (u > cdf && a < 1000) {
      a++;
      p *= mu / a;
      cdf += p;
    }
    const b = 2 + 0.5 * a + rng.normal();
    rows.push(`${x},${g},${a},${b}`);
  }
  return parseCsv(rows.join("\n"), "joint.csv");
}

function jointOf(n: number, seed: number): JointModel {
  const d = data(n, seed);
  return new JointModel([
    {
      outcome: "a",
      model: createModel("poisson", buildDesign(d, { y: "a", x: ["x", "g"] }, "count")),
      dummyLevels: null,
    },
    {
      outcome: "b",
      model: createModel("normal", buildDesign(d, { y: "b", x: ["x", "g", "a"] }, "real")),
      dummyLevels: null,
    },
  ]);
}

Deno.test("`JointModel` with one outcome is its conditional: ℓ_i, log density and gradient", () => {
  const d = data(40, 1);
  const poisson = createModel("poisson", buildDesign(d, { y: "a", x: ["x"] }, "count"));
  const joint = new JointModel([{ outcome: "a", model: poisson, dummyLevels: null }]);
  assert.equal(joint.dim, poisson.dim);
  const u = poisson.initialPoint().map((v, k) => v + 0.1 * (k + 1));
  const alpha = Float64Array.from({ length: 40 }, (_, i) => (i % 5) / 4);
  for (const weighting of [{ alpha: null }, { alpha }, { alpha, censor: 2 }]) {
    const g1 = new Float64Array(joint.dim);
    const g2 = new Float64Array(joint.dim);
    assert.equal(joint.logDensity(u, g1, weighting), poisson.logDensity(u, g2, weighting));
    assert.deepEqual(g1, g2);
  }
  const theta = joint.constrain(u);
  assert.deepEqual(
    joint.logLik(theta, new Float64Array(40)),
    poisson.logLik(theta, new Float64Array(40)),
  );
});

Deno.test("`JointModel`: ℓ_i and Δ of the joint record against brute force", () => {
  const joint = jointOf(30, 2);
  const [a, b] = joint.components.map((c) => c.model);
  const rng = new Rng(3);
  const S = 7;
  const draws = new Float64Array(S * joint.dim);
  for (let k = 0; k < draws.length; k++) draws[k] = 0.3 * rng.normal();
  // θ = (β, σ_β, [σ]) per conditional: every scale positive.
  for (let s = 0; s < S; s++) {
    for (const [j, c] of joint.components.entries()) {
      const k = c.model.design.k;
      for (let t = k; t < c.model.dim; t++) {
        draws[s * joint.dim + joint.offsets[j] + t] = 0.5 + rng.uniform();
      }
    }
  }
  const alpha = Float64Array.from({ length: 30 }, (_, i) => 0.2 + (i % 4) / 5);
  // Brute force: every draw, every record, the two log densities written out.
  let delta = 0;
  const da = a.design;
  const db = b.design;
  for (let s = 0; s < S; s++) {
    const theta = draws.subarray(s * joint.dim, (s + 1) * joint.dim);
    for (let i = 0; i < 30; i++) {
      let eta = 0;
      for (let k = 0; k < da.k; k++) eta += da.x[i * da.k + k] * theta[k];
      const y = da.y[i];
      let logFactorial = 0;
      for (let t = 2; t <= y; t++) logFactorial += Math.log(t);
      const la = y * eta - Math.exp(eta) - logFactorial;
      let mu = 0;
      for (let k = 0; k < db.k; k++) mu += db.x[i * db.k + k] * theta[a.dim + k];
      const sigma = theta[a.dim + 2 * db.k];
      const lb = -0.5 * Math.log(2 * Math.PI) - Math.log(sigma) -
        0.5 * ((db.y[i] - mu) / sigma) ** 2;
      delta = Math.max(delta, Math.abs(alpha[i] * (la + lb)));
    }
  }
  const bound = lipschitz(joint, draws, { alpha });
  assert.ok(Math.abs(bound.overall / delta - 1) < 1e-12, `${bound.overall} vs ${delta}`);
  // The joint bound is not the sum of the conditionals' bounds (they peak at other records).
  const parts = joint.components.map((c, j) =>
    lipschitz(
      c.model,
      new Float64Array(
        Array.from(
          { length: S },
          (
            _,
            s,
          ) => [
            ...draws.subarray(
              s * joint.dim + joint.offsets[j],
              s * joint.dim + joint.offsets[j + 1],
            ),
          ],
        ).flat(),
      ),
      { alpha },
    ).overall
  );
  assert.ok(bound.overall <= parts[0] + parts[1] + 1e-12);
});

Deno.test("`JointModel.logDensity()`: the gradient by finite differences, censored included", () => {
  const joint = jointOf(25, 4);
  const u = joint.initialPoint();
  const alpha = Float64Array.from({ length: 25 }, (_, i) => 0.3 + (i % 3) / 4);
  checkGradient(joint, u, { alpha: null });
  checkGradient(joint, u, { alpha });
  // A censoring level that clamps some records but sits away from every kink.
  const theta = joint.constrain(u);
  const ll = joint.logLik(theta, new Float64Array(25)).map((l, i) => Math.abs(alpha[i] * l)).sort();
  const censor = (ll[12] + ll[13]) / 2;
  checkGradient(joint, u, { alpha, censor });
  // Clamped records add ±C: the value is Σ clamp(α_i ℓ_i) + priors.
  const unclamped = joint.logDensity(u, null, { alpha });
  const censored = joint.logDensity(u, null, { alpha, censor });
  const lls = joint.logLik(theta, new Float64Array(25));
  let shift = 0;
  for (let i = 0; i < 25; i++) {
    const c = alpha[i] * lls[i];
    shift += Math.max(-censor, Math.min(censor, c)) - c;
  }
  assert.ok(Math.abs(censored - (unclamped + shift)) < 1e-9);
});

Deno.test("factorisation: the conditionals fitted alone give the joint fit's posterior", async () => {
  const joint = jointOf(150, 5);
  const alpha = Float64Array.from({ length: 150 }, (_, i) => 0.5 + (i % 2) / 2);
  const settings = { chains: 2, warmup: 300, draws: 600 };
  const whole = fitModel(joint, { alpha }, { seed: 11, ...settings });
  const parts = joint.components.map((c, j) =>
    fitModel(c.model, { alpha }, { seed: componentSeed(11, j), ...settings })
  );
  const combined = combineFits(joint, parts);
  assert.deepEqual(combined.paramNames, joint.paramNames);
  for (const name of joint.paramNames.filter((name) => !name.includes("sigma_beta"))) {
    const w = whole.summary[name];
    const c = combined.summary[name];
    // Monte Carlo standard errors of both means, combined: within 5 of them.
    const mcse = Math.hypot(w.sd / Math.sqrt(w.essBulk), c.sd / Math.sqrt(c.essBulk));
    assert.ok(Math.abs(w.mean - c.mean) < 5 * mcse, `${name}: ${w.mean} vs ${c.mean} (${mcse})`);
    assert.ok(Math.abs(w.sd / c.sd - 1) < 0.2, `${name} sd`);
  }
  // Draw s pairs the s-th draws of the conditionals.
  const s = 17;
  assert.deepEqual(
    [...combined.draws.subarray(s * joint.dim, s * joint.dim + parts[0].dim)],
    [...parts[0].draws.subarray(s * parts[0].dim, (s + 1) * parts[0].dim)],
  );
  assert.equal(
    combined.gradientEvaluations,
    parts[0].gradientEvaluations + parts[1].gradientEvaluations,
  );
  // The worker threads rebuild the joint model from its recipe: the same draws as in-thread.
  const parallel = await fitModelParallel(joint, { alpha, censor: 40 }, {
    seed: 3,
    chains: 2,
    warmup: 50,
    draws: 50,
    threads: 2,
  });
  const serial = fitModel(joint, { alpha, censor: 40 }, {
    seed: 3,
    chains: 2,
    warmup: 50,
    draws: 50,
  });
  assert.deepEqual(parallel.draws, serial.draws);
  const serialBound = lipschitz(joint, combined.draws, { alpha });
  const parallelBound = await parallelLipschitz(joint, combined.draws, { alpha }, {
    threads: 2,
    minEvaluations: 0,
  });
  assert.deepEqual(parallelBound.perRecord, serialBound.perRecord);
});

Deno.test("`simulateJoint()` draws later outcomes given the SYNTHETIC earlier ones", () => {
  const joint = jointOf(400, 6);
  // θ_a: intercept 1, x 0, g dummies 0 → a ~ Poisson(e); θ_b: b = 10·a + noise (sd 0.01).
  const theta = new Float64Array(joint.dim);
  theta[0] = 1;
  const bOffset = joint.offsets[1];
  const kb = joint.components[1].model.design.k;
  theta[bOffset + kb - 1] = 10; // coefficient of a (the last column of b's design)
  theta[bOffset + 2 * kb] = 0.01; // σ of b (after β and σ_β)
  const [a, b] = joint.simulateJoint(theta, new Rng(7));
  for (let i = 0; i < 400; i++) assert.ok(Math.abs(b[i] - 10 * a[i]) < 0.1, `record ${i}`);
  // Not the confidential a: the synthetic a differs from it on most records.
  const confidential = joint.components[0].model.design.y;
  assert.ok(a.filter((v, i) => v !== confidential[i]).length > 200);
  assert.throws(() => joint.simulate(), /simulateJoint/);
});

Deno.test("a categorical earlier outcome enters later conditionals as the same treatment dummies", () => {
  const rows = ["x,c,b"];
  const levels = ["lo", "mid", "hi"];
  for (let i = 0; i < 60; i++) rows.push(`${i / 60},${levels[(i * 7) % 3]},${i % 5}`);
  const d = parseCsv(rows.join("\n"), "cat.csv");
  const designB = buildDesign(d, { y: "b", x: ["x", "c"] }, "count");
  // A stand-in categorical conditional: its outcome levels in another order than the column's.
  const cModel = createModel("poisson", { ...buildDesign(d, { y: "b", x: ["x"] }, "count") });
  const stub = Object.assign(Object.create(Object.getPrototypeOf(cModel)), cModel, {
    design: { ...cModel.design, outcomeLevels: ["hi", "lo", "mid"] },
    simulate: (_t: Float64Array, _r: Rng, out: Float64Array) => out.map((_, i) => i % 3),
  });
  const joint = new JointModel([
    { outcome: "c", model: stub, dummyLevels: ["lo", "mid", "hi"] },
    { outcome: "b", model: createModel("poisson", designB), dummyLevels: null },
  ]);
  assert.deepEqual(designB.coefficientNames, ["intercept", "x", "c=mid", "c=hi"]);
  const theta = new Float64Array(joint.dim);
  theta[joint.offsets[1] + 3] = 3; // c=hi → Poisson mean e³ ≈ 20; else e⁰ = 1
  const [c, b] = joint.simulateJoint(theta, new Rng(2));
  const hi = [...c.keys()].filter((i) => c[i] === 0); // code 0 is "hi" in the stub's levels
  const meanHi = hi.reduce((s, i) => s + b[i], 0) / hi.length;
  const others = [...c.keys()].filter((i) => c[i] !== 0);
  const meanOthers = others.reduce((s, i) => s + b[i], 0) / others.length;
  assert.ok(meanHi > 12 && meanOthers < 3, `${meanHi} ${meanOthers}`);
  assert.ok(isJointModel(joint));
  const rebuilt = modelFromRecipe(recipeOf(jointOf(10, 1)));
  assert.ok(isJointModel(rebuilt) && rebuilt.dim === jointOf(10, 1).dim);
});
