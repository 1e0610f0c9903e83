/**
 * Proportional allocation of an integer total to parts by size, rounded by the largest-remainder
 * rule: the population's cell sizes (`population.ts`) and the PPS design's stratum sample sizes
 * (`pps_sample.ts`, SPEC §9.4).
 *
 * @module
 */

/**
 * Rounds total·s_h/Σs to integers that sum to `total` by the largest-remainder (Hamilton) rule:
 * every part gets ⌊total·s_h/Σs⌋, and the units still missing go one each to the parts with the
 * largest fractional remainders, ties to the lower index.
 *
 * @param sizes Non-negative finite sizes s_h with a positive sum.
 * @param total The non-negative integer to divide.
 * @returns The parts, in the order of `sizes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { proportionalAllocation } from "./allocation.ts";
 * assert.deepEqual([...proportionalAllocation([1, 1, 1], 10)], [4, 3, 3]);
 * ```
 */
export function proportionalAllocation(sizes: ArrayLike<number>, total: number): Int32Array {
  if (!Number.isSafeInteger(total) || total < 0 || total > 2 ** 31 - 1) {
    throw new RangeError(`Invalid total: must be a non-negative 32-bit integer: total=${total}`);
  }
  let sum = 0;
  for (let h = 0; h < sizes.length; h++) {
    if (!(sizes[h] >= 0) || !Number.isFinite(sizes[h])) {
      throw new RangeError(
        `Invalid sizes: must be non-negative and finite: sizes[${h}]=${sizes[h]}`,
      );
    }
    sum += sizes[h];
  }
  if (!(sum > 0)) throw new RangeError(`Invalid sizes: must have a positive sum: sum=${sum}`);
  const parts = new Int32Array(sizes.length);
  const remainders = new Float64Array(sizes.length);
  let assigned = 0;
  for (let h = 0; h < sizes.length; h++) {
    const quota = total * sizes[h] / sum;
    parts[h] = Math.floor(quota);
    remainders[h] = quota - parts[h];
    assigned += parts[h];
  }
  const order = Array.from(sizes, (_, h) => h).sort((a, b) =>
    remainders[b] - remainders[a] || a - b
  );
  for (let k = 0; assigned < total; k++, assigned++) parts[order[k]]++;
  return parts;
}
