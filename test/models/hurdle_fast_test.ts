import assert from "node:assert/strict";
import { HurdleModel } from "../../src/models/hurdle.ts";
import { LogisticModel } from "../../src/models/logistic.ts";
import type { CoefficientPrior } from "../../src/data/design.ts";
import type { Design, Weighting } from "../../src/models/model.ts";
import { Rng } from "../../src/random/rng.ts";
import * as h from "./_helpers.ts";

/** Which outcomes a design holds: simulated zeros and amounts, only zeros, or only amounts. */
type Outcomes = "mixed" | "zeros" | "positive";

/**
 * A hurdle design of n records and K columns: the intercept, then columns that alternate between
 * a raw-scale covariate around 1000, a 0/1 dummy and a standard normal one; y simulated from a
 * hurdle model whose linear predictors are of order 1, or all 0, or all positive.
 */
function design(
  n: number,
  k: number,
  seed: number,
  outcomes: Outcomes,
  prior?: CoefficientPrior,
): Design {
  const rng = new Rng(seed, 17);
  const x = new Float64Array(n * k);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i * k] = 1;
    let etaG = 0.4;
    let etaB = 2;
    for (let j = 1; j < k; j++) {
      const v = j % 3 === 1
        ? 1000 + 100 * rng.normal()
        : j % 3 === 2
        ? (rng.uniform() < 0.4 ? 1 : 0)
        : rng.normal();
      x[i * k + j] = v;
      const centred = j % 3 === 1 ? (v - 1000) / 100 : v;
      etaG += 0.5 * centred;
      etaB -= 0.3 * centred;
    }
    const positive = outcomes === "positive" ||
      (outcomes === "mixed" && rng.uniform() < 1 / (1 + Math.exp(-etaG)));
    y[i] = positive ? Math.exp(etaB + 0.8 * rng.normal()) : 0;
  }
  const names = ["intercept"];
  for (let j = 1; j < k; j++) names.push(`x${j}`);
  return { n, k, x, y, coefficientNames: names, coefficientPrior: prior };
}

/**
 * A random u of the hurdle model on a design from {@link design}: each part's coefficients give
 * linear predictors of order 1 (a raw column's coefficient is of order 1/100 and the intercept
 * offsets its mean), the log scales and log σ lie in [−1, 1].
 */
function randomPoint(model: HurdleModel, rng: Rng): Float64Array {
  const k = model.design.k;
  const u = new Float64Array(model.dim);
  for (const at of [0, k]) {
    u[at] = 2 * rng.normal();
    for (let j = 1; j < k; j++) {
      const c = rng.normal();
      if (j % 3 === 1) {
        u[at + j] = c / 100;
        u[at] -= 10 * c; // η stays of order 1 around x = 1000
      } else {
        u[at + j] = c;
      }
    }
  }
  for (let j = 2 * k; j < model.dim; j++) u[j] = 2 * rng.uniform() - 1;
  return u;
}

/** Weights in (0, 1] with about a fifth of them 0. */
function alphaWithZeros(n: number, seed: number): Float64Array {
  const rng = new Rng(seed, 19);
  return Float64Array.from({ length: n }, () => {
    const r = rng.uniform();
    return r < 0.2 ? 0 : r;
  });
}

/** The fast path's log density and gradient equal the record loop's to a relative 1e-10. */
function assertFastMatchesLoop(
  fast: HurdleModel,
  loop: HurdleModel,
  u: Float64Array,
  weighting: Weighting,
  what: string,
): void {
  const gradFast = new Float64Array(fast.dim).fill(123.456);
  const gradLoop = new Float64Array(loop.dim).fill(-7.5);
  const a = fast.logDensity(u, gradFast, weighting);
  const b = loop.logDensity(u, gradLoop, weighting);
  assert.ok(Number.isFinite(b), `${what}: the loop's log density is ${b}`);
  assert.ok(Math.abs(a - b) <= 1e-10 * Math.abs(b), `${what}: log density ${a} vs ${b}`);
  assert.equal(fast.logDensity(u, null, weighting), a, `${what}: value without the gradient`);
  for (let j = 0; j < fast.dim; j++) {
    const tol = 1e-10 * Math.max(1, Math.abs(gradLoop[j]));
    assert.ok(
      Math.abs(gradFast[j] - gradLoop[j]) <= tol,
      `${what}: ∂/∂u_${j} ${gradFast[j]} vs ${gradLoop[j]} (tol ${tol})`,
    );
  }
}

Deno.test("`HurdleModel` fast path: log density and gradient match the record loop (K = 1..5, n = 1..3001)", () => {
  let seed = 1;
  for (const k of [1, 2, 3, 4, 5]) {
    for (const n of [1, 2, 3, 7, 64, 333, 3001]) {
      for (const outcomes of ["mixed", "zeros", "positive"] as const) {
        if (n > 333 && outcomes !== "mixed" && k !== 5) continue;
        const d = design(n, k, seed++, outcomes);
        const fast = new HurdleModel(d);
        const loop = new HurdleModel(d, { fast: false });
        const rng = new Rng(seed, 23);
        const alpha = alphaWithZeros(n, seed);
        const ones = new Float64Array(n).fill(1);
        for (let trial = 0; trial < 3; trial++) {
          const u = randomPoint(fast, rng);
          const where = `K=${k}, n=${n}, ${outcomes}, trial ${trial}`;
          assertFastMatchesLoop(fast, loop, u, { alpha: null }, `${where}, α = null`);
          assertFastMatchesLoop(fast, loop, u, { alpha }, `${where}, α with zeros`);
          assertFastMatchesLoop(fast, loop, u, { alpha: ones }, `${where}, α = 1`);
        }
      }
    }
  }
});

Deno.test("`HurdleModel` fast path matches the record loop under the student-t and paper priors", () => {
  for (const prior of ["student-t", "paper"] as const) {
    for (const k of [1, 3, 5]) {
      const d = design(500, k, 40 + k, "mixed", prior);
      const fast = new HurdleModel(d);
      const loop = new HurdleModel(d, { fast: false });
      const rng = new Rng(k, 29);
      const alpha = alphaWithZeros(500, k);
      for (let trial = 0; trial < 4; trial++) {
        const u = randomPoint(fast, rng);
        const where = `${prior}, K=${k}, trial ${trial}`;
        assertFastMatchesLoop(fast, loop, u, { alpha: null }, where);
        assertFastMatchesLoop(fast, loop, u, { alpha }, where);
      }
    }
  }
});

Deno.test("`HurdleModel` fast path: the gradient matches finite differences", () => {
  for (const prior of [undefined, "student-t"] as const) {
    for (const k of [1, 3]) {
      const model = h.simulatedModel(
        (d) => new HurdleModel({ ...d, coefficientPrior: prior }),
        1,
        200,
        k,
        h.thetaAt(0.4, 0.7),
        60 + k,
      );
      const centre = new Float64Array(model.dim);
      centre[0] = 0.4;
      for (let r = 0; r < 3; r++) {
        const u = h.randomU(model, centre, 0.8, 70 + r);
        h.checkGradient(model, u, { alpha: null });
        h.checkGradient(model, u, { alpha: h.uniforms(200, 0, 1, 80 + r) });
      }
    }
  }
});

Deno.test("`HurdleModel` censored weightings keep the record loop: the same values bit for bit", () => {
  for (const k of [1, 4]) {
    const d = design(400, k, 90 + k, "mixed");
    const fast = new HurdleModel(d);
    const loop = new HurdleModel(d, { fast: false });
    const rng = new Rng(k, 31);
    const alpha = alphaWithZeros(400, 9);
    for (let trial = 0; trial < 3; trial++) {
      const u = randomPoint(fast, rng);
      for (const weighting of [{ alpha, censor: 0.7 }, { alpha: null, censor: 3 }]) {
        const gradFast = new Float64Array(fast.dim);
        const gradLoop = new Float64Array(loop.dim);
        assert.equal(
          fast.logDensity(u, gradFast, weighting),
          loop.logDensity(u, gradLoop, weighting),
        );
        assert.deepEqual(gradFast, gradLoop);
      }
    }
  }
});

Deno.test("`HurdleModel` fast path: ℓ is unchanged and an invalid outcome of positive weight gives −∞", () => {
  const d = design(50, 3, 5, "mixed");
  const fast = new HurdleModel(d);
  const loop = new HurdleModel(d, { fast: false });
  const theta = fast.constrain(randomPoint(fast, new Rng(5, 37)));
  assert.deepEqual(
    fast.logLik(theta, new Float64Array(50)),
    loop.logLik(theta, new Float64Array(50)),
  );
  const y = d.y.slice();
  y[7] = -1;
  const u = randomPoint(fast, new Rng(6, 37));
  for (const options of [{}, { fast: false }]) {
    const model = new HurdleModel({ ...d, y }, options);
    assert.equal(model.logDensity(u, new Float64Array(model.dim), { alpha: null }), -Infinity);
  }
});

Deno.test("`LogisticModel.logLikelihood()` is the log density less the prior, on longer vectors", () => {
  const base = design(300, 3, 11, "mixed");
  const d = { ...base, y: base.y.map((v) => v > 0 ? 1 : 0) };
  const alpha = alphaWithZeros(300, 12);
  const rng = new Rng(13, 41);
  for (
    const options of [{}, { simd: false }, { groupRows: false, simd: false }] as const
  ) {
    const model = new LogisticModel(d, options);
    for (const weighting of [{ alpha: null }, { alpha }, { alpha, censor: 0.5 }]) {
      const u = new Float64Array(model.dim);
      for (let j = 0; j < 3; j++) u[j] = [2 * rng.normal(), rng.normal() / 100, rng.normal()][j];
      u[0] -= 1000 * u[1];
      const grad = new Float64Array(model.dim);
      const prior = new Float64Array(model.dim);
      const full = model.logDensity(u, grad, weighting);
      const priorOnly = model.logDensity(u, prior, { alpha: new Float64Array(300) });
      const longer = new Float64Array(model.dim + 4);
      longer.set(u);
      longer[model.dim] = 99; // entries past β are not read
      const likGrad = new Float64Array(model.dim + 4).fill(1);
      const lik = model.logLikelihood(longer, likGrad, weighting);
      h.assertClose(lik + priorOnly, full, 1e-13, 1e-13 * Math.abs(priorOnly), "value");
      for (let j = 0; j < 3; j++) {
        h.assertClose(likGrad[j] - 1 + prior[j], grad[j], 1e-12, 1e-12, `∂/∂β_${j}`);
      }
      assert.deepEqual([...likGrad.subarray(3)], new Array(model.dim + 1).fill(1));
    }
    assert.throws(
      () => model.logLikelihood(new Float64Array(2), null, { alpha: null }),
      RangeError,
    );
  }
});
