/**
 * Builds a model's {@linkcode Design} (outcome and public covariates) from a dataset, checking
 * that the outcome suits the model (SPEC §5) with errors that name the file, row and column.
 *
 * Binary and categorical outcomes are coded 0..L−1 into `outcomeLevels`:
 *
 * - binary: a numeric column of 0 and 1 (levels "0", "1", y the value itself), or a text column
 *   with exactly two levels in order of appearance, the first coded 0 and the second 1;
 * - categorical: a text column with at least two levels in order of appearance (the first is the
 *   multinomial logit's reference level), or a numeric column of integer codes with at most
 *   {@linkcode MAX_INTEGER_LEVELS} distinct values, its levels in numeric order;
 * - either, with levels declared in `DesignColumns.levels`: y codes each cell's position in the
 *   declared list (numbers are matched in their shortest round-trip form, "1" for 1.0), and a cell
 *   outside the list is an error. Declared levels make the coding independent of the data.
 *
 * An empty cell in the outcome is an error naming its row, as are the missing-value markers `NA`
 * and `NaN` in a text outcome unless they are declared levels.
 *
 * @module
 */
import { DataError } from "./data_error.ts";
import { type Dataset, getColumn, numericColumn } from "./dataset.ts";

/** What the outcome column must hold for a model, checked when data are read. */
export type OutcomeKind =
  | "count"
  | "unit-interval"
  | "positive"
  | "real"
  | "non-negative"
  | "binary"
  | "categorical";

/**
 * The most distinct values a numeric column may hold to be read as a categorical outcome's
 * integer codes (a column with more is more likely a count or an amount).
 */
export const MAX_INTEGER_LEVELS = 50;

/** Outcome and public covariates, row-major, with an intercept column first. */
export interface Design {
  /** Number of records n. */
  readonly n: number;
  /** Number of regression coefficients K (intercept included). */
  readonly k: number;
  /** Outcome y, length n. */
  readonly y: Float64Array;
  /** Covariates, n×K row-major; column 0 is all ones. */
  readonly x: Float64Array;
  /**
   * Coefficient names, length K: "intercept" then the covariates' column names (a categorical
   * covariate contributes one dummy per level but the first, named `column=level`).
   */
  readonly coefficientNames: readonly string[];
  /** Survey weights w_i > 0, length n, for the survey models (FBS, FBP); absent otherwise. */
  readonly weight?: Float64Array;
  /**
   * The levels of a binary or categorical outcome, L ≥ 2 of them: y_i ∈ {0, …, L−1} indexes this
   * list (level 0 is the reference). Absent for the other outcome kinds.
   */
  readonly outcomeLevels?: readonly string[];
  /**
   * The coefficient prior of a regression on this design (`src/models/glm_prior.ts`): absent or
   * `paper`, the papers' β_k ~ N(0, σ_k²), σ_k ~ half-t(3, 0, 1); `student-t`, β_k ~
   * Student-t(3, 0, 2.5) as a scale mixture, the default of syntheses. The survey models keep
   * their own priors.
   */
  readonly coefficientPrior?: CoefficientPrior;
}

/** The coefficient priors: the default of syntheses (`student-t`) and the papers' (`paper`). */
export const COEFFICIENT_PRIORS = ["student-t", "paper"] as const;

/** One of {@linkcode COEFFICIENT_PRIORS}. */
export type CoefficientPrior = typeof COEFFICIENT_PRIORS[number];

/** Which columns hold the outcome, the public covariates and (survey models) the weights. */
export interface DesignColumns {
  readonly y: string;
  readonly x?: readonly string[];
  /** A column of positive survey weights, for the survey models. */
  readonly weight?: string;
  /**
   * The declared levels of a binary (exactly two) or categorical (at least two) outcome, in the
   * order that codes them; absent to take them from the data.
   */
  readonly levels?: readonly string[];
  /**
   * The declared levels of text covariates, by column, in the order that codes their dummies
   * (the first is the reference); a text covariate without them takes the data's levels in
   * order of appearance. Numeric covariates enter as they are.
   */
  readonly covariateLevels?: Readonly<Record<string, readonly string[]>>;
}

const OUTCOME_RULES: Record<
  Exclude<OutcomeKind, LevelledKind>,
  { ok: (v: number) => boolean; need: string }
> = {
  count: {
    ok: (v) => v >= 0 && Number.isInteger(v),
    need: "a count model needs a non-negative integer",
  },
  "unit-interval": {
    ok: (v) => v > 0 && v < 1,
    need: "beta regression needs a value strictly inside (0, 1)",
  },
  positive: { ok: (v) => v > 0, need: "a lognormal model needs a strictly positive value" },
  real: { ok: () => true, need: "" },
  "non-negative": { ok: (v) => v >= 0, need: "a hurdle model needs a non-negative value" },
};

/**
 * Extracts the outcome and covariates (with an intercept column first) from `data`.
 *
 * @param data The dataset read from a CSV file.
 * @param columns The outcome column and the covariate columns.
 * @param outcome What the model requires of the outcome.
 * @returns The design; throws {@linkcode DataError} for a missing column, a non-numeric or
 * non-finite cell, or an outcome the model cannot take, and `RangeError` for levels declared for
 * an outcome kind without levels.
 * @example A text binary outcome: levels in order of appearance, the second coded 1
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildDesign, parseCsv } from "./mod.ts";
 * const data = parseCsv("y\nno\nyes\nno\n", "in.csv");
 * const design = buildDesign(data, { y: "y" }, "binary");
 * assert.deepEqual(design.outcomeLevels, ["no", "yes"]);
 * assert.deepEqual(design.y, Float64Array.of(0, 1, 0));
 * ```
 */
export function buildDesign(
  data: Dataset,
  columns: DesignColumns,
  outcome: OutcomeKind,
): Design {
  const covariates = columns.x ?? [];
  if (covariates.includes(columns.y)) {
    throw new DataError(
      { file: data.source, column: columns.y },
      "the outcome cannot also be a covariate",
    );
  }
  let y: Float64Array;
  let outcomeLevels: readonly string[] | undefined;
  if (outcome === "binary" || outcome === "categorical") {
    ({ y, levels: outcomeLevels } = levelledOutcome(data, columns, outcome));
  } else {
    if (columns.levels !== undefined) {
      throw new RangeError(
        `Invalid levels: only a binary or categorical outcome has levels: outcome=${outcome}`,
      );
    }
    y = numericColumn(data, columns.y);
    const rule = OUTCOME_RULES[outcome];
    for (let i = 0; i < y.length; i++) {
      if (!rule.ok(y[i])) {
        throw new DataError({ file: data.source, row: i + 1, column: columns.y }, rule.need);
      }
    }
  }
  const blocks = covariates.map((name) =>
    covariateBlock(data, name, columns.covariateLevels?.[name])
  );
  const k = 1 + blocks.reduce((sum, block) => sum + block.names.length, 0);
  const x = new Float64Array(data.n * k);
  for (let i = 0; i < data.n; i++) x[i * k] = 1;
  let column = 1;
  for (const block of blocks) {
    block.names.forEach((_, j) => {
      for (let i = 0; i < data.n; i++) x[i * k + column] = block.values(i, j);
      column++;
    });
  }
  const weight = columns.weight === undefined ? undefined : positiveWeights(data, columns.weight);
  return {
    n: data.n,
    k,
    y: Float64Array.from(y),
    x,
    coefficientNames: ["intercept", ...blocks.flatMap((block) => block.names)],
    ...(weight === undefined ? {} : { weight }),
    ...(outcomeLevels === undefined ? {} : { outcomeLevels }),
  };
}

/** The outcome kinds whose y codes levels. */
type LevelledKind = "binary" | "categorical";

/** A text cell that marks a missing value (as R and most exports write it). */
const MISSING_MARKER = /^(na|nan)$/i;

/** The problem with a missing outcome cell, or null for a present one. */
function missingProblem(cell: string): string | null {
  if (cell === "") return "empty cell where an outcome level is required";
  if (MISSING_MARKER.test(cell)) {
    return "missing value (NA or NaN) where an outcome level is required";
  }
  return null;
}

/**
 * A binary or categorical outcome's codes and levels (the module doc's rules), with errors that
 * name the file, the column and, for a bad cell, its row (never its value).
 */
function levelledOutcome(
  data: Dataset,
  columns: DesignColumns,
  outcome: LevelledKind,
): { y: Float64Array; levels: readonly string[] } {
  const name = columns.y;
  const column = getColumn(data, name);
  const where = (row?: number) => ({ file: data.source, column: name, row });
  const countOk = (count: number) => outcome === "binary" ? count === 2 : count >= 2;
  const what = outcome === "binary" ? "a binary outcome has two levels" : "a categorical outcome " +
    "needs at least two levels";
  const y = new Float64Array(data.n);
  const cellText = (i: number) =>
    column.kind === "numeric" ? String(column.values[i]) : column.levels[column.codes[i]];

  if (columns.levels !== undefined) {
    const declared = columns.levels;
    if (!countOk(declared.length)) {
      throw new DataError(where(), `${what}: ${declared.length} declared`);
    }
    const index = new Map(declared.map((level, j) => [level, j]));
    if (index.size !== declared.length) {
      throw new DataError(where(), "the declared levels name a level twice");
    }
    for (let i = 0; i < data.n; i++) {
      const cell = cellText(i);
      const code = index.get(cell);
      if (code === undefined) {
        throw new DataError(
          where(i + 1),
          missingProblem(cell) ?? "a value outside the declared levels",
        );
      }
      y[i] = code;
    }
    return { y, levels: [...declared] };
  }

  if (column.kind === "numeric") {
    const values = column.values;
    if (outcome === "binary") {
      for (let i = 0; i < data.n; i++) {
        if (values[i] !== 0 && values[i] !== 1) {
          throw new DataError(
            where(i + 1),
            "a binary outcome in a numeric column must be 0 or 1 (or use two text labels)",
          );
        }
        y[i] = values[i];
      }
      return { y, levels: ["0", "1"] };
    }
    for (let i = 0; i < data.n; i++) {
      if (!Number.isInteger(values[i])) {
        throw new DataError(
          where(i + 1),
          "a categorical outcome in a numeric column needs integer codes (or use text labels)",
        );
      }
    }
    const distinct = [...new Set(values)].sort((a, b) => a - b);
    if (distinct.length > MAX_INTEGER_LEVELS) {
      throw new DataError(
        where(),
        `a categorical outcome in a numeric column has at most ${MAX_INTEGER_LEVELS} integer ` +
          `codes: found ${distinct.length} (use text labels or declare the levels)`,
      );
    }
    if (!countOk(distinct.length)) {
      throw new DataError(where(), `${what}: found ${distinct.length}`);
    }
    const code = new Map(distinct.map((v, j) => [v, j]));
    for (let i = 0; i < data.n; i++) y[i] = code.get(values[i])!;
    return { y, levels: distinct.map(String) };
  }

  const missing = column.levels.map(missingProblem);
  for (let i = 0; i < data.n; i++) {
    const problem = missing[column.codes[i]];
    if (problem !== null) throw new DataError(where(i + 1), problem);
  }
  if (!countOk(column.levels.length)) {
    throw new DataError(where(), `${what}: found ${column.levels.length}`);
  }
  for (let i = 0; i < data.n; i++) y[i] = column.codes[i];
  return { y, levels: [...column.levels] };
}

/** A covariate's columns in X: the values of a numeric column, or treatment dummies. */
interface CovariateBlock {
  readonly names: readonly string[];
  readonly values: (row: number, j: number) => number;
}

/**
 * A numeric covariate enters X as it is; a categorical one (any non-numeric cell) as one 0/1
 * dummy per level except the first (treatment coding), named `column=level`: the declared
 * levels in their order when given (a value outside them is an error naming its row; a declared
 * level absent from the data keeps its dummy, so the design's shape never depends on which
 * levels occur), else the data's levels in order of appearance.
 */
function covariateBlock(
  data: Dataset,
  name: string,
  declared?: readonly string[],
): CovariateBlock {
  const column = getColumn(data, name);
  if (column.kind === "numeric") {
    return { names: [name], values: (i) => column.values[i] };
  }
  const levels = declared ?? column.levels;
  if (levels.length < 2) {
    throw new DataError({ file: data.source, column: name }, "a covariate with one level");
  }
  // position[c]: the declared position of the data's level code c.
  const position = column.levels.map((level) => levels.indexOf(level));
  const outside = column.codes.findIndex((code) => position[code] < 0);
  if (outside >= 0) {
    throw new DataError(
      { file: data.source, row: outside + 1, column: name },
      "a value outside the declared levels",
    );
  }
  return {
    names: levels.slice(1).map((level) => `${name}=${level}`),
    values: (i, j) => position[column.codes[i]] === j + 1 ? 1 : 0,
  };
}

function positiveWeights(data: Dataset, name: string): Float64Array {
  const values = numericColumn(data, name);
  for (let i = 0; i < values.length; i++) {
    if (!(values[i] > 0)) {
      throw new DataError(
        { file: data.source, row: i + 1, column: name },
        "survey weights must be strictly positive",
      );
    }
  }
  return Float64Array.from(values);
}
