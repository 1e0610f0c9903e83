/**
 * Survey-weighted totals of a confidential and a synthetic file side by side: the total of a
 * weight column and, for chosen columns, each level's weighted count Σ_{i: x_i = level} w_i.
 *
 * @module
 */

/** One level's weighted counts. */
export interface WeightedLevel {
  readonly column: string;
  readonly level: string;
  readonly confidential: number;
  readonly synthetic: number;
}

/** The totals of both files. */
export interface WeightedTotals {
  /** Σ_i w_i of each file. */
  readonly total: { readonly confidential: number; readonly synthetic: number };
  /** Every level found in either file, by column, levels sorted. */
  readonly levels: readonly WeightedLevel[];
}

/**
 * The weight totals and each level's weighted count in both files.
 *
 * @param confidential Column → cells of the confidential file.
 * @param synthetic Column → cells of the synthetic file.
 * @param options `weight`: the weight column (finite, non-negative numbers); `columns`: the
 *   columns whose levels are counted.
 * @returns The totals and the weighted level counts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { weightedTotals } from "./weighted_totals.ts";
 * const conf = new Map([["W", ["2", "3"]], ["SEX", ["1", "2"]]]);
 * const syn = new Map([["W", ["4"]], ["SEX", ["2"]]]);
 * const totals = weightedTotals(conf, syn, { weight: "W", columns: ["SEX"] });
 * assert.deepEqual(totals.total, { confidential: 5, synthetic: 4 });
 * assert.deepEqual(totals.levels[1], { column: "SEX", level: "2", confidential: 3, synthetic: 4 });
 * ```
 */
export function weightedTotals(
  confidential: ReadonlyMap<string, readonly string[]>,
  synthetic: ReadonlyMap<string, readonly string[]>,
  options: { weight: string; columns: readonly string[] },
): WeightedTotals {
  const wc = weightsOf(confidential, options.weight, "confidential");
  const ws = weightsOf(synthetic, options.weight, "synthetic");
  const levels: WeightedLevel[] = [];
  for (const column of options.columns) {
    const c = sumsByLevel(cellsOf(confidential, column, "confidential", wc.length), wc);
    const s = sumsByLevel(cellsOf(synthetic, column, "synthetic", ws.length), ws);
    const all = [...new Set([...c.keys(), ...s.keys()])].sort();
    for (const level of all) {
      levels.push({ column, level, confidential: c.get(level) ?? 0, synthetic: s.get(level) ?? 0 });
    }
  }
  const sum = (w: Float64Array) => w.reduce((a, b) => a + b, 0);
  return { total: { confidential: sum(wc), synthetic: sum(ws) }, levels };
}

function sumsByLevel(cells: readonly string[], weights: Float64Array): Map<string, number> {
  const sums = new Map<string, number>();
  cells.forEach((cell, i) => sums.set(cell, (sums.get(cell) ?? 0) + weights[i]));
  return sums;
}

function cellsOf(
  file: ReadonlyMap<string, readonly string[]>,
  column: string,
  which: string,
  n: number,
): readonly string[] {
  const cells = file.get(column);
  if (cells === undefined) throw new RangeError(`The ${which} file has no column ${column}`);
  if (cells.length !== n) {
    throw new RangeError(
      `Column ${column} of the ${which} file has ${cells.length} cells, not ${n}`,
    );
  }
  return cells;
}

function weightsOf(
  file: ReadonlyMap<string, readonly string[]>,
  column: string,
  which: string,
): Float64Array {
  const cells = file.get(column);
  if (cells === undefined) throw new RangeError(`The ${which} file has no weight column ${column}`);
  return Float64Array.from(cells, (cell, row) => {
    const w = Number(cell);
    if (cell.trim() === "" || !Number.isFinite(w) || w < 0) {
      throw new RangeError(
        `Invalid weight in the ${which} file, column ${column}, row ${
          row + 1
        }: "${cell}" is not a non-negative number`,
      );
    }
    return w;
  });
}
