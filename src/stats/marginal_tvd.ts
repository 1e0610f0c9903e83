/**
 * Total-variation distances between the marginals of a confidential and a synthetic file, on
 * binned columns (`sdnist_binning.ts`): TVD = ½·Σ_cells |t − s| with t, s each file's share of
 * its records in the cell, in [0, 1] (half SDNist's k-marginal d). Per column (1-way) and over
 * every 3-way marginal (all C(p, 3) triples: 2,024 for 24 columns, each one pass over both files).
 *
 * @module
 */
import { codeColumns, type CodedColumns, visitCells } from "./_marginal_cells.ts";
import type { BinnedColumn } from "./sdnist_binning.ts";

/** One marginal's distance. */
export interface MarginalDistance {
  readonly columns: readonly string[];
  /** ½·Σ_cells |t − s|. */
  readonly tvd: number;
}

/** The 3-way summary. */
export interface ThreeWayTvd {
  /** The mean TVD over all triples. */
  readonly mean: number;
  /** The number of triples. */
  readonly count: number;
  /** The `worst` largest, largest first. */
  readonly worst: readonly MarginalDistance[];
}

/**
 * Each column's TVD between the files.
 *
 * @param confidential Column → binned cells of the confidential file.
 * @param synthetic Column → binned cells of the synthetic file.
 * @param columns The columns.
 * @returns One distance per column, in order.
 *
 * @example Shares (½, ½) against (1, 0): TVD ½
 * ```ts
 * import assert from "node:assert/strict";
 * import { columnTvds } from "./marginal_tvd.ts";
 * const tvd = columnTvds(new Map([["A", ["x", "y"]]]), new Map([["A", ["x", "x"]]]), ["A"]);
 * assert.deepEqual(tvd, [{ columns: ["A"], tvd: 0.5 }]);
 * ```
 */
export function columnTvds(
  confidential: ReadonlyMap<string, BinnedColumn>,
  synthetic: ReadonlyMap<string, BinnedColumn>,
  columns: readonly string[],
): MarginalDistance[] {
  const coded = codeColumns(confidential, synthetic, columns);
  return columns.map((column, j) => ({ columns: [column], tvd: tvdOf(coded, [j]) }));
}

/**
 * The mean TVD over every 3-way marginal of the columns, and the worst triples.
 *
 * @param confidential Column → binned cells of the confidential file.
 * @param synthetic Column → binned cells of the synthetic file.
 * @param columns The columns (at least three).
 * @param options `worst`: how many of the largest to return (default 5).
 * @returns The mean, the number of triples and the worst ones.
 *
 * @example Identical files
 * ```ts
 * import assert from "node:assert/strict";
 * import { threeWayTvd } from "./marginal_tvd.ts";
 * const f = new Map([["A", ["1", "2"]], ["B", ["x", "y"]], ["C", ["u", "u"]]]);
 * assert.equal(threeWayTvd(f, f, ["A", "B", "C"]).mean, 0);
 * ```
 */
export function threeWayTvd(
  confidential: ReadonlyMap<string, BinnedColumn>,
  synthetic: ReadonlyMap<string, BinnedColumn>,
  columns: readonly string[],
  options: { worst?: number } = {},
): ThreeWayTvd {
  if (columns.length < 3) {
    throw new RangeError(`Cannot form 3-way marginals of ${columns.length} columns`);
  }
  const coded = codeColumns(confidential, synthetic, columns);
  const all: MarginalDistance[] = [];
  for (let a = 0; a < columns.length; a++) {
    for (let b = a + 1; b < columns.length; b++) {
      for (let c = b + 1; c < columns.length; c++) {
        all.push({ columns: [columns[a], columns[b], columns[c]], tvd: tvdOf(coded, [a, b, c]) });
      }
    }
  }
  const mean = all.reduce((sum, m) => sum + m.tvd, 0) / all.length;
  const worst = [...all].sort((x, y) => y.tvd - x.tvd).slice(0, options.worst ?? 5);
  return { mean, count: all.length, worst };
}

function tvdOf(coded: CodedColumns, which: readonly number[]): number {
  let sum = 0;
  visitCells(coded, which, (_, t, s) => (sum += Math.abs(t - s)));
  return sum / 2;
}
