/**
 * The variables of the utility and risk reports, read from output columns (numbers or level codes)
 * and turned into regression designs with treatment coding.
 *
 * @module
 */
import type { OutputColumn } from "../data/csv.ts";
import type { DesignMatrix } from "../stats/glm_fit.ts";

/** A variable of the reports: numeric, or categorical with its levels (a binary has two). */
export type ReportVariable =
  | { readonly name: string; readonly kind: "numeric" }
  | { readonly name: string; readonly kind: "categorical"; readonly levels: readonly string[] };

/**
 * The input of the utility and risk reports: the confidential data and the m synthetic datasets,
 * with their variables.
 */
export interface ReportInput {
  /** The confidential columns (at least the synthesized and public variables). */
  readonly confidential: ReadonlyMap<string, OutputColumn>;
  /**
   * The m ≥ 1 synthetic datasets, as `synthesize` returns them: each with the confidential data's
   * n records in order (record i of each is record i's).
   */
  readonly synthetic: readonly ReadonlyMap<string, OutputColumn>[];
  /** The synthesized variables, in visit order, with their kinds and levels. */
  readonly synthesized: readonly ReportVariable[];
  /**
   * The public variables (covariates of the utility models, keys of the risk measures; kept as
   * they are in every synthetic dataset): a name alone is numeric when its confidential column
   * holds only numbers, else categorical with its levels in order of first appearance.
   */
  readonly public: readonly (string | ReportVariable)[];
}

/** A variable's values in one dataset: numbers, or codes into the variable's levels. */
export type CodedColumn =
  | { readonly kind: "numeric"; readonly values: Float64Array }
  | {
    readonly kind: "categorical";
    readonly codes: Int32Array;
    readonly levels: readonly string[];
  };

/** Whether an output column holds only numbers. */
function isNumeric(column: OutputColumn): boolean {
  if (column instanceof Float64Array) return true;
  for (let i = 0; i < column.length; i++) if (typeof column[i] !== "number") return false;
  return true;
}

/**
 * A public variable named but not described: numeric when its confidential column holds only
 * numbers, else categorical with its levels in order of first appearance (as the CSV reader codes
 * them).
 */
export function describeVariable(
  variable: string | ReportVariable,
  confidential: ReadonlyMap<string, OutputColumn>,
): ReportVariable {
  if (typeof variable !== "string") return variable;
  const column = confidential.get(variable);
  if (column === undefined) {
    throw new RangeError(
      `Invalid public variable: the confidential data have no column "${variable}"`,
    );
  }
  if (isNumeric(column)) return { name: variable, kind: "numeric" };
  const levels: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < column.length; i++) {
    const level = String(column[i]);
    if (!seen.has(level)) (seen.add(level), levels.push(level));
  }
  return { name: variable, kind: "categorical", levels };
}

/** Checks the variable list: names unique, levels unique and at least two (categorical). */
export function checkVariables(variables: readonly ReportVariable[]): void {
  const names = new Set<string>();
  for (const variable of variables) {
    if (names.has(variable.name)) {
      throw new RangeError(`Invalid variables: "${variable.name}" is listed twice`);
    }
    names.add(variable.name);
    if (variable.kind === "categorical") {
      if (new Set(variable.levels).size !== variable.levels.length) {
        throw new RangeError(`Invalid variables: "${variable.name}" has a repeated level`);
      }
      if (variable.levels.length < 1) {
        throw new RangeError(`Invalid variables: "${variable.name}" has no levels`);
      }
    }
  }
}

/**
 * Reads a variable from one dataset's columns. Errors name the dataset, the column and the row,
 * never a cell's value.
 *
 * @param variable The variable.
 * @param columns The dataset's columns.
 * @param where "the confidential data", "synthetic dataset 2", … for messages.
 * @param n The number of rows the dataset must have, if known.
 */
export function readVariable(
  variable: ReportVariable,
  columns: ReadonlyMap<string, OutputColumn>,
  where: string,
  n?: number,
): CodedColumn {
  const column = columns.get(variable.name);
  if (column === undefined) {
    throw new RangeError(`Invalid ${where}: no column "${variable.name}"`);
  }
  if (n !== undefined && column.length !== n) {
    throw new RangeError(
      `Invalid ${where}: column "${variable.name}" has ${column.length} rows, expected ${n}`,
    );
  }
  if (variable.kind === "numeric") {
    const values = new Float64Array(column.length);
    for (let i = 0; i < column.length; i++) {
      const v = column[i];
      if (typeof v !== "number" || !Number.isFinite(v)) {
        throw new RangeError(
          `Invalid ${where}: column "${variable.name}" row ${i + 1} is not a finite number`,
        );
      }
      values[i] = v;
    }
    return { kind: "numeric", values };
  }
  const index = new Map(variable.levels.map((level, l) => [level, l]));
  const codes = new Int32Array(column.length);
  for (let i = 0; i < column.length; i++) {
    const code = index.get(String(column[i]));
    if (code === undefined) {
      throw new RangeError(
        `Invalid ${where}: column "${variable.name}" row ${i + 1} is not one of its levels (${
          variable.levels.join(", ")
        })`,
      );
    }
    codes[i] = code;
  }
  return { kind: "categorical", codes, levels: variable.levels };
}

/** The variables of one dataset, read once. */
export type CodedDataset = ReadonlyMap<string, CodedColumn>;

/** Reads the variables of one dataset (all of the same length). */
export function readDataset(
  variables: readonly ReportVariable[],
  columns: ReadonlyMap<string, OutputColumn>,
  where: string,
  n?: number,
): { n: number; data: CodedDataset } {
  const data = new Map<string, CodedColumn>();
  let rows = n;
  for (const variable of variables) {
    const coded = readVariable(variable, columns, where, rows);
    rows = coded.kind === "numeric" ? coded.values.length : coded.codes.length;
    data.set(variable.name, coded);
  }
  return { n: rows ?? 0, data };
}

/** The column name of a treatment dummy: "name=level". */
export function dummyName(name: string, level: string): string {
  return `${name}=${level}`;
}

/**
 * The main-effects design over several datasets stacked in order: an intercept, each numeric
 * variable as it is, each categorical variable as treatment dummies for its levels after the
 * first (named "name=level").
 *
 * @param variables The predictors.
 * @param datasets The datasets' coded variables with their row counts, stacked top to bottom.
 */
export function mainEffectsDesign(
  variables: readonly ReportVariable[],
  datasets: readonly { readonly n: number; readonly data: CodedDataset }[],
): DesignMatrix {
  const names = ["(Intercept)"];
  for (const variable of variables) {
    if (variable.kind === "numeric") names.push(variable.name);
    else for (const level of variable.levels.slice(1)) names.push(dummyName(variable.name, level));
  }
  const starts: number[] = [];
  let rows = 0;
  for (const dataset of datasets) (starts.push(rows), rows += dataset.n);
  // Per dataset and variable: the numeric values, or the codes with the number of levels (0 for a
  // numeric variable), so that a row is read without looking at the union's tag.
  const values = datasets.map((dataset) =>
    variables.map((v) => {
      const column = dataset.data.get(v.name)!;
      return column.kind === "numeric" ? column.values : new Float64Array(0);
    })
  );
  const codes = datasets.map((dataset) =>
    variables.map((v) => {
      const column = dataset.data.get(v.name)!;
      return column.kind === "categorical" ? column.codes : new Int32Array(0);
    })
  );
  const levels = Int32Array.from(
    variables,
    (v) => v.kind === "categorical" ? v.levels.length : 0,
  );
  const V = variables.length;
  return {
    rows,
    names,
    row(i, out) {
      let d = datasets.length - 1;
      while (starts[d] > i) d--;
      const r = i - starts[d];
      const numbers = values[d];
      const coded = codes[d];
      out[0] = 1;
      let j = 1;
      for (let v = 0; v < V; v++) {
        const L = levels[v];
        if (L === 0) out[j++] = numbers[v][r];
        else {
          const code = coded[v][r];
          for (let l = 1; l < L; l++) out[j++] = code === l ? 1 : 0;
        }
      }
    },
  };
}
