/**
 * Turns an S×p row-major draws matrix into named CSV columns.
 *
 * @module
 */

/**
 * Splits `draws` (S×names.length, row-major) into one column per parameter name.
 *
 * @param names Parameter names, in the matrix's column order.
 * @param draws The draws matrix.
 */
export function drawColumns(
  names: readonly string[],
  draws: Float64Array,
): Map<string, Float64Array> {
  const p = names.length;
  const s = draws.length / p;
  return new Map(
    names.map((name, j) => [name, Float64Array.from({ length: s }, (_, r) => draws[r * p + j])]),
  );
}
