/**
 * Survey tables (SPEC §8; the survey paper's §2.3 and §3.3): weighted counts and mean outcomes
 * for every cell of a two-way classification, both margins and the grand total, with standard
 * errors by Taylor linearisation for a stratified one-stage design sampled with replacement.
 *
 * @module
 */
import type { OutputColumn } from "../data/csv.ts";
import { DataError } from "../data/data_error.ts";
import { type Dataset, getColumn, numericColumn } from "../data/dataset.ts";

/** The label of a margin: the cell over all levels of a grouping column. */
export const MARGIN_LABEL = "all";

/** A categorical column: `codes[i]` indexes `levels`. */
export interface Grouping {
  readonly name: string;
  readonly codes: Int32Array;
  readonly levels: readonly string[];
}

/** The input of {@linkcode surveyTable}: one entry per sampled unit in every array. */
export interface TableInput {
  /** The outcome y_i (finite). */
  readonly y: Float64Array;
  /** The survey weights w_i (finite, ≥ 0; a zero-weight unit stands for no population unit). */
  readonly weight: Float64Array;
  /** The stratum of each unit: 0, 1, … (a stratum of one unit: see {@linkcode surveyTable}). */
  readonly strata: Int32Array;
  /** The two classifications that define the cells. */
  readonly by: readonly [Grouping, Grouping];
}

/**
 * A 27-cell table (in general (A + 1)·(B + 1) rows for A and B levels): row r has the labels
 * `labels[0][r]`, `labels[1][r]` (a level, or {@linkcode MARGIN_LABEL}), the estimated count N̂,
 * the mean μ̂ and their standard errors. Rows run over the first grouping's labels ("all" first,
 * then its levels) and, within each, over the second grouping's labels in the same way, so the
 * first row is the grand total (the order of the paper's Tables 2 and 3).
 */
export interface SurveyTable {
  readonly by: readonly [string, string];
  readonly labels: readonly [readonly string[], readonly string[]];
  readonly count: Float64Array;
  readonly countSE: Float64Array;
  readonly mean: Float64Array;
  readonly meanSE: Float64Array;
  /**
   * `"means"`: the counts are withheld (NaN) and not released (`runTableMethod` with
   * `estimates: "means"`; `formatTable` leaves their columns out). Absent: every column.
   */
  readonly estimates?: "means";
}

/**
 * Estimates the counts and means of every cell of the two-way table with Taylor-linearised
 * standard errors (SPEC §8), as R's `survey` package does for
 * `svydesign(ids = ~1, strata = ~h, weights = ~w)` with `svytotal` and `svymean` on `subset()`
 * domains.
 *
 * For a cell c with indicator 1_c: N̂_c = Σ_i w_i·1_c(i), μ̂_c = Σ_i w_i·y_i·1_c(i) / N̂_c. The
 * linearised variable is z_i = w_i·1_c(i) for the count and z_i = w_i·1_c(i)·(y_i − μ̂_c)/N̂_c
 * for the mean, zero outside the domain (never dropping units or strata), and
 * Var = Σ_h n_h/(n_h − 1)·Σ_{i∈h} (z_i − z̄_h)², z̄_h the mean of z over the n_h units of stratum h
 * (the with-replacement, one-stage stratified estimator of Binder 1996). An empty cell has
 * count 0 with standard error 0, and mean and mean standard error NaN.
 *
 * A unit of weight 0 stands for no population unit: it adds 0 to every count and total (its z
 * is 0) but stays a unit of its stratum, as a domain's outsiders do. A stratum of one unit, whose
 * n_h/(n_h − 1) is undefined, is treated as R's `options(survey.lonely.psu = "adjust")` does:
 * its unit's z is centred at the mean of z over all n units instead of its stratum's, with
 * factor 1 — a fixed, conservative rule, so that no table fails on how many units a stratum
 * holds.
 *
 * @param input Outcome, weights, strata and the two groupings.
 * @returns The table, grand total first.
 *
 * @example One stratum, two units in each of two cells
 * ```ts
 * import assert from "node:assert/strict";
 * import { surveyTable } from "./tables.ts";
 * const table = surveyTable({
 *   y: Float64Array.of(1, 3, 5, 7),
 *   weight: Float64Array.of(2, 2, 2, 2),
 *   strata: Int32Array.of(0, 0, 0, 0),
 *   by: [
 *     { name: "a", codes: Int32Array.of(0, 0, 0, 0), levels: ["x"] },
 *     { name: "b", codes: Int32Array.of(0, 0, 1, 1), levels: ["p", "q"] },
 *   ],
 * });
 * assert.equal(table.count[0], 8);
 * assert.equal(table.mean[0], 4);
 * assert.equal(table.countSE[0], 0);
 * ```
 */
export function surveyTable(input: TableInput): SurveyTable {
  const { y, weight, strata, by } = input;
  const n = y.length;
  for (
    const [name, length] of [
      ["weight", weight.length],
      ["strata", strata.length],
      [`by[0] (${by[0].name})`, by[0].codes.length],
      [`by[1] (${by[1].name})`, by[1].codes.length],
    ] as const
  ) {
    if (length !== n) {
      throw new RangeError(
        `Invalid ${name}: must have one entry per unit: length=${length}, n=${n}`,
      );
    }
  }
  const strataSizes = stratumSizes(strata);
  const H = strataSizes.length;
  for (let i = 0; i < n; i++) {
    if (!(weight[i] >= 0) || !Number.isFinite(weight[i])) {
      throw new RangeError(
        `Invalid weight: must be non-negative and finite: weight[${i}]=${weight[i]}`,
      );
    }
    if (!Number.isFinite(y[i])) throw new RangeError(`Invalid y: must be finite: y[${i}]=${y[i]}`);
  }
  const { rows, labels } = cellLayout(by);
  const R = labels[0].length;
  const count = new Float64Array(R);
  const total = new Float64Array(R);
  for (let i = 0; i < n; i++) {
    for (let k = 4 * i; k < 4 * i + 4; k++) {
      count[rows[k]] += weight[i];
      total[rows[k]] += weight[i] * y[i];
    }
  }
  const mean = total.map((t, r) => t / count[r]);
  // Every unit in each of its rows: the cell j = (row, stratum) and its z for the count and the
  // mean, in unit order.
  const eachZ = (visit: (j: number, zCount: number, zMean: number) => void) => {
    for (let i = 0; i < n; i++) {
      for (let k = 4 * i; k < 4 * i + 4; k++) {
        const r = rows[k];
        visit(r * H + strata[i], weight[i], weight[i] * (y[i] - mean[r]) / count[r]);
      }
    }
  };
  // Per (row, stratum): units in both, and the sums of the count's and the mean's z.
  const inCell = new Float64Array(R * H);
  const sumCount = new Float64Array(R * H);
  const sumMean = new Float64Array(R * H);
  eachZ((j, zCount, zMean) => {
    inCell[j]++;
    sumCount[j] += zCount;
    sumMean[j] += zMean;
  });
  // z̄ per (row, stratum), then Σ over the units in the cell of (z − z̄)².
  const barCount = sumCount.map((s, j) => s / strataSizes[j % H]);
  const barMean = sumMean.map((s, j) => s / strataSizes[j % H]);
  const ssCount = new Float64Array(R * H);
  const ssMean = new Float64Array(R * H);
  eachZ((j, zCount, zMean) => {
    const dc = zCount - barCount[j];
    const dm = zMean - barMean[j];
    ssCount[j] += dc * dc;
    ssMean[j] += dm * dm;
  });
  const countSE = new Float64Array(R);
  const meanSE = new Float64Array(R);
  for (let r = 0; r < R; r++) {
    let varCount = 0;
    let varMean = 0;
    // The means of z over all n units (z = 0 outside the cell), the centre of a lone unit.
    let grandCount = 0;
    let grandMean = 0;
    for (let h = 0; h < H; h++) {
      grandCount += sumCount[r * H + h] / n;
      grandMean += sumMean[r * H + h] / n;
    }
    for (let h = 0; h < H; h++) {
      const nh = strataSizes[h];
      if (nh === 0) continue;
      const j = r * H + h;
      if (nh === 1) {
        // survey.lonely.psu = "adjust": the unit's z (its stratum's sum) about the grand mean.
        varCount += (sumCount[j] - grandCount) ** 2;
        varMean += (sumMean[j] - grandMean) ** 2;
        continue;
      }
      // Units of stratum h outside the cell have z = 0: each adds z̄² to the sum of squares.
      const outside = nh - inCell[j];
      const scale = nh / (nh - 1);
      varCount += scale * (ssCount[j] + outside * barCount[j] * barCount[j]);
      varMean += scale * (ssMean[j] + outside * barMean[j] * barMean[j]);
    }
    countSE[r] = Math.sqrt(varCount);
    meanSE[r] = count[r] > 0 ? Math.sqrt(varMean) : NaN;
  }
  return { by: [by[0].name, by[1].name], labels, count, countSE, mean, meanSE };
}

/** The cells of a two-way table and the four cells each unit belongs to. */
export interface CellLayout {
  /** rows[4i..4i+3]: the rows of unit i: (all, all), (all, b), (a, all), (a, b). */
  readonly rows: Int32Array;
  /** Row labels of the two groupings, grand total first (see {@linkcode SurveyTable}). */
  readonly labels: readonly [readonly string[], readonly string[]];
}

/**
 * The row layout of a two-way table with both margins: (A + 1)·(B + 1) rows, the grand total
 * first, and for every unit the four rows it counts in.
 *
 * @param by The two groupings (codes checked against their levels).
 */
export function cellLayout(by: readonly [Grouping, Grouping]): CellLayout {
  const rowsPerA = by[1].levels.length + 1;
  const a = checkedCodes(by[0]);
  const b = checkedCodes(by[1]);
  const n = a.length;
  const rows = new Int32Array(4 * n);
  for (let i = 0; i < n; i++) {
    const rowA = (a[i] + 1) * rowsPerA;
    rows[4 * i] = 0;
    rows[4 * i + 1] = b[i] + 1;
    rows[4 * i + 2] = rowA;
    rows[4 * i + 3] = rowA + b[i] + 1;
  }
  const labelsA: string[] = [];
  const labelsB: string[] = [];
  for (const levelA of [MARGIN_LABEL, ...by[0].levels]) {
    for (const levelB of [MARGIN_LABEL, ...by[1].levels]) {
      labelsA.push(levelA);
      labelsB.push(levelB);
    }
  }
  return { rows, labels: [labelsA, labelsB] };
}

/** Units per stratum code (0 … max code); throws for a negative or non-integer code. */
function stratumSizes(strata: Int32Array): Int32Array {
  let H = 0;
  for (let i = 0; i < strata.length; i++) {
    if (strata[i] < 0) {
      throw new RangeError(`Invalid strata: codes must be non-negative: strata[${i}]=${strata[i]}`);
    }
    H = Math.max(H, strata[i] + 1);
  }
  const sizes = new Int32Array(H);
  for (let i = 0; i < strata.length; i++) sizes[strata[i]]++;
  return sizes;
}

function checkedCodes(grouping: Grouping): Int32Array {
  const { codes, levels, name } = grouping;
  for (let i = 0; i < codes.length; i++) {
    if (codes[i] < 0 || codes[i] >= levels.length) {
      throw new RangeError(
        `Invalid ${name}: codes must index its ${levels.length} levels: codes[${i}]=${codes[i]}`,
      );
    }
  }
  return codes;
}

/** The columns of a dataset that {@linkcode tableInput} reads. */
export interface TableColumns {
  readonly y: string;
  readonly weight: string;
  readonly strata: string;
  readonly by: readonly [string, string];
  /**
   * Declared levels of grouping columns (a registered dataset's public levels): the cells are
   * their cross product, in this order, whether or not the data has every level.
   */
  readonly levels?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Reads a {@linkcode TableInput} from a dataset, with errors that name the file, row and column
 * ({@linkcode DataError}): a missing column, a non-finite outcome or weight, a negative weight
 * (a zero weight is kept, and a stratum of one unit too: {@linkcode surveyTable}). A grouping or
 * strata column may be
 * categorical (its levels in order of appearance) or numeric (its distinct values, written in
 * shortest round-trip form, in order of appearance).
 *
 * @param data The dataset.
 * @param columns The outcome, weight, strata and the two grouping columns.
 * @returns The input of {@linkcode surveyTable}.
 */
export function tableInput(data: Dataset, columns: TableColumns): TableInput {
  const by: [Grouping, Grouping] = [
    groupingOf(data, columns.by[0], columns.levels?.[columns.by[0]]),
    groupingOf(data, columns.by[1], columns.levels?.[columns.by[1]]),
  ];
  const strata = groupingOf(data, columns.strata);
  const y = numericColumn(data, columns.y);
  const weight = numericColumn(data, columns.weight);
  for (let i = 0; i < weight.length; i++) {
    if (!(weight[i] >= 0)) {
      throw new DataError(
        { file: data.source, row: i + 1, column: columns.weight },
        "survey weights must be non-negative",
      );
    }
  }
  return { y, weight, strata: strata.codes, by };
}

/**
 * A column as a {@linkcode Grouping}: its declared levels when given (a value outside them is
 * a `DataError`), else categorical codes, or numeric values coded in order of appearance.
 */
function groupingOf(data: Dataset, name: string, declared?: readonly string[]): Grouping {
  const column = getColumn(data, name);
  if (declared !== undefined) {
    const index = new Map(declared.map((level, code) => [level, code]));
    const codes = new Int32Array(data.n);
    for (let i = 0; i < data.n; i++) {
      const label = column.kind === "numeric"
        ? String(column.values[i])
        : column.levels[column.codes[i]];
      const code = index.get(label);
      if (code === undefined) {
        throw new DataError(
          { file: data.source, row: i + 1, column: name },
          "the value is not one of the column's declared levels",
        );
      }
      codes[i] = code;
    }
    return { name, codes, levels: declared };
  }
  if (column.kind === "categorical") return { name, codes: column.codes, levels: column.levels };
  const levels: string[] = [];
  const index = new Map<number, number>();
  const codes = new Int32Array(column.values.length);
  column.values.forEach((value, i) => {
    let code = index.get(value);
    if (code === undefined) {
      code = levels.length;
      levels.push(String(value));
      index.set(value, code);
    }
    codes[i] = code;
  });
  return { name, codes, levels };
}

/**
 * The table as output columns: the two grouping columns (labels, "all" for margins), then
 * `count`, `countSE`, `mean`, `meanSE`.
 *
 * @param table The table.
 * @returns Column name → values, in output order.
 */
export function tableColumns(table: SurveyTable): Map<string, OutputColumn> {
  return new Map<string, OutputColumn>([
    [table.by[0], table.labels[0]],
    [table.by[1], table.labels[1]],
    ["count", table.count],
    ["countSE", table.countSE],
    ["mean", table.mean],
    ["meanSE", table.meanSE],
  ]);
}
