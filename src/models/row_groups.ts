/**
 * Records that share their covariate row (and a per-record key, such as the outcome): a model
 * whose record terms depend on nothing else evaluates them once per group and reads them per
 * record. Files of categorical covariates have few distinct rows (NHANES' age group × gender:
 * 8 rows for 7846 records), so the exponentials and logarithms of a log density fall from one per
 * record to one per group. A group's terms are computed from its first record's row with the
 * record loop's own arithmetic, so the log density, gradient and ℓ are the same bit for bit; the
 * records are still summed one by one, in order.
 *
 * @module
 */

/** A number as text that tells −0 from 0 (String does not), so that equal text is an equal value. */
function exact(v: number): string {
  return Object.is(v, -0) ? "-0" : String(v);
}

/** Groups of records with equal rows; `of[i]` is record i's group, `first[g]` its first record. */
export interface RowGroups {
  /** The group of each record. */
  readonly of: Int32Array;
  /** The first record of each group, in order of appearance. */
  readonly first: Int32Array;
}

/** Groups pay for their extra pass only when they are at most this share of the records. */
export const MAX_GROUP_SHARE = 0.25;

/**
 * The groups of records whose covariates x_i1..x_i,K−1 (x is n×K row-major, column 0 the
 * intercept) and `key[i]` are equal, or null when there are more than {@link MAX_GROUP_SHARE}·n of
 * them (a continuous covariate: every record its own group).
 *
 * @param x The design matrix, n×K row-major.
 * @param n Records.
 * @param k Columns.
 * @param key A per-record value that the terms also depend on (e.g. the outcome), or null.
 * @returns The groups, or null.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rowGroups } from "./row_groups.ts";
 * const x = Float64Array.of(1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0);
 * const groups = rowGroups(x, 8, 2, null)!;
 * assert.deepEqual([...groups.of], [0, 1, 0, 0, 1, 0, 0, 0]);
 * assert.deepEqual([...groups.first], [0, 1]);
 * ```
 */
export function rowGroups(
  x: Float64Array,
  n: number,
  k: number,
  key: ArrayLike<number> | null,
): RowGroups | null {
  const limit = Math.floor(MAX_GROUP_SHARE * n);
  const index = new Map<string, number>();
  const of = new Int32Array(n);
  const first: number[] = [];
  for (let i = 0; i < n; i++) {
    let name = key === null ? "" : exact(key[i]);
    for (let j = 1; j < k; j++) name += `,${exact(x[i * k + j])}`;
    let g = index.get(name);
    if (g === undefined) {
      if (first.length >= limit) return null;
      g = first.length;
      index.set(name, g);
      first.push(i);
    }
    of[i] = g;
  }
  return { of, first: Int32Array.from(first) };
}
