/**
 * The partial-synthesis combining rules (`stats/partial_synthesis.ts`) applied to every cell of
 * m survey tables (the survey paper's Appendix A, SPEC §8).
 *
 * @module
 */
import { checkLevel, combinePartialSynthesis } from "../stats/partial_synthesis.ts";
import type { SurveyTable } from "./tables.ts";

/**
 * A survey table combined over m synthetic datasets: `count`/`mean` hold q̄ and
 * `countSE`/`meanSE` hold √T for each cell, with the degrees of freedom and interval ends.
 */
export interface CombinedTable extends SurveyTable {
  readonly m: number;
  readonly countDf: Float64Array;
  readonly countLower: Float64Array;
  readonly countUpper: Float64Array;
  readonly meanDf: Float64Array;
  readonly meanLower: Float64Array;
  readonly meanUpper: Float64Array;
}

/**
 * Applies {@linkcode combinePartialSynthesis} cell by cell to the tables of m synthetic
 * datasets, with q^(ℓ) the cell's count (or mean) in table ℓ and u^(ℓ) its squared standard
 * error. A cell whose mean is NaN in any table (an empty cell) has NaN mean, SE, df and interval.
 *
 * @param tables The m ≥ 1 tables, with the same grouping columns and row labels.
 * @param level The intervals' coverage (default 0.95).
 * @returns The combined table, rows in the order of the inputs.
 */
export function combineTables(tables: readonly SurveyTable[], level = 0.95): CombinedTable {
  const m = tables.length;
  if (m < 1) throw new RangeError(`Invalid tables: needs at least one table: m=${m}`);
  checkLevel(level);
  const first = tables[0];
  const R = first.count.length;
  tables.forEach((table, l) => {
    const same = table.by[0] === first.by[0] && table.by[1] === first.by[1] &&
      table.count.length === R &&
      table.labels.every((labels, k) => labels.every((label, r) => label === first.labels[k][r]));
    if (!same) {
      throw new RangeError(`Invalid tables: table ${l} has different grouping columns or rows`);
    }
  });
  const columns = () => new Float64Array(R);
  const out = {
    count: columns(),
    countSE: columns(),
    countDf: columns(),
    countLower: columns(),
    countUpper: columns(),
    mean: columns(),
    meanSE: columns(),
    meanDf: columns(),
    meanLower: columns(),
    meanUpper: columns(),
  };
  const q = new Float64Array(m);
  const u = new Float64Array(m);
  for (let r = 0; r < R; r++) {
    for (const kind of ["count", "mean"] as const) {
      tables.forEach((table, l) => {
        q[l] = table[kind][r];
        u[l] = table[`${kind}SE`][r] ** 2;
      });
      const defined = q.every(Number.isFinite) && u.every(Number.isFinite);
      const c = defined ? combinePartialSynthesis(q, u, level) : undefined;
      out[kind][r] = c?.estimate ?? NaN;
      out[`${kind}SE`][r] = c?.se ?? NaN;
      out[`${kind}Df`][r] = c?.df ?? NaN;
      out[`${kind}Lower`][r] = c?.lower ?? NaN;
      out[`${kind}Upper`][r] = c?.upper ?? NaN;
    }
  }
  return { by: first.by, labels: first.labels, m, ...out };
}
