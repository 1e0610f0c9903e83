/**
 * Cholesky factorisation A = LLᵀ of symmetric positive-definite matrices, and the solves and
 * inverse from the factor: the one implementation behind the dense metric and the Laplace
 * preconditioner (`src/mcmc`) and the GLM fit's normal equations (`glm_fit.ts`). Matrices are
 * row-major d×d `Float64Array`s.
 *
 * @module
 */

/**
 * The lower Cholesky factor of A restricted to the columns `keep` accepts, in column order
 * (Cholesky–Banachiewicz, row by row; only the lower triangle of A is read). Column j's row of L
 * is computed against the columns kept before it, and `keep(j, pivot)` decides on it from its
 * pivot A_jj − Σ_k L_jk²; a column it refuses leaves no trace in L.
 *
 * @param a A, row-major d×d.
 * @param dim d.
 * @param keep Whether to keep column j given its pivot (called once per column, in order).
 * @returns The kept columns and L, row-major p×p (p = kept.length) with zeros above the
 *   diagonal: the factor of A's principal submatrix on the kept columns.
 *
 * @example A column that is a copy of an earlier one is dropped
 * ```ts
 * import assert from "node:assert/strict";
 * import { choleskyKeeping } from "./cholesky.ts";
 * const a = Float64Array.of(4, 4, 2, 4, 4, 2, 2, 2, 5);
 * const { kept, l } = choleskyKeeping(a, 3, (_, pivot) => pivot > 1e-12);
 * assert.deepEqual(kept, [0, 2]);
 * assert.deepEqual([...l], [2, 0, 1, 2]);
 * ```
 */
export function choleskyKeeping(
  a: Float64Array,
  dim: number,
  keep: (j: number, pivot: number) => boolean,
): { kept: number[]; l: Float64Array } {
  const kept: number[] = [];
  const l = new Float64Array(dim * dim);
  for (let j = 0; j < dim; j++) {
    const i = kept.length;
    // Row i of L for column j against the kept columns.
    for (let b = 0; b < i; b++) {
      let s = a[j * dim + kept[b]];
      for (let c = 0; c < b; c++) s -= l[i * dim + c] * l[b * dim + c];
      l[i * dim + b] = s / l[b * dim + b];
    }
    let pivot = a[j * dim + j];
    for (let c = 0; c < i; c++) pivot -= l[i * dim + c] * l[i * dim + c];
    if (!keep(j, pivot)) {
      for (let c = 0; c < i; c++) l[i * dim + c] = 0;
      continue;
    }
    l[i * dim + i] = Math.sqrt(pivot);
    kept.push(j);
  }
  const p = kept.length;
  if (p === dim) return { kept, l };
  const compact = new Float64Array(p * p);
  for (let i = 0; i < p; i++) for (let b = 0; b <= i; b++) compact[i * p + b] = l[i * dim + b];
  return { kept, l: compact };
}

/**
 * The lower Cholesky factor L of a symmetric positive-definite matrix A = LLᵀ
 * (Cholesky–Banachiewicz, row by row; only the lower triangle of A is read).
 *
 * @param a A, row-major d×d.
 * @param dim d.
 * @returns L, row-major d×d with zeros above the diagonal, or null when a pivot
 *   A_ii − Σ_k L_ik² is not finite and > 0 (A not numerically positive definite).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cholesky } from "./cholesky.ts";
 * // [[4, 2], [2, 5]] = [[2, 0], [1, 2]]·[[2, 1], [0, 2]]
 * assert.deepEqual([...cholesky(Float64Array.of(4, 2, 2, 5), 2)!], [2, 0, 1, 2]);
 * assert.equal(cholesky(Float64Array.of(1, 2, 2, 1), 2), null);
 * ```
 */
export function cholesky(a: Float64Array, dim: number): Float64Array | null {
  let definite = true;
  const { l } = choleskyKeeping(a, dim, (_, pivot) => {
    if (!(pivot > 0 && Number.isFinite(pivot))) definite = false;
    return definite;
  });
  return definite ? l : null;
}

/**
 * Solves A·x = b in place for A = LLᵀ given L (forward, then back substitution).
 *
 * @param l L, row-major d×d lower triangular.
 * @param dim d.
 * @param b b on entry, x on return (its first d entries).
 */
export function choleskySolveInPlace(l: Float64Array, dim: number, b: Float64Array): void {
  for (let i = 0; i < dim; i++) {
    let s = b[i];
    for (let j = 0; j < i; j++) s -= l[i * dim + j] * b[j];
    b[i] = s / l[i * dim + i];
  }
  for (let i = dim - 1; i >= 0; i--) {
    let s = b[i];
    for (let j = i + 1; j < dim; j++) s -= l[j * dim + i] * b[j];
    b[i] = s / l[i * dim + i];
  }
}

/**
 * Solves A·x = b for A = LLᵀ given L.
 *
 * @param l L, row-major d×d lower triangular (d = b.length).
 * @param b b (not changed).
 * @returns x.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cholesky, choleskySolve } from "./cholesky.ts";
 * const l = cholesky(Float64Array.of(4, 2, 2, 5), 2)!;
 * assert.deepEqual([...choleskySolve(l, Float64Array.of(6, 7))], [1, 1]);
 * ```
 */
export function choleskySolve(l: Float64Array, b: Float64Array): Float64Array {
  const x = Float64Array.from(b);
  choleskySolveInPlace(l, b.length, x);
  return x;
}

/**
 * A⁻¹ = (LLᵀ)⁻¹ from L, column by column (the solve against each unit vector).
 *
 * @param l L, row-major d×d lower triangular.
 * @param dim d.
 * @returns A⁻¹, row-major d×d.
 */
export function inverseFromCholesky(l: Float64Array, dim: number): Float64Array {
  const inverse = new Float64Array(dim * dim);
  const e = new Float64Array(dim);
  for (let j = 0; j < dim; j++) {
    e.fill(0);
    e[j] = 1;
    choleskySolveInPlace(l, dim, e);
    for (let i = 0; i < dim; i++) inverse[i * dim + j] = e[i];
  }
  return inverse;
}
