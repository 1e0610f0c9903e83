/**
 * The order of a released file's records (issue 34, F1). A synthetic dataset is simulated record
 * by record from the confidential file's public covariates, so in the confidential file's stored
 * order row r of the release is confidential record r: on a file sorted by a confidential column
 * (salary, or stratum and PSU), the row numbers alone give every record's rank, whatever the
 * mechanism and ε. A released dataset's rows are therefore put in a uniformly random order drawn
 * with the release's randomness (the secret CSPRNG seed of a registered dataset's release, the
 * given seed of a seeded run), one permutation per dataset, after the owner's utility and risk
 * (which pair record i with synthetic record i) are computed. The released order then depends on
 * no confidential value: each of the n! orders has the same probability whatever the data.
 *
 * @module
 */
import type { OutputColumn } from "../data/csv.ts";
import { samplePermutation } from "../random/distributions.ts";
import type { Rng } from "../random/rng.ts";

/**
 * The columns with their rows in the order `order` (row r is input row order[r]).
 *
 * @param columns Columns of equal length n.
 * @param order A permutation of 0..n−1.
 * @returns New columns; the input is not changed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { OutputColumn } from "../data/csv.ts";
 * import { permuteRows } from "./release_order.ts";
 * const columns = new Map<string, OutputColumn>([["y", Float64Array.of(1, 2, 3)], ["g", ["a", "b", "c"]]]);
 * const out = permuteRows(columns, Uint32Array.of(2, 0, 1));
 * assert.deepEqual([...out.get("y")!], [3, 1, 2]);
 * assert.deepEqual(out.get("g"), ["c", "a", "b"]);
 * ```
 */
export function permuteRows(
  columns: ReadonlyMap<string, OutputColumn>,
  order: Uint32Array,
): Map<string, OutputColumn> {
  const out = new Map<string, OutputColumn>();
  for (const [name, column] of columns) {
    if (column.length !== order.length) {
      throw new RangeError(
        `Invalid order: column "${name}" has ${column.length} rows, the order ${order.length}`,
      );
    }
    out.set(
      name,
      column instanceof Float64Array
        ? Float64Array.from(order, (i) => column[i])
        : Array.from(order, (i) => column[i]),
    );
  }
  return out;
}

/**
 * A released dataset: its columns in a uniformly random row order from `rng` (Fisher–Yates with
 * exact uniform indices, `samplePermutation`).
 *
 * @param columns The dataset's columns, in the confidential file's order.
 * @param rng The release's stream for this dataset's order.
 * @returns The columns in release order.
 */
export function inReleaseOrder(
  columns: ReadonlyMap<string, OutputColumn>,
  rng: Rng,
): Map<string, OutputColumn> {
  const n = columns.values().next().value?.length ?? 0;
  return permuteRows(columns, samplePermutation(rng, n));
}
