/**
 * Euclidean metrics for Hamiltonian Monte Carlo (Betancourt 2017, "A conceptual introduction to
 * Hamiltonian Monte Carlo", §4.2; Stan's `diag_e_metric.hpp` and `dense_e_metric.hpp`).
 *
 * A metric is the mass matrix M of the kinetic energy K(p) = ½·pᵀM⁻¹p. It is given by its
 * inverse M⁻¹, which warmup sets to an estimate of the posterior covariance, and it supplies the
 * four operations the sampler needs: a momentum draw p ~ N(0, M), the "sharp" momentum (velocity)
 * p♯ = M⁻¹p, the drift q ← q + ε·M⁻¹p of a leapfrog step, and K(p).
 *
 * - `diag`: M⁻¹ = diag(m), p_j = z_j/√m_j, K = ½·Σ_j m_j p_j².
 * - `dense`: M⁻¹ = Σ (symmetric positive definite) with Cholesky factor Σ = LLᵀ;
 *   p = L⁻ᵀz (so Cov p = L⁻ᵀL⁻¹ = Σ⁻¹ = M), p♯ = Σp, K = ½·pᵀΣp.
 *
 * z is a vector of standard normal draws, taken coordinate 0 first in both cases.
 *
 * @module
 */
import type { MetricKind } from "../models/model.ts";
import type { Rng } from "../random/rng.ts";
import { cholesky } from "../stats/cholesky.ts";

export type { MetricKind } from "../models/model.ts";

/** The metric kinds. */
export const METRIC_KINDS: readonly MetricKind[] = ["diag", "dense"];

/**
 * Checks a metric option.
 *
 * @param metric The option's value.
 * @throws {RangeError} When it is not one of {@linkcode METRIC_KINDS}.
 */
export function checkMetricKind(metric: MetricKind): void {
  if (!METRIC_KINDS.includes(metric)) {
    throw new RangeError(
      `Invalid metric: must be one of ${METRIC_KINDS.join(", ")}: metric=${metric}`,
    );
  }
}

/** A Euclidean metric given by its inverse M⁻¹ (see the module doc). */
export interface Metric {
  readonly kind: MetricKind;
  /** The dimension d. */
  readonly dim: number;
  /** Draws p ~ N(0, M) into `p`, consuming d standard normals. */
  sampleMomentum(rng: Rng, p: Float64Array): void;
  /** Writes the sharp momentum p♯ = M⁻¹p into `out`. */
  sharp(out: Float64Array, p: Float64Array): void;
  /** The leapfrog drift q ← q + ε·M⁻¹p, in place. */
  drift(q: Float64Array, p: Float64Array, stepSize: number): void;
  /** The kinetic energy K(p) = ½·pᵀM⁻¹p. */
  kineticEnergy(p: Float64Array): number;
  /** The diagonal of M⁻¹ (a copy). */
  inverseDiagonal(): Float64Array;
}

/** The diagonal metric M⁻¹ = diag(m) (Stan's `diag_e_metric`). */
class DiagMetric implements Metric {
  readonly kind = "diag";
  readonly dim: number;
  readonly #m: Float64Array;

  constructor(inverseMassDiag: Float64Array) {
    for (let j = 0; j < inverseMassDiag.length; j++) {
      const m = inverseMassDiag[j];
      if (!(m > 0 && Number.isFinite(m))) {
        throw new RangeError(
          `Invalid inverseMassDiag: entries must be finite and > 0: inverseMassDiag[${j}]=${m}`,
        );
      }
    }
    this.dim = inverseMassDiag.length;
    this.#m = inverseMassDiag;
  }

  sampleMomentum(rng: Rng, p: Float64Array): void {
    const m = this.#m;
    for (let j = 0; j < p.length; j++) p[j] = rng.normal() / Math.sqrt(m[j]);
  }

  sharp(out: Float64Array, p: Float64Array): void {
    const m = this.#m;
    for (let j = 0; j < p.length; j++) out[j] = m[j] * p[j];
  }

  drift(q: Float64Array, p: Float64Array, stepSize: number): void {
    const m = this.#m;
    for (let j = 0; j < q.length; j++) q[j] += stepSize * m[j] * p[j];
  }

  kineticEnergy(p: Float64Array): number {
    const m = this.#m;
    let sum = 0;
    for (let j = 0; j < p.length; j++) sum += m[j] * p[j] * p[j];
    return 0.5 * sum;
  }

  inverseDiagonal(): Float64Array {
    return Float64Array.from(this.#m);
  }
}

/** The dense metric M⁻¹ = Σ = LLᵀ (Stan's `dense_e_metric`), Σ and L row-major d×d. */
class DenseMetric implements Metric {
  readonly kind = "dense";
  readonly dim: number;
  readonly #sigma: Float64Array;
  readonly #chol: Float64Array;
  /** Scratch for Σp in `kineticEnergy` and `drift`. */
  readonly #v: Float64Array;

  constructor(sigma: Float64Array, chol: Float64Array, dim: number) {
    this.dim = dim;
    this.#sigma = sigma;
    this.#chol = chol;
    this.#v = new Float64Array(dim);
  }

  sampleMomentum(rng: Rng, p: Float64Array): void {
    const d = this.dim;
    const l = this.#chol;
    for (let i = 0; i < d; i++) p[i] = rng.normal();
    // Back substitution for Lᵀp = z: p_i = (z_i − Σ_{j>i} L_ji p_j)/L_ii.
    for (let i = d - 1; i >= 0; i--) {
      let s = p[i];
      for (let j = i + 1; j < d; j++) s -= l[j * d + i] * p[j];
      p[i] = s / l[i * d + i];
    }
  }

  sharp(out: Float64Array, p: Float64Array): void {
    const d = this.dim;
    const a = this.#sigma;
    for (let i = 0, row = 0; i < d; i++, row += d) {
      let s = 0;
      for (let j = 0; j < d; j++) s += a[row + j] * p[j];
      out[i] = s;
    }
  }

  drift(q: Float64Array, p: Float64Array, stepSize: number): void {
    const v = this.#v;
    this.sharp(v, p);
    for (let j = 0; j < q.length; j++) q[j] += stepSize * v[j];
  }

  kineticEnergy(p: Float64Array): number {
    const v = this.#v;
    this.sharp(v, p);
    let sum = 0;
    for (let j = 0; j < p.length; j++) sum += v[j] * p[j];
    return 0.5 * sum;
  }

  inverseDiagonal(): Float64Array {
    const d = this.dim;
    return Float64Array.from({ length: d }, (_, j) => this.#sigma[j * d + j]);
  }
}

/**
 * The diagonal metric with M⁻¹ = diag(m). The array is used as it is, not copied.
 *
 * @param inverseMassDiag m, all entries finite and > 0.
 * @returns The metric.
 * @throws {RangeError} When an entry is not finite and > 0.
 *
 * @example K(p) = ½·Σ m_j p_j²
 * ```ts
 * import assert from "node:assert/strict";
 * import { diagMetric } from "./metric.ts";
 * assert.equal(diagMetric(Float64Array.of(2, 0.5)).kineticEnergy(Float64Array.of(1, 2)), 2);
 * ```
 */
export function diagMetric(inverseMassDiag: Float64Array): Metric {
  return new DiagMetric(inverseMassDiag);
}

/**
 * The dense metric with M⁻¹ = Σ. Σ is copied and factored once (Σ = LLᵀ), so a transition
 * costs no factorisation; momentum draws are p = L⁻ᵀz.
 *
 * @param inverseMetric Σ, row-major d×d, symmetric positive definite.
 * @param dim d.
 * @returns The metric.
 * @throws {RangeError} When Σ has the wrong length, a non-finite entry, is not symmetric, or is
 *   not numerically positive definite.
 *
 * @example K(p) = ½·pᵀΣp
 * ```ts
 * import assert from "node:assert/strict";
 * import { denseMetric } from "./metric.ts";
 * const metric = denseMetric(Float64Array.of(2, 1, 1, 2), 2);
 * assert.equal(metric.kineticEnergy(Float64Array.of(1, 1)), 3);
 * ```
 */
export function denseMetric(inverseMetric: Float64Array, dim: number): Metric {
  if (!Number.isSafeInteger(dim) || dim < 1) {
    throw new RangeError(`Invalid dim: must be an integer ≥ 1: dim=${dim}`);
  }
  if (inverseMetric.length !== dim * dim) {
    throw new RangeError(
      `Invalid inverseMetric: length must be dim²=${dim * dim}: length=${inverseMetric.length}`,
    );
  }
  for (let i = 0; i < dim; i++) {
    for (let j = 0; j <= i; j++) {
      const a = inverseMetric[i * dim + j];
      if (!Number.isFinite(a) || a !== inverseMetric[j * dim + i]) {
        throw new RangeError(
          `Invalid inverseMetric: must be finite and symmetric: inverseMetric[${i},${j}]=${a}, ` +
            `inverseMetric[${j},${i}]=${inverseMetric[j * dim + i]}`,
        );
      }
    }
  }
  const chol = cholesky(inverseMetric, dim);
  if (chol === null) {
    throw new RangeError(`Invalid inverseMetric: not positive definite (dim=${dim})`);
  }
  return new DenseMetric(Float64Array.from(inverseMetric), chol, dim);
}

/**
 * The unit metric M⁻¹ = I of the given kind (where Stan's warmup starts).
 *
 * @param kind `diag` or `dense`.
 * @param dim The dimension d.
 * @returns The metric.
 */
export function unitMetric(kind: MetricKind, dim: number): Metric {
  if (kind === "diag") return diagMetric(new Float64Array(dim).fill(1));
  const identity = new Float64Array(dim * dim);
  for (let j = 0; j < dim; j++) identity[j * dim + j] = 1;
  return denseMetric(identity, dim);
}

/** A metric, or the diagonal m of a diagonal metric's M⁻¹. */
export type InverseMetric = Metric | Float64Array;

/**
 * The metric an {@linkcode InverseMetric} stands for: a Float64Array m is `diagMetric(m)`.
 *
 * @param inverseMetric A metric or a diagonal M⁻¹.
 * @returns The metric.
 */
export function toMetric(inverseMetric: InverseMetric): Metric {
  return inverseMetric instanceof Float64Array ? diagMetric(inverseMetric) : inverseMetric;
}
