import assert from "node:assert/strict";
import { gamma } from "mathjs";
import {
  COEFFICIENT_SCALE_PRIOR,
  coefficientPriorLogDensity,
  HalfStudentT,
  RECIPROCAL_PHI_PRIOR,
  SIGMA_PRIOR,
} from "../../src/models/glm_prior.ts";
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
