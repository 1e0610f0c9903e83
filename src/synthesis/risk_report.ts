/**
 * Identification risk of a synthesis with several variables (issue 15), for the data owner's
 * diagnostics only: the expected match risk and true match rate of an intruder who knows a
 * confidential record's public keys and its synthesized values (Reiter & Mitra 2009, "Estimating
 * risks of identification disclosure in partially synthetic data", J. Privacy and
 * Confidentiality 1:99; Hu, Reiter & Wang 2014, "Disclosure risk evaluation for fully synthetic
 * categorical data", PSD 2014), and the count of replicated uniques. The single-variable
 * `identificationRisk()` of `risk.ts` (relative radius) is the case of no public key and one
 * numeric variable.
 *
 * @module
 */
import { mean } from "../stats/mean.ts";
import {
  checkVariables,
  type CodedColumn,
  type CodedDataset,
  describeVariable,
  readDataset,
  type ReportInput,
  type ReportVariable,
} from "./_report_columns.ts";

export type { ReportInput, ReportVariable } from "./_report_columns.ts";

/** Options of {@linkcode riskReport}. */
export interface RiskReportOptions {
  /**
   * The relative tolerance r of a numeric match: |y*_j − y_i| ≤ r·|y_i| (default 0.1; a
   * confidential 0 matches only 0).
   */
  readonly tolerance?: number;
}

/** The risk measures of one synthetic dataset. */
export interface DatasetRisk {
  /** Σ_i T_i/c_i over the records with c_i > 0: the expected number of correct identifications. */
  readonly expectedMatchRisk: number;
  /** #{i : c_i = 1 and T_i = 1}/n. */
  readonly trueMatchRate: number;
  /** #{i : c_i > 0}: the confidential records with at least one matching synthetic record. */
  readonly matched: number;
  /** Synthetic records equal in every public key and synthesized value to a confidential unique. */
  readonly replicatedUniques: number;
}

/** The identification risk report. */
export interface RiskReport {
  readonly n: number;
  readonly m: number;
  /** The relative tolerance of a numeric match. */
  readonly tolerance: number;
  readonly toleranceMode: "relative";
  /** The public keys the intruder matches on exactly. */
  readonly keys: readonly string[];
  /** The synthesized variables the intruder knows (numeric: within tolerance; else equal). */
  readonly synthesized: readonly string[];
  /** Confidential records unique in all public keys and synthesized values together. */
  readonly confidentialUniques: number;
  readonly byDataset: readonly DatasetRisk[];
  /** Each measure's mean over the m datasets. */
  readonly mean: {
    readonly expectedMatchRisk: number;
    readonly trueMatchRate: number;
    readonly replicatedUniques: number;
  };
}

/** One record's values of the given variables as a string key (codes for categories). */
function keyOf(columns: readonly CodedColumn[], i: number): string {
  const parts = columns.map((c) => c.kind === "numeric" ? c.values[i] : c.codes[i]);
  return JSON.stringify(parts);
}

function pick(data: CodedDataset, variables: readonly ReportVariable[]): CodedColumn[] {
  return variables.map((v) => data.get(v.name)!);
}

function numericOf(data: CodedDataset, variables: readonly ReportVariable[]): Float64Array[] {
  return variables.map((v) =>
    (data.get(v.name) as Extract<CodedColumn, { kind: "numeric" }>).values
  );
}

/** The first index of `order` (sorted by `values`) whose value is ≥ t. */
function lowerBound(order: Int32Array, values: Float64Array, t: number): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[order[mid]] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function datasetRisk(
  exact: readonly ReportVariable[],
  numeric: readonly ReportVariable[],
  confidential: CodedDataset,
  synthetic: CodedDataset,
  n: number,
  tolerance: number,
  uniques: ReadonlySet<string>,
  full: readonly ReportVariable[],
): DatasetRisk {
  const confKeys = pick(confidential, exact);
  const synKeys = pick(synthetic, exact);
  const y = numericOf(confidential, numeric);
  const ystar = numericOf(synthetic, numeric);
  const within = (i: number, j: number) => {
    for (let v = 0; v < y.length; v++) {
      if (!(Math.abs(ystar[v][j] - y[v][i]) <= tolerance * Math.abs(y[v][i]))) return false;
    }
    return true;
  };
  // Synthetic records grouped by their exact keys, each group sorted by the first numeric value.
  const groups = new Map<string, number[]>();
  for (let j = 0; j < n; j++) {
    const key = keyOf(synKeys, j);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [j]);
    else group.push(j);
  }
  const sorted = new Map<string, Int32Array>();
  for (const [key, group] of groups) {
    const order = Int32Array.from(group);
    if (y.length > 0) order.sort((a, b) => ystar[0][a] - ystar[0][b]);
    sorted.set(key, order);
  }
  let expected = 0;
  let unique = 0;
  let matched = 0;
  for (let i = 0; i < n; i++) {
    const key = keyOf(confKeys, i);
    const order = sorted.get(key);
    if (order === undefined) continue;
    let c = 0;
    if (y.length === 0) c = order.length;
    else {
      // The candidates by binary search on the first numeric variable, widened and filtered by
      // the exact test, so that rounding in y ± r·|y| cannot disagree with |y* − y| ≤ r·|y|.
      const r = tolerance * Math.abs(y[0][i]);
      let start = lowerBound(order, ystar[0], y[0][i] - r);
      let end = lowerBound(order, ystar[0], y[0][i] + r);
      while (start > 0 && Math.abs(ystar[0][order[start - 1]] - y[0][i]) <= r) start--;
      while (end < order.length && Math.abs(ystar[0][order[end]] - y[0][i]) <= r) end++;
      for (let a = start; a < end; a++) if (within(i, order[a])) c++;
    }
    if (c === 0) continue;
    matched++;
    const own = keyOf(synKeys, i) === key && within(i, i);
    if (own) {
      expected += 1 / c;
      if (c === 1) unique++;
    }
  }
  const fullColumns = pick(synthetic, full);
  let replicated = 0;
  if (uniques.size > 0) {
    for (let j = 0; j < n; j++) if (uniques.has(keyOf(fullColumns, j))) replicated++;
  }
  return {
    expectedMatchRisk: expected,
    trueMatchRate: unique / n,
    matched,
    replicatedUniques: replicated,
  };
}

/**
 * Identification risk of m synthetic datasets. The intruder knows confidential record i's public
 * keys and synthesized values. Synthetic record j matches record i when every public key and
 * every categorical synthesized value is equal and every numeric synthesized value lies within
 * the relative tolerance, |y*_j − y_i| ≤ r·|y_i|. Per synthetic dataset, with c_i the number of
 * synthetic records matching record i and T_i = 1 when record i's own synthetic record (same
 * index) is among them:
 * - expected match risk = Σ_i T_i/c_i over the records with c_i > 0 (the intruder guesses at
 *   random among the matches);
 * - true match rate = #{i : c_i = 1 and T_i = 1}/n;
 * - replicated uniques = the synthetic records equal in every public key and synthesized value
 *   (numbers exactly) to a confidential record unique in those values.
 * Each is averaged over the m datasets. O(n log n) per dataset when the public keys and
 * categories split the records finely; a group the keys leave large is searched on its first
 * numeric variable and checked on the others.
 *
 * Confidential: this report is for the owner's diagnostics, never the public release.
 *
 * @param input The confidential data, the synthetic datasets and the variables.
 * @param options The relative tolerance.
 * @returns The risk report (numbers and names only).
 * @throws {RangeError} For a missing column, a dataset of another length than the confidential
 *   data, a value outside a variable's levels or a non-finite number.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { riskReport } from "./risk_report.ts";
 * const report = riskReport({
 *   confidential: new Map([["y", Float64Array.of(10, 50)]]),
 *   synthetic: [new Map([["y", Float64Array.of(10.5, 80)]])],
 *   synthesized: [{ name: "y", kind: "numeric" }],
 *   public: [],
 * });
 * assert.equal(report.byDataset[0].expectedMatchRisk, 1);
 * assert.equal(report.byDataset[0].trueMatchRate, 0.5);
 * ```
 */
export function riskReport(input: ReportInput, options: RiskReportOptions = {}): RiskReport {
  const tolerance = options.tolerance ?? 0.1;
  if (!(tolerance >= 0 && Number.isFinite(tolerance))) {
    throw new RangeError(`Invalid tolerance: must be finite and ≥ 0: tolerance=${tolerance}`);
  }
  const m = input.synthetic.length;
  if (m < 1) throw new RangeError("Invalid synthetic: needs at least one synthetic dataset");
  if (input.synthesized.length === 0) {
    throw new RangeError("Invalid synthesized: needs at least one synthesized variable");
  }
  const keys = input.public.map((v) => describeVariable(v, input.confidential));
  const full = [...keys, ...input.synthesized];
  checkVariables(full);
  const confidential = readDataset(full, input.confidential, "the confidential data");
  const n = confidential.n;
  if (n === 0) throw new RangeError("Invalid confidential: has no records");
  const synthetic = input.synthetic.map((columns, l) =>
    readDataset(full, columns, `synthetic dataset ${l + 1}`, n).data
  );
  const exact = [...keys, ...input.synthesized.filter((v) => v.kind === "categorical")];
  const numeric = input.synthesized.filter((v) => v.kind === "numeric");

  const counts = new Map<string, number>();
  const confFull = pick(confidential.data, full);
  for (let i = 0; i < n; i++) {
    const key = keyOf(confFull, i);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const uniques = new Set<string>();
  for (const [key, count] of counts) if (count === 1) uniques.add(key);

  const byDataset = synthetic.map((data) =>
    datasetRisk(exact, numeric, confidential.data, data, n, tolerance, uniques, full)
  );
  const meanOf = (key: keyof DatasetRisk) => mean(byDataset.map((d) => d[key]));
  return {
    n,
    m,
    tolerance,
    toleranceMode: "relative",
    keys: keys.map((v) => v.name),
    synthesized: input.synthesized.map((v) => v.name),
    confidentialUniques: uniques.size,
    byDataset,
    mean: {
      expectedMatchRisk: meanOf("expectedMatchRisk"),
      trueMatchRate: meanOf("trueMatchRate"),
      replicatedUniques: meanOf("replicatedUniques"),
    },
  };
}
