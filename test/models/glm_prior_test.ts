import assert from "node:assert/strict";
import { gamma } from "mathjs";
import type { Design } from "../../src/data/design.ts";
import { fitModel } from "../../src/mcmc/fit.ts";
import {
  COEFFICIENT_SCALE_PRIOR,
  coefficientPriorLogDensity,
  HalfStudentT,
  InverseGammaVariance,
  RECIPROCAL_PHI_PRIOR,
  SIGMA_PRIOR,
  STUDENT_T_COEFFICIENT,
  StudentTCoefficientPrior,
} from "../../src/models/glm_prior.ts";
import type { Model } from "../../src/models/model.ts";
import { NormalModel } from "../../src/models/normal.ts";
import { assertAllClose, assertClose, finiteDifferenceGradient, uniforms } from "./_helpers.ts";

/** The half-Student-t density 2Γ((ν+1)/2)/(Γ(ν/2)√(νπ)s)·(1 + (x/s)²/ν)^{−(ν+1)/2}. */
function halfT(x: number, nu: number, s: number): number {
  const norm = (2 * (gamma((nu + 1) / 2) as number)) /
    ((gamma(nu / 2) as number) * Math.sqrt(nu * Math.PI) * s);
  return norm * Math.pow(1 + (x / s) ** 2 / nu, -(nu + 1) / 2);
}

Deno.test("`HalfStudentT` matches the closed-form density times the Jacobian x = e^u", () => {
  for (const [nu, s] of [[1, 5], [3, 1], [3, 10], [7.5, 0.2]]) {
    const prior = new HalfStudentT(nu, s);
    for (const u of [-6, -1, 0, 0.7, 3, 9]) {
      const x = Math.exp(u);
      assertClose(prior.logDensity(u), Math.log(halfT(x, nu, s) * x), 1e-14, 1e-14, `ν=${nu}`);
    }
  }
  assert.equal(RECIPROCAL_PHI_PRIOR.nu, 1);
  assert.equal(RECIPROCAL_PHI_PRIOR.scale, 5);
  assert.equal(COEFFICIENT_SCALE_PRIOR.nu, 3);
  assert.equal(COEFFICIENT_SCALE_PRIOR.scale, 1);
  assert.equal(SIGMA_PRIOR.nu, 3);
  assert.equal(SIGMA_PRIOR.scale, 10);
});

Deno.test("`HalfStudentT` integrates to one over u and its gradient matches differences", () => {
  for (const prior of [RECIPROCAL_PHI_PRIOR, COEFFICIENT_SCALE_PRIOR, SIGMA_PRIOR]) {
    let integral = 0;
    const h = 1e-3;
    for (let u = -40; u < 60; u += h) integral += Math.exp(prior.logDensity(u + h / 2)) * h;
    assertClose(integral, 1, 0, 1e-6, `∫ p(u) du, ν=${prior.nu}`);
    for (const u of [-5, -0.3, 0, 1.2, 4]) {
      const fd = finiteDifferenceGradient(
        (v) => prior.logDensity(v[0]),
        new Float64Array([u]),
      );
      assertClose(prior.gradient(u), fd[0], 1e-8, 1e-9, `gradient at ${u}`);
    }
  }
  assert.equal(RECIPROCAL_PHI_PRIOR.gradient(800), 1 - 2);
  assert.throws(() => new HalfStudentT(0, 1), RangeError);
  assert.throws(() => new HalfStudentT(3, -1), RangeError);
});

Deno.test("`coefficientPriorLogDensity()` is Σ log N(β|0,σ²) + log p_t3(σ) + log σ", () => {
  for (const k of [1, 3]) {
    const u = uniforms(2 * k + 1, -2, 2, 10 + k);
    let want = 0;
    for (let j = 0; j < k; j++) {
      const sigma = Math.exp(u[k + j]);
      const normal = Math.exp(-0.5 * (u[j] / sigma) ** 2) / (sigma * Math.sqrt(2 * Math.PI));
      want += Math.log(normal * halfT(sigma, 3, 1) * sigma);
    }
    const grad = new Float64Array(2 * k + 1).fill(7);
    assertClose(coefficientPriorLogDensity(u, k, grad), want, 1e-14, 1e-14, `K=${k}`);
    assert.equal(grad[2 * k], 7, "entries past 2K are left alone");
    const fd = finiteDifferenceGradient((v) => coefficientPriorLogDensity(v, k, null), u);
    assertAllClose(grad.subarray(0, 2 * k), fd.subarray(0, 2 * k), 1e-8, `gradient K=${k}`);
  }
});

/**
 * The `student-t` prior in its direct coordinates (β, log σ), written out: Σ_j log N(β_j | 0, σ_j²)
 * + log p(σ_j) + log σ_j with σ_j² ~ Inverse-Gamma(ν/2, ν s_j²/2).
 */
function directStudentT(u: Float64Array, scales: number[]): number {
  const nu = STUDENT_T_COEFFICIENT.nu;
  const m = scales.length;
  let total = 0;
  scales.forEach((s, j) => {
    const logSigma = u[m + j];
    const mixing = new InverseGammaVariance(nu / 2, (nu * s * s) / 2);
    total += -0.5 * Math.log(2 * Math.PI) - logSigma - 0.5 * (u[j] * Math.exp(-logSigma)) ** 2 +
      mixing.logDensity(logSigma);
  });
  return total;
}

Deno.test("`StudentTCoefficientPrior` is the IG mixture of normals in independent coordinates", () => {
  const scales = [1000, 2.5, 10];
  const prior = new StudentTCoefficientPrior(scales);
  const m = scales.length;
  for (let seed = 1; seed <= 20; seed++) {
    const u = uniforms(2 * m, -4, 4, seed);
    u[0] *= 200;
    // σ_j = e^{v_j}·g(β_j); (β, v) → (β, log σ) has Jacobian 1, so the densities are equal.
    const direct = Float64Array.from(u);
    for (let j = 0; j < m; j++) direct[m + j] = Math.log(prior.scale(j, u[j], u[m + j]));
    assertClose(
      prior.logDensity(u, m, null),
      directStudentT(direct, scales),
      1e-12,
      1e-12,
      `seed ${seed}: the density`,
    );
    for (let j = 0; j < m; j++) {
      const back = prior.unscale(j, u[j], prior.scale(j, u[j], u[m + j]));
      assertClose(back, u[m + j], 1e-12, 1e-12, `seed ${seed}: unscale(scale(v_${j}))`);
    }
    const grad = new Float64Array(2 * m);
    prior.logDensity(u, m, grad);
    const numeric = finiteDifferenceGradient((v) => prior.logDensity(v, m, null), u);
    assertAllClose(grad, numeric, 1e-6, `seed ${seed}: the gradient`);
  }
});

Deno.test("`StudentTCoefficientPrior`'s marginal of β is Student-t(3, 0, s)", () => {
  // ∫ p(β, v) dv over v = t₃(β; 0, s): p(v) is a density of its own, independent of β.
  const s = 2.5;
  const prior = new StudentTCoefficientPrior([s]);
  for (const beta of [0, 1.3, -7, 40]) {
    let integral = 0;
    const h = 1e-3;
    for (let v = -12; v < 12; v += h) {
      integral += Math.exp(prior.logDensity(Float64Array.of(beta, v + h / 2), 1, null)) * h;
    }
    const t3 = (gamma(2) as number) / ((gamma(1.5) as number) * Math.sqrt(3 * Math.PI) * s) *
      Math.pow(1 + (beta / s) ** 2 / 3, -2);
    assertClose(integral, t3, 1e-6, 1e-12, `β = ${beta}`);
  }
});

/**
 * A normal regression under the `student-t` prior sampled in the direct coordinates (β, log σ_β,
 * log σ), all by NUTS: the same target as `NormalModel`'s (β, v, log σ), through v = log σ_β −
 * log g(β), whose v the sampler draws exactly.
 */
function directNormal(design: Design): Model {
  const inner = new NormalModel({ ...design, coefficientPrior: "student-t" });
  const k = design.k;
  const scales = Array.from({ length: k }, (_, j) => j === 0 ? 1000 : 2.5);
  const nu = STUDENT_T_COEFFICIENT.nu;
  const toInner = (u: Float64Array) => {
    const w = Float64Array.from(u);
    for (let j = 0; j < k; j++) {
      w[k + j] = u[k + j] - 0.5 * Math.log((nu * scales[j] ** 2 + u[j] ** 2) / (nu + 1));
    }
    return w;
  };
  return {
    ...inner,
    name: "normal-direct",
    // log σ_β is not independent of β: NUTS samples every coordinate.
    exactCoordinates: undefined,
    design: inner.design,
    dim: inner.dim,
    paramNames: inner.paramNames,
    constrain: (u, out) => inner.constrain(toInner(u), out),
    unconstrain: (theta, out) => {
      const u = inner.unconstrain(theta, out);
      for (let j = 0; j < k; j++) u[k + j] = Math.log(theta[k + j]);
      return u;
    },
    initialPoint: () => {
      const u = inner.initialPoint();
      for (let j = 0; j < k; j++) u[k + j] = Math.log(inner.constrain(u)[k + j]);
      return u;
    },
    logLik: (theta, out) => inner.logLik(theta, out),
    simulate: (theta, rng, out) => inner.simulate(theta, rng, out),
    logDensity: (u, grad, weighting) => {
      const w = toInner(u);
      const lp = inner.logDensity(w, grad, weighting);
      if (grad !== null) {
        // ∂v_j/∂β_j = −β_j/(ν s_j² + β_j²); ∂v_j/∂(log σ_j) = 1.
        for (let j = 0; j < k; j++) {
          grad[j] -= grad[k + j] * u[j] / (nu * scales[j] ** 2 + u[j] ** 2);
        }
      }
      return lp;
    },
  };
}

Deno.test("the reparameterised `student-t` posterior equals the direct one within MCSE", () => {
  const n = 60;
  const rng = uniforms(2 * n, 0, 1, 11);
  const x = new Float64Array(2 * n);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[2 * i] = 1;
    x[2 * i + 1] = rng[i] * 4;
    y[i] = 650 + 0.01 * x[2 * i + 1] + 30 * (rng[n + i] - 0.5);
  }
  const design: Design = { n, k: 2, y, x, coefficientNames: ["intercept", "z"] };
  const options = { seed: 5, chains: 4, warmup: 500, draws: 2000 };
  const reparameterised = fitModel(
    new NormalModel({ ...design, coefficientPrior: "student-t" }),
    { alpha: null },
    options,
  );
  const direct = fitModel(directNormal(design), { alpha: null }, options);
  for (const name of ["intercept", "z", "sigma", "sigma_beta_z"]) {
    const a = reparameterised.summary[name];
    const b = direct.summary[name];
    const mcse = Math.hypot(a.sd / Math.sqrt(a.essBulk), b.sd / Math.sqrt(b.essBulk));
    assert.ok(
      Math.abs(a.mean - b.mean) < 4 * mcse,
      `${name}: ${a.mean} against ${b.mean} (4 MCSE = ${4 * mcse})`,
    );
  }
  assert.equal(reparameterised.divergences, 0, "the reparameterised fit has no divergence");
});
