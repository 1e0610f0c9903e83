/**
 * An affine reparameterisation u = μ + L·z for NUTS (issue 13, "Geometry"): the chains sample z,
 * in which the posterior is close to a standard normal, and every draw is mapped back to
 * u = μ + L·z. The map is linear with a constant Jacobian |L|, so the posterior of u is exactly
 * the model's; only the geometry NUTS sees changes. This is the dense metric M⁻¹ = LLᵀ, known
 * before warmup instead of learnt during it, and Stan's QR reparameterisation generalised to
 * every parameter (Stan User's Guide §1.2 scales Q by √(n−1) for the same reason: regression
 * coefficients have posterior sd ∝ 1/√n, so at n = 10⁵ Stan's unit starting metric and its
 * windows regularised towards the identity are off by orders of magnitude and the early
 * warmup runs trees of depth 8–10).
 *
 * Two sources of (μ, L):
 * - {@linkcode laplacePreconditioner}: the mode and the inverse of the negative Hessian (the
 *   Laplace approximation), found by damped Newton steps on a central-difference Hessian of the
 *   exact gradient; for a first fit.
 * - {@linkcode drawsPreconditioner}: the mean and covariance of a previous fit's draws; for a
 *   refit of the same model under new weights (the posterior moves and widens a little).
 *
 * Either may fail (no mode, a Hessian that is not negative definite, too few draws); the caller
 * then samples u directly, as before.
 *
 * @module
 */
import { cholesky, choleskySolve, inverseFromCholesky } from "../stats/cholesky.ts";
import type { LogDensityFn } from "./nuts.ts";

/** u = μ + L·z with L lower triangular (row-major dim × dim, positive diagonal). */
export interface Preconditioner {
  /** μ. */
  readonly mean: Float64Array;
  /** L, with LLᵀ the covariance the map is built from. */
  readonly factor: Float64Array;
  /** Where μ and L came from. */
  readonly source: "laplace" | "draws";
}

/** u = μ + L·z, into `out`. */
export function toPosition(p: Preconditioner, z: Float64Array, out: Float64Array): Float64Array {
  const { mean, factor } = p;
  const dim = mean.length;
  for (let i = 0; i < dim; i++) {
    let v = mean[i];
    for (let j = 0; j <= i; j++) v += factor[i * dim + j] * z[j];
    out[i] = v;
  }
  return out;
}

/** z = L⁻¹(u − μ) by forward substitution, into `out`. */
export function toLatent(p: Preconditioner, u: Float64Array, out: Float64Array): Float64Array {
  const { mean, factor } = p;
  const dim = mean.length;
  for (let i = 0; i < dim; i++) {
    let v = u[i] - mean[i];
    for (let j = 0; j < i; j++) v -= factor[i * dim + j] * out[j];
    out[i] = v / factor[i * dim + i];
  }
  return out;
}

/**
 * The target in z: log p(μ + L·z) (the constant log|L| dropped), with ∇_z = Lᵀ·∇_u.
 *
 * @example A normal N(3, 4) becomes a standard normal under μ = 3, L = 2
 * ```ts
 * import assert from "node:assert/strict";
 * import { preconditioned } from "./precondition.ts";
 * const f = (u: Float64Array, g: Float64Array) => ((g[0] = -(u[0] - 3) / 4), -((u[0] - 3) ** 2) / 8);
 * const p = { mean: Float64Array.of(3), factor: Float64Array.of(2), source: "laplace" as const };
 * const g = new Float64Array(1);
 * assert.equal(preconditioned(f, p)(Float64Array.of(1), g), -0.5);
 * assert.equal(g[0], -1);
 * ```
 */
export function preconditioned(logDensity: LogDensityFn, p: Preconditioner): LogDensityFn {
  const dim = p.mean.length;
  const u = new Float64Array(dim);
  const gu = new Float64Array(dim);
  const { factor } = p;
  return (z, grad) => {
    toPosition(p, z, u);
    const value = logDensity(u, gu);
    for (let j = 0; j < dim; j++) {
      let v = 0;
      for (let i = j; i < dim; i++) v += factor[i * dim + j] * gu[i];
      grad[j] = v;
    }
    return value;
  };
}

/**
 * The largest fall of log p from the mode, one Laplace standard deviation away along a column of
 * L, that the approximation may show (½ for a Gaussian; a heavy-tailed or skewed posterior more).
 */
const MAX_DROP_AT_ONE_SD = 10;

/** Options of {@linkcode laplacePreconditioner}. */
export interface LaplaceOptions {
  /** Newton iterations at most (50). */
  readonly maxIterations?: number;
  /** Stop when the Newton decrement ½·gᵀ(−H)⁻¹g falls below this (1e-8). */
  readonly tolerance?: number;
}

/** What the mode search cost and found. */
export interface LaplaceResult {
  /** The preconditioner, or null when no usable mode was found. */
  readonly preconditioner: Preconditioner | null;
  /** Log-density evaluations spent. */
  readonly evaluations: number;
  /** Why it returned null (absent on success). */
  readonly failure?: string;
}

/**
 * The Hessian of log p at u by central differences of the exact gradient, symmetrised; step
 * h_j = 10⁻⁴·s_j with s_j a scale of coordinate j.
 */
function hessian(
  f: LogDensityFn,
  u: Float64Array,
  scale: Float64Array,
): Float64Array | null {
  const dim = u.length;
  const h = new Float64Array(dim * dim);
  const x = Float64Array.from(u);
  const plus = new Float64Array(dim);
  const minus = new Float64Array(dim);
  for (let j = 0; j < dim; j++) {
    const step = 1e-4 * scale[j];
    x[j] = u[j] + step;
    const a = f(x, plus);
    x[j] = u[j] - step;
    const b = f(x, minus);
    x[j] = u[j];
    if (!Number.isFinite(a) || !Number.isFinite(b)) return null;
    for (let i = 0; i < dim; i++) h[i * dim + j] = (plus[i] - minus[i]) / (2 * step);
  }
  for (let i = 0; i < dim; i++) {
    for (let j = 0; j < i; j++) {
      const v = (h[i * dim + j] + h[j * dim + i]) / 2;
      h[i * dim + j] = v;
      h[j * dim + i] = v;
    }
  }
  return h.every(Number.isFinite) ? h : null;
}

/**
 * The Laplace approximation N(û, (−H)⁻¹) of a log density, as a preconditioner: damped Newton
 * from `init` (Levenberg–Marquardt shift when −H is not positive definite, backtracking until
 * the log density rises), then the Hessian at the mode with steps scaled to its own curvature,
 * checked by the fall of log p one standard deviation away along each column of L.
 *
 * @param logDensity The target on the unconstrained scale (writes its gradient).
 * @param init Where to start.
 * @param options Iterations and tolerance.
 * @returns The preconditioner (or null with the reason) and the evaluations spent.
 *
 * @example A correlated normal: the mode and covariance are found exactly
 * ```ts
 * import assert from "node:assert/strict";
 * import { laplacePreconditioner } from "./precondition.ts";
 * // precision [[2, 1], [1, 2]], mean (1, −1)
 * const f = (u: Float64Array, g: Float64Array) => {
 *   const a = u[0] - 1, b = u[1] + 1;
 *   g[0] = -(2 * a + b);
 *   g[1] = -(a + 2 * b);
 *   return -(a * (2 * a + b) + b * (a + 2 * b)) / 2;
 * };
 * const { preconditioner: p } = laplacePreconditioner(f, Float64Array.of(0, 0));
 * assert.ok(Math.abs(p!.mean[0] - 1) < 1e-9 && Math.abs(p!.mean[1] + 1) < 1e-9);
 * // covariance [[2, −1], [−1, 2]]/3 = LLᵀ
 * assert.ok(Math.abs(p!.factor[0] ** 2 - 2 / 3) < 1e-6);
 * ```
 */
export function laplacePreconditioner(
  logDensity: LogDensityFn,
  init: Float64Array,
  options: LaplaceOptions = {},
): LaplaceResult {
  const { maxIterations = 50, tolerance = 1e-8 } = options;
  const dim = init.length;
  let evaluations = 0;
  const f: LogDensityFn = (u, g) => {
    evaluations++;
    return logDensity(u, g);
  };
  const fail = (failure: string): LaplaceResult => ({ preconditioner: null, evaluations, failure });
  let u = Float64Array.from(init);
  let g = new Float64Array(dim);
  let value = f(u, g);
  if (!Number.isFinite(value) || !g.every(Number.isFinite)) return fail("start not finite");
  const scale = new Float64Array(dim).fill(1);
  const trial = new Float64Array(dim);
  const trialGradient = new Float64Array(dim);
  let converged = false;
  for (let iteration = 0; iteration < maxIterations && !converged; iteration++) {
    const h = hessian(f, u, scale);
    if (h === null) return fail("Hessian not finite");
    // −H + λ·diag(|H_jj|) until positive definite.
    let l: Float64Array | null = null;
    for (let shift = 0; l === null && shift <= 1e8; shift = shift === 0 ? 1e-6 : shift * 10) {
      const a = h.map((v) => -v);
      for (let j = 0; j < dim; j++) a[j * dim + j] += shift * Math.max(Math.abs(h[j * dim + j]), 1);
      l = cholesky(a, dim);
    }
    if (l === null) return fail("no positive definite Newton system");
    const step = choleskySolve(l, g);
    const decrement = step.reduce((s, v, j) => s + v * g[j], 0) / 2;
    if (decrement < tolerance) converged = true;
    let t = 1;
    let accepted = false;
    for (let halving = 0; halving < 40 && !accepted; halving++, t /= 2) {
      for (let j = 0; j < dim; j++) trial[j] = u[j] + t * step[j];
      const next = f(trial, trialGradient);
      if (Number.isFinite(next) && next >= value - 1e-12 * Math.abs(value)) {
        accepted = true;
        value = next;
        u = Float64Array.from(trial);
        g = Float64Array.from(trialGradient);
      }
    }
    if (!accepted && !converged) return fail("line search failed");
  }
  if (!converged) return fail(`no mode within ${maxIterations} Newton steps`);
  // The Hessian at the mode, with steps scaled to the curvature there.
  const first = hessian(f, u, scale);
  if (first === null) return fail("Hessian not finite at the mode");
  for (let j = 0; j < dim; j++) {
    const curvature = -first[j * dim + j];
    scale[j] = curvature > 0 ? 1 / Math.sqrt(curvature) : 1;
  }
  const h = hessian(f, u, scale);
  if (h === null) return fail("Hessian not finite at the mode");
  const precisionFactor = cholesky(h.map((v) => -v), dim);
  if (precisionFactor === null) return fail("Hessian at the mode not negative definite");
  const covariance = inverseFromCholesky(precisionFactor, dim);
  const factor = cholesky(covariance, dim);
  if (factor === null) return fail("covariance not positive definite");
  // One standard deviation along each column of L, log p should fall by about ½. A kink (a
  // censored likelihood's clamp) can fool the finite differences into a far too wide L; then
  // the approximation is not used.
  const step = new Float64Array(dim);
  for (let j = 0; j < dim; j++) {
    for (const sign of [1, -1]) {
      for (let i = 0; i < dim; i++) step[i] = u[i] + sign * factor[i * dim + j];
      const drop = value - f(step, trialGradient);
      if (!(drop < MAX_DROP_AT_ONE_SD)) {
        return fail(`log density falls by ${drop} one sd from the mode (column ${j})`);
      }
    }
  }
  return { preconditioner: { mean: u, factor, source: "laplace" }, evaluations };
}

/**
 * The mean and the Cholesky factor of the sample covariance of draws (S × dim, unconstrained),
 * or null when the covariance is not positive definite (fewer draws than dimensions, a constant
 * coordinate).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { drawsPreconditioner } from "./precondition.ts";
 * const p = drawsPreconditioner(Float64Array.of(0, 0, 2, 0, 0, 2, 2, 2), 2)!;
 * assert.deepEqual([...p.mean], [1, 1]);
 * assert.ok(Math.abs(p.factor[0] - Math.sqrt(4 / 3)) < 1e-15);
 * ```
 */
export function drawsPreconditioner(draws: Float64Array, dim: number): Preconditioner | null {
  const S = draws.length / dim;
  if (!Number.isSafeInteger(S) || S <= dim) return null;
  const mean = new Float64Array(dim);
  for (let s = 0; s < S; s++) for (let j = 0; j < dim; j++) mean[j] += draws[s * dim + j];
  for (let j = 0; j < dim; j++) mean[j] /= S;
  const covariance = new Float64Array(dim * dim);
  for (let s = 0; s < S; s++) {
    for (let i = 0; i < dim; i++) {
      const a = draws[s * dim + i] - mean[i];
      for (let j = 0; j <= i; j++) covariance[i * dim + j] += a * (draws[s * dim + j] - mean[j]);
    }
  }
  for (let i = 0; i < dim; i++) {
    for (let j = 0; j <= i; j++) {
      covariance[i * dim + j] /= S - 1;
      covariance[j * dim + i] = covariance[i * dim + j];
    }
  }
  const factor = cholesky(covariance, dim);
  return factor === null ? null : { mean, factor, source: "draws" };
}
