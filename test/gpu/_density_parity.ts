/**
 * The GPU log target's check against the model's f64 `logDensity`: the value and every gradient
 * component at given points, each within an f32 tolerance of its magnitude.
 *
 * Tolerances for f32 (unit roundoff u = 2⁻²⁴ ≈ 6e-8). Each record's term passes through a few
 * f32 special functions whose WGSL error bounds are tens of u relative to the largest
 * intermediate (for the negative binomial y·log(φ + y) ≈ 100·|ℓ_i|), and the tree reduction adds
 * about log₂(n)·u of the sum of magnitudes. So the value is compared with the f64 CPU value to
 * VALUE_TOL of Σ_i |α_i ℓ_i| (plus the prior's magnitude), and gradient component j to GRAD_TOL of
 * Σ_i |∂(α_i ℓ_i)/∂u_j| plus the prior's |∂/∂u_j| (computed in f64 one record at a time).
 *
 * @module
 */
import assert from "node:assert/strict";
import { evaluateGpuLogDensity, type GpuEvaluation } from "../../src/gpu/hmc_resources.ts";
import type { Model, Weighting } from "../../src/models/mod.ts";
import { Rng } from "../../src/random/rng.ts";
import { gpu } from "./_helpers.ts";

const VALUE_TOL = 1e-5;
const GRAD_TOL = 1e-4;

/**
 * Random points around the model's starting point, plus (for the models with an extra
 * parameter) one where it is large and one where it is small, which exercise both branches of
 * the negative binomial's log Γ and ψ differences (φ above and below 8).
 */
export function points(model: Model, seed: number): Float64Array {
  const rng = new Rng(seed);
  const d = model.dim;
  const init = model.initialPoint();
  const out: number[] = [];
  for (let s = 0; s < 4; s++) {
    for (let j = 0; j < d; j++) out.push(init[j] + 0.4 * rng.normal());
  }
  if (d % 2 === 1) {
    for (const extra of [-6, 2.5]) {
      const u = [...init];
      u[d - 1] = extra * (model.name === "negbin" || model.name === "beta" ? 1 : 0.3);
      out.push(...u);
    }
  }
  return Float64Array.from(out);
}

/**
 * Σ_i |record i's contribution| to the value and to each gradient component, in f64, plus the
 * prior's: its value less `priorConstant` (a constant the GPU target leaves out), its gradient.
 */
export function magnitudes(model: Model, weighting: Weighting, u: Float64Array, priorConstant = 0) {
  const n = model.design.n;
  const d = model.dim;
  const prior = new Float64Array(d);
  const priorValue = model.logDensity(u, prior, { ...weighting, alpha: new Float64Array(n) });
  const value = { scale: Math.abs(priorValue - priorConstant) };
  const grad = prior.map(Math.abs);
  const g = new Float64Array(d);
  const alpha = weighting.alpha ?? new Float64Array(n).fill(1);
  for (let i = 0; i < n; i++) {
    if (alpha[i] === 0) continue;
    // A new α per record: a model may keep sums of an uncensored weighting's α (`Weighting`).
    const single = new Float64Array(n);
    single[i] = alpha[i];
    const v = model.logDensity(u, g, { ...weighting, alpha: single });
    value.scale += Math.abs(v - priorValue);
    for (let j = 0; j < d; j++) grad[j] += Math.abs(g[j] - prior[j]);
  }
  return { value: value.scale, grad };
}

/** The largest errors of a check, each relative to its magnitude (Σ_i |term|). */
export interface ParityErrors {
  readonly value: number;
  readonly gradient: number;
}

/**
 * Asserts that the GPU log density and gradient equal the f64 ones at every point (point-major,
 * `model.dim` each) within the tolerances of the module documentation.
 *
 * @returns the largest relative errors of the value and of a gradient component.
 */
export async function checkDensity(
  model: Model,
  weighting: Weighting,
  points: Float64Array,
  label: string,
): Promise<ParityErrors> {
  const d = model.dim;
  const gpuEval = await evaluateGpuLogDensity(gpu!, model, weighting, points);
  const grad = new Float64Array(d);
  const all = Array.from({ length: d }, (_, j) => j);
  let worstValue = 0;
  let worstGradient = 0;
  for (let s = 0; s < points.length / d; s++) {
    const us = points.subarray(s * d, (s + 1) * d);
    const value = model.logDensity(us, grad, weighting);
    const scale = magnitudes(model, weighting, us);
    const cpu = { value, grad, scale };
    const worst = assertPointParity(gpuEval, s, cpu, model, all, label, "log density ");
    worstValue = Math.max(worstValue, worst.value);
    worstGradient = Math.max(worstGradient, worst.gradient);
  }
  return { value: worstValue, gradient: worstGradient };
}

/**
 * Asserts that point `s` of `gpuEval` is finite and equals the f64 value and gradient `cpu`
 * within the tolerances of the module documentation, relative to `cpu.scale`: GPU gradient entry
 * q against component `coordinates[q]` of `cpu.grad`. `what` goes before "GPU" in the value's
 * message.
 *
 * @returns the point's relative errors of the value and, largest, of a gradient component.
 */
export function assertPointParity(
  gpuEval: GpuEvaluation,
  s: number,
  cpu: {
    readonly value: number;
    readonly grad: Float64Array;
    readonly scale: { readonly value: number; readonly grad: Float64Array };
  },
  model: Model,
  coordinates: readonly number[],
  label: string,
  what = "",
): ParityErrors {
  const { value, grad, scale } = cpu;
  const d = coordinates.length;
  assert.ok(gpuEval.finite[s], `${label} point ${s}: GPU flagged a non-finite term`);
  const dv = Math.abs(gpuEval.logDensity[s] - value);
  assert.ok(
    dv <= VALUE_TOL * scale.value,
    `${label} point ${s}: ${what}GPU ${gpuEval.logDensity[s]}, CPU ${value}, scale ${scale.value}`,
  );
  let worstGradient = 0;
  coordinates.forEach((j, q) => {
    const dg = Math.abs(gpuEval.gradient[s * d + q] - grad[j]);
    worstGradient = Math.max(worstGradient, dg / scale.grad[j]);
    assert.ok(
      dg <= GRAD_TOL * scale.grad[j],
      `${label} point ${s} ${model.paramNames[j]}: GPU ${gpuEval.gradient[s * d + q]}, ` +
        `CPU ${grad[j]}, scale ${scale.grad[j]}`,
    );
  });
  return { value: dv / scale.value, gradient: worstGradient };
}
