/**
 * The survey study's per-cell measures against the population (Study 4): the population values
 * of the 27 cells, each table's RMSE and the coverage of its 95% intervals.
 *
 * @module
 */
import { studentTQuantile } from "../stats/student_t.ts";
import type { CombinedTable } from "../survey/combine.ts";
import type { Population } from "../survey/population.ts";
import { FIELD_LEVELS, GENDER_LEVELS } from "../survey/sdr_tables.ts";
import { cellLayout, type SurveyTable } from "../survey/tables.ts";
import type { Quantity } from "./survey_settings.ts";

/** Per cell (27, grand total first, in `cellLayout` order): counts and means. */
export interface CellValues {
  readonly count: number[];
  readonly mean: number[];
}

/** Coverage of one table at m = coverageM: per cell, 1 when the 95% interval holds Q. */
export interface CoverageEntry {
  readonly covered: CellValues;
  readonly length: CellValues;
  /** SE/estimate. */
  readonly cv: CellValues;
  /** Estimate − population value (absent from results written before issue 25's re-run). */
  readonly error?: CellValues;
}

/** The population values of every cell: N_c and the mean salary (cellLayout order). */
export function populationTruth(population: Population): CellValues {
  const { rows } = cellLayout([
    { name: "field", codes: population.field, levels: FIELD_LEVELS },
    { name: "gender", codes: population.gender, levels: GENDER_LEVELS },
  ]);
  const cells = (FIELD_LEVELS.length + 1) * (GENDER_LEVELS.length + 1);
  const count = new Array<number>(cells).fill(0);
  const total = new Array<number>(cells).fill(0);
  for (let i = 0; i < population.size; i++) {
    for (let k = 4 * i; k < 4 * i + 4; k++) {
      count[rows[k]]++;
      total[rows[k]] += population.salary[i];
    }
  }
  return { count, mean: total.map((t, c) => t / count[c]) };
}

/**
 * Per-cell RMSE √((q − Q)² + SE²) of a table against the population values Q.
 *
 * @param table The table (estimates and standard errors).
 * @param truth The population values.
 */
export function cellRmse(table: SurveyTable, truth: CellValues): CellValues {
  const rmse = (kind: Quantity) =>
    truth[kind].map((q, c) =>
      Math.sqrt((table[kind][c] - q) ** 2 + table[kind === "count" ? "countSE" : "meanSE"][c] ** 2)
    );
  return { count: rmse("count"), mean: rmse("mean") };
}

/** Per cell, a / b. */
export function ratioOf(a: CellValues, b: CellValues): CellValues {
  return {
    count: a.count.map((v, c) => v / b.count[c]),
    mean: a.mean.map((v, c) => v / b.mean[c]),
  };
}

/**
 * Coverage of the population values by a table's 95% intervals, their lengths and CV = SE/q.
 * A combined synthetic table carries its t_ν interval; any other table gets q ± z_{0.975}·SE.
 *
 * @param table The table.
 * @param truth The population values.
 */
export function coverageOf(table: SurveyTable | CombinedTable, truth: CellValues): CoverageEntry {
  const z = studentTQuantile(0.975, Infinity);
  const interval = (kind: Quantity, c: number): [number, number] => {
    if ("countLower" in table) {
      return kind === "count"
        ? [table.countLower[c], table.countUpper[c]]
        : [table.meanLower[c], table.meanUpper[c]];
    }
    const se = kind === "count" ? table.countSE[c] : table.meanSE[c];
    return [table[kind][c] - z * se, table[kind][c] + z * se];
  };
  const of = (f: (kind: Quantity, c: number) => number): CellValues => ({
    count: truth.count.map((_, c) => f("count", c)),
    mean: truth.mean.map((_, c) => f("mean", c)),
  });
  return {
    covered: of((kind, c) => {
      const [lo, hi] = interval(kind, c);
      return lo <= truth[kind][c] && truth[kind][c] <= hi ? 1 : 0;
    }),
    length: of((kind, c) => {
      const [lo, hi] = interval(kind, c);
      return hi - lo;
    }),
    cv: of((kind, c) =>
      (kind === "count" ? table.countSE[c] : table.meanSE[c]) / Math.abs(table[kind][c])
    ),
    error: of((kind, c) => table[kind][c] - truth[kind][c]),
  };
}
