/**
 * The add/remove neighbour of a table input that the brute-force sensitivity checks of the
 * Laplace baseline tests compare against.
 *
 * @module
 */
import type { TableInput } from "../../src/survey/tables.ts";

/** The input with unit j removed (two `by` variables). */
export function withoutUnit(input: TableInput, j: number): TableInput {
  const keep = (_: unknown, i: number) => i !== j;
  return {
    y: input.y.filter(keep),
    weight: input.weight.filter(keep),
    strata: input.strata.filter(keep),
    by: [
      { ...input.by[0], codes: input.by[0].codes.filter(keep) },
      { ...input.by[1], codes: input.by[1].codes.filter(keep) },
    ],
  };
}
