/**
 * The utility report of a synthesis with several variables (issue 15; SPEC §7 and §10): for the
 * data owner, how closely the m synthetic datasets reproduce the confidential data, as
 * JSON-serialisable aggregates (no record of either). Four parts:
 *
 * - per synthesized numeric variable, today's summaries and ECDF measures ({@linkcode utilityOf})
 *   and quantile points of the ECDFs for a plot;
 * - per synthesized categorical variable, the marginal table and its total variation distance
 *   (TVD), and the two-way table of every pair of categorical variables with at least one
 *   synthesized;
 * - the propensity-score mean squared error pMSE and its ratio to its null expectation (Snoke,
 *   Raab, Nowok, Dibben & Slavković 2018, "General and specific utility measures for synthetic
 *   data", JRSS A 181:663);
 * - for utility models `y ~ a + b`, the confidence-interval overlap and standardised coefficient
 *   differences (Karr, Kohnen, Oganian, Reiter & Sanil 2006, "A framework for evaluating the
 *   utility of data altered to protect confidentiality", The American Statistician 60:224), the
 *   synthetic fits combined over m by the partial-synthesis rules (Reiter 2003).
 *
 * @module
 */
import { parseFormula } from "../stats/formula.ts";
import {
  fitLogistic,
  fitOls,
  type GlmFit,
  GlmFitError,
  type LogisticFitOptions,
} from "../stats/glm_fit.ts";
import { mean } from "../stats/mean.ts";
import { sortedQuantile } from "../stats/quantile.ts";
import { normalQuantile, studentTQuantile } from "../stats/student_t.ts";
import { combinePartialSynthesis } from "../stats/partial_synthesis.ts";
import {
  checkVariables,
  type CodedColumn,
  type CodedDataset,
  describeVariable,
  mainEffectsDesign,
  readDataset,
  type ReportInput,
  type ReportVariable,
} from "./_report_columns.ts";
import type { SampleSummary } from "../stats/sample_summary.ts";
import { utilityOf } from "./utility.ts";

export type { ReportInput, ReportVariable } from "./_report_columns.ts";

/** Options of {@linkcode utilityReport}. */
export interface UtilityReportOptions {
  /** Utility models, each `y ~ a + b + …` over synthesized and public variables (default none). */
  readonly models?: readonly string[];
  /** The number of ECDF quantile points per numeric variable (default 200). */
  readonly ecdfPoints?: number;
  /** The confidence level of the utility models' intervals (default 0.95). */
  readonly level?: number;
}

/** One synthetic dataset's summaries of a numeric variable (those of {@linkcode utilityOf}). */
export interface NumericDatasetUtility {
  readonly synthetic: SampleSummary;
  readonly ecdfMax: number;
  readonly ecdfMeanSquared: number;
}

/** A synthesized numeric variable. */
export interface NumericVariableUtility {
  readonly name: string;
  readonly kind: "numeric";
  /** The confidential values' mean, median, 15th and 90th percentiles. */
  readonly confidential: SampleSummary;
  /** Per synthetic dataset. */
  readonly byDataset: readonly NumericDatasetUtility[];
  /** Each measure averaged over the m datasets. */
  readonly mean: NumericDatasetUtility;
  /**
   * Type-7 quantiles at `probabilities` = (k − ½)/K, k = 1..K, of the confidential values and of
   * each synthetic dataset's: an ECDF to plot, not the records (no minimum or maximum).
   */
  readonly ecdf: {
    readonly probabilities: readonly number[];
    readonly confidential: readonly number[];
    readonly synthetic: readonly (readonly number[])[];
  };
}

/** Total variation distances ½Σ|p − p*| of the m synthetic tables from the confidential one. */
export interface TotalVariation {
  readonly byDataset: readonly number[];
  /** Their mean over m. */
  readonly mean: number;
}

/** A synthesized categorical variable's marginal table. */
export interface CategoricalVariableUtility {
  readonly name: string;
  readonly kind: "categorical";
  readonly levels: readonly string[];
  readonly confidential: {
    readonly counts: readonly number[];
    readonly proportions: readonly number[];
  };
  /** Counts and proportions averaged over the m synthetic datasets. */
  readonly synthetic: {
    readonly counts: readonly number[];
    readonly proportions: readonly number[];
  };
  readonly tvd: TotalVariation;
}

/** A synthesized variable's utility. */
export type VariableUtility = NumericVariableUtility | CategoricalVariableUtility;

/** The two-way table of two categorical variables (rows: the first's levels). */
export interface TwoWayUtility {
  readonly variables: readonly [string, string];
  readonly levels: readonly [readonly string[], readonly string[]];
  /** Counts, row-major by the first variable's levels. */
  readonly confidential: readonly (readonly number[])[];
  /** Counts averaged over the m synthetic datasets. */
  readonly synthetic: readonly (readonly number[])[];
  readonly tvd: TotalVariation;
}

/** The propensity-score utility of one synthetic dataset. */
export interface PropensityDatasetUtility {
  /** (1/N)Σ_i (p̂_i − c)² over the N stacked records. */
  readonly pMSE: number;
  /** The null expectation (k − 1)(1 − c)²c/N. */
  readonly expected: number;
  /** S_pMSE = pMSE/expected (about 1 when the propensity model cannot tell the data apart). */
  readonly ratio: number;
  /** The propensity model's estimated parameters, the intercept included. */
  readonly k: number;
  /** n + n*. */
  readonly N: number;
  /** c = n* / N. */
  readonly c: number;
  /** Dummies or columns left out as aliased (e.g. a level absent from both datasets). */
  readonly aliased: readonly string[];
  /** True when the model separated the datasets (p̂ at its limit, some numerically 0 or 1). */
  readonly separated: boolean;
  /**
   * Why the propensity model could not be fitted (IRLS did not converge, e.g. on synthetic values
   * many orders of magnitude from the confidential ones); pMSE and its ratio are then NaN.
   */
  readonly error?: string;
}

/** The propensity-score utility (Snoke et al. 2018). */
export interface PropensityUtility {
  /** The propensity model, R style: `t ~ x1 + region + A + …` (t = 1 for synthetic records). */
  readonly model: string;
  readonly byDataset: readonly PropensityDatasetUtility[];
  /** pMSE and S_pMSE averaged over the m datasets. */
  readonly mean: { readonly pMSE: number; readonly ratio: number };
}

/** One coefficient of a utility model. */
export interface CoefficientUtility {
  /** "(Intercept)", a numeric variable's name, or "name=level" for a treatment dummy. */
  readonly name: string;
  /** The confidential fit: estimate, standard error and interval (OLS: t_{n−p}; logistic: z). */
  readonly confidential: {
    readonly estimate: number;
    readonly se: number;
    readonly lower: number;
    readonly upper: number;
  };
  /**
   * The synthetic fits combined over m: q̄, √T, ν (null when infinite: b = 0 or m = 1), the t
   * interval, b and ū.
   */
  readonly synthetic: {
    readonly estimate: number;
    readonly se: number;
    readonly df: number | null;
    readonly lower: number;
    readonly upper: number;
    readonly between: number;
    readonly within: number;
  };
  /**
   * I = ½[(min(U_o, U_s) − max(L_o, L_s))/(U_o − L_o) + (same)/(U_s − L_s)]: 1 for identical
   * intervals, negative when they are disjoint; null when an interval has zero width.
   */
  readonly overlap: number | null;
  /** |β̄_s − β_o|/SE_o; null when SE_o = 0. */
  readonly standardizedDifference: number | null;
}

/** A utility model's comparison, or why its fits failed. */
export type ModelUtility =
  | {
    readonly formula: string;
    readonly outcome: string;
    readonly family: "gaussian" | "binomial";
    readonly level: number;
    readonly coefficients: readonly CoefficientUtility[];
  }
  | {
    readonly formula: string;
    readonly outcome: string;
    readonly family: "gaussian" | "binomial";
    /** The fit that failed (e.g. a separated logistic fit on synthetic dataset 2). */
    readonly error: string;
  };

/** The utility report. */
export interface UtilityReport {
  /** Confidential records. */
  readonly n: number;
  /** Synthetic datasets. */
  readonly m: number;
  readonly synthesized: readonly ReportVariable[];
  readonly public: readonly ReportVariable[];
  readonly variables: readonly VariableUtility[];
  readonly twoWay: readonly TwoWayUtility[];
  readonly propensity: PropensityUtility;
  readonly models: readonly ModelUtility[];
}

function finiteOrNull(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}

function numericUtility(
  variable: ReportVariable,
  confidential: Float64Array,
  synthetic: readonly Float64Array[],
  points: number,
): NumericVariableUtility {
  const byDataset = synthetic.map((ystar) => {
    const { synthetic, ecdfMax, ecdfMeanSquared } = utilityOf(confidential, ystar);
    return { synthetic, ecdfMax, ecdfMeanSquared };
  });
  const probabilities = Array.from({ length: points }, (_, k) => (k + 0.5) / points);
  const quantiles = (values: Float64Array) => {
    const sorted = Float64Array.from(values).sort();
    return probabilities.map((p) => sortedQuantile(sorted, p));
  };
  const summaryMean = (key: keyof SampleSummary) => mean(byDataset.map((d) => d.synthetic[key]));
  return {
    name: variable.name,
    kind: "numeric",
    confidential: utilityOf(confidential, confidential).confidential,
    byDataset,
    mean: {
      synthetic: {
        mean: summaryMean("mean"),
        median: summaryMean("median"),
        q15: summaryMean("q15"),
        q90: summaryMean("q90"),
      },
      ecdfMax: mean(byDataset.map((d) => d.ecdfMax)),
      ecdfMeanSquared: mean(byDataset.map((d) => d.ecdfMeanSquared)),
    },
    ecdf: {
      probabilities,
      confidential: quantiles(confidential),
      synthetic: synthetic.map(quantiles),
    },
  };
}

function counts(codes: Int32Array, levels: number): number[] {
  const out = new Array<number>(levels).fill(0);
  for (let i = 0; i < codes.length; i++) out[codes[i]]++;
  return out;
}

function tvd(a: readonly number[], b: readonly number[]): number {
  const na = a.reduce((s, v) => s + v, 0);
  const nb = b.reduce((s, v) => s + v, 0);
  let d = 0;
  for (let j = 0; j < a.length; j++) d += Math.abs(a[j] / na - b[j] / nb);
  return d / 2;
}

function averageCounts(tables: readonly number[][]): number[] {
  return tables[0].map((_, j) => mean(tables.map((t) => t[j])));
}

function categoricalUtility(
  variable: Extract<ReportVariable, { kind: "categorical" }>,
  confidential: Int32Array,
  synthetic: readonly Int32Array[],
): CategoricalVariableUtility {
  const L = variable.levels.length;
  const conf = counts(confidential, L);
  const syn = synthetic.map((codes) => counts(codes, L));
  const byDataset = syn.map((table) => tvd(conf, table));
  const synCounts = averageCounts(syn);
  const proportions = (table: readonly number[]) => {
    const total = table.reduce((s, v) => s + v, 0);
    return table.map((v) => v / total);
  };
  return {
    name: variable.name,
    kind: "categorical",
    levels: variable.levels,
    confidential: { counts: conf, proportions: proportions(conf) },
    synthetic: {
      counts: synCounts,
      proportions: averageCounts(syn.map(proportions)),
    },
    tvd: { byDataset, mean: mean(byDataset) },
  };
}

function crossCounts(a: Int32Array, b: Int32Array, la: number, lb: number): number[] {
  const out = new Array<number>(la * lb).fill(0);
  for (let i = 0; i < a.length; i++) out[a[i] * lb + b[i]]++;
  return out;
}

function twoWayUtility(
  a: Extract<ReportVariable, { kind: "categorical" }>,
  b: Extract<ReportVariable, { kind: "categorical" }>,
  confidential: CodedDataset,
  synthetic: readonly CodedDataset[],
): TwoWayUtility {
  const la = a.levels.length;
  const lb = b.levels.length;
  const codes = (data: CodedDataset, name: string) =>
    (data.get(name) as Extract<CodedColumn, { kind: "categorical" }>).codes;
  const conf = crossCounts(codes(confidential, a.name), codes(confidential, b.name), la, lb);
  const syn = synthetic.map((data) =>
    crossCounts(codes(data, a.name), codes(data, b.name), la, lb)
  );
  const byDataset = syn.map((table) => tvd(conf, table));
  const rows = (flat: readonly number[]) =>
    Array.from({ length: la }, (_, r) => flat.slice(r * lb, (r + 1) * lb));
  return {
    variables: [a.name, b.name],
    levels: [a.levels, b.levels],
    confidential: rows(conf),
    synthetic: rows(averageCounts(syn)),
    tvd: { byDataset, mean: mean(byDataset) },
  };
}

/** The R-style right-hand side of a main-effects formula, names in backquotes when needed. */
function formulaTerm(name: string): string {
  return /^[A-Za-z_.][A-Za-z0-9_.]*$/.test(name) ? name : `\`${name}\``;
}

function propensityUtility(
  variables: readonly ReportVariable[],
  confidential: { n: number; data: CodedDataset },
  synthetic: readonly { n: number; data: CodedDataset }[],
): PropensityUtility {
  const options: LogisticFitOptions = { aliased: "drop", separation: "limit" };
  const byDataset = synthetic.map((syn): PropensityDatasetUtility => {
    const design = mainEffectsDesign(variables, [confidential, syn]);
    const N = confidential.n + syn.n;
    const t = new Float64Array(N);
    t.fill(1, confidential.n);
    const c = syn.n / N;
    let fit;
    try {
      fit = fitLogistic(design, t, options);
    } catch (error) {
      if (!(error instanceof GlmFitError && error.reason === "convergence")) throw error;
      return {
        pMSE: NaN,
        expected: NaN,
        ratio: NaN,
        k: design.names.length,
        N,
        c,
        aliased: [],
        separated: false,
        error: error.message,
      };
    }
    let sum = 0;
    for (let i = 0; i < N; i++) sum += (fit.fitted[i] - c) ** 2;
    const pMSE = sum / N;
    const k = fit.rank;
    const expected = (k - 1) * (1 - c) ** 2 * c / N;
    return {
      pMSE,
      expected,
      ratio: pMSE / expected,
      k,
      N,
      c,
      aliased: fit.aliased,
      separated: fit.separated,
    };
  });
  return {
    model: `t ~ ${variables.map((v) => formulaTerm(v.name)).join(" + ") || "1"}`,
    byDataset,
    mean: {
      pMSE: mean(byDataset.map((d) => d.pMSE)),
      ratio: mean(byDataset.map((d) => d.ratio)),
    },
  };
}

function overlapOf(lo: number, uo: number, ls: number, us: number): number | null {
  if (!(uo - lo > 0) || !(us - ls > 0)) return null;
  const inner = Math.min(uo, us) - Math.max(lo, ls);
  return finiteOrNull(0.5 * (inner / (uo - lo) + inner / (us - ls)));
}

function modelUtility(
  formulaText: string,
  known: ReadonlyMap<string, ReportVariable>,
  confidential: { n: number; data: CodedDataset },
  synthetic: readonly { n: number; data: CodedDataset }[],
  level: number,
): ModelUtility {
  const formula = parseFormula(formulaText);
  const lookup = (name: string) => {
    const variable = known.get(name);
    if (variable === undefined) {
      throw new RangeError(
        `Invalid utility model "${formula.text}": unknown column "${name}" (known: ${
          [...known.keys()].join(", ")
        })`,
      );
    }
    return variable;
  };
  const outcome = lookup(formula.outcome);
  const predictors = formula.terms.map(lookup);
  if (outcome.kind === "categorical" && outcome.levels.length !== 2) {
    throw new RangeError(
      `Invalid utility model "${formula.text}": the outcome "${outcome.name}" is categorical with ` +
        `${outcome.levels.length} levels; a utility model needs a numeric or binary outcome`,
    );
  }
  const family = outcome.kind === "numeric" ? "gaussian" : "binomial";
  const fit = (dataset: { n: number; data: CodedDataset }, where: string): GlmFit => {
    const design = mainEffectsDesign(predictors, [dataset]);
    const y = dataset.data.get(outcome.name)!;
    try {
      return y.kind === "numeric"
        ? fitOls(design, y.values)
        : fitLogistic(design, Float64Array.from(y.codes));
    } catch (error) {
      if (error instanceof GlmFitError) {
        throw new GlmFitError(error.reason, `${where}: ${error.message}`);
      }
      throw error;
    }
  };
  const base = { formula: formula.text, outcome: outcome.name, family } as const;
  let original: GlmFit;
  let fits: GlmFit[];
  try {
    original = fit(confidential, "the confidential data");
    fits = synthetic.map((data, l) => fit(data, `synthetic dataset ${l + 1}`));
  } catch (error) {
    if (error instanceof GlmFitError) return { ...base, error: error.message };
    throw error;
  }
  const quantileO = family === "gaussian"
    ? studentTQuantile((1 + level) / 2, original.dfResidual)
    : normalQuantile((1 + level) / 2);
  const coefficients = original.names.map((name, j): CoefficientUtility => {
    const estimate = original.coefficients[j];
    const se = original.standardErrors[j];
    const lower = estimate - quantileO * se;
    const upper = estimate + quantileO * se;
    const q = fits.map((f) => f.coefficients[j]);
    const u = fits.map((f) => f.standardErrors[j] ** 2);
    const c = combinePartialSynthesis(q, u, level);
    return {
      name,
      confidential: { estimate, se, lower, upper },
      synthetic: {
        estimate: c.estimate,
        se: c.se,
        df: finiteOrNull(c.df),
        lower: c.lower,
        upper: c.upper,
        between: c.between,
        within: c.within,
      },
      overlap: overlapOf(lower, upper, c.lower, c.upper),
      standardizedDifference: se > 0 ? Math.abs(c.estimate - estimate) / se : null,
    };
  });
  return { ...base, level, coefficients };
}

/**
 * The utility report of m synthetic datasets against the confidential data.
 *
 * - Numeric variables: {@linkcode utilityOf} per dataset (mean, median, 15th and 90th
 *   percentiles, ECDF max and mean-squared differences), their means over m, and K quantile
 *   points of each ECDF.
 * - Categorical variables: counts and proportions (synthetic: averaged over m) and the TVD
 *   ½Σ_j|p_j − p*_j| per dataset and its mean; the same for the two-way table of every pair of
 *   categorical variables with at least one synthesized (a pair of public variables is the same
 *   in every synthetic dataset).
 * - Propensity (Snoke et al. 2018): per synthetic dataset, the n confidential records (t = 0)
 *   and its n* synthetic records (t = 1) stacked (N = n + n*), a logistic regression of t on an
 *   intercept and the main effects of every public and synthesized variable (categorical:
 *   treatment dummies, the first level the reference), fitted probabilities p̂_i,
 *   pMSE = (1/N)Σ(p̂_i − c)² with c = n* / N, its null expectation (k − 1)(1 − c)²c/N with k the
 *   estimated parameters (aliased dummies left out, as R's NA coefficients), and S_pMSE, their
 *   ratio. A separated propensity fit (a level only one side has) is reported at its limit, with
 *   `separated: true`.
 * - Utility models (Karr et al. 2006): each formula fitted by OLS (numeric outcome) or logistic
 *   regression (binary outcome, 1 = its second level) on the confidential data and on each
 *   synthetic dataset; the synthetic estimates combined by {@linkcode combinePartialSynthesis};
 *   per coefficient the interval overlap and |β̄_s − β_o|/SE_o. A fit that fails (separation, an
 *   aliased dummy) gives the model an `error` instead of coefficients.
 *
 * @param input The confidential data, the synthetic datasets and the variables.
 * @param options Utility models, ECDF points, interval level.
 * @returns The report: numbers and names only (JSON.stringify keeps every value).
 * @throws {RangeError} For a missing column, a value outside a variable's levels, a non-finite
 *   numeric value, or a utility model that does not parse, names an unknown column (the message
 *   quotes the formula and the column) or has a categorical outcome with more than two levels.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { utilityReport } from "./utility_report.ts";
 * const confidential = new Map([["B", ["a", "a", "b", "b"]]]);
 * const synthetic = [new Map([["B", ["a", "b", "b", "b"]]])];
 * const report = utilityReport({
 *   confidential,
 *   synthetic,
 *   synthesized: [{ name: "B", kind: "categorical", levels: ["a", "b"] }],
 *   public: [],
 * });
 * assert.equal(report.variables[0].kind === "categorical" && report.variables[0].tvd.mean, 0.25);
 * ```
 */
export function utilityReport(
  input: ReportInput,
  options: UtilityReportOptions = {},
): UtilityReport {
  const m = input.synthetic.length;
  if (m < 1) throw new RangeError("Invalid synthetic: needs at least one synthetic dataset");
  const points = options.ecdfPoints ?? 200;
  if (!(Number.isInteger(points) && points >= 2)) {
    throw new RangeError(`Invalid ecdfPoints: must be an integer ≥ 2: ecdfPoints=${points}`);
  }
  const level = options.level ?? 0.95;
  if (!(level > 0 && level < 1)) {
    throw new RangeError(`Invalid level: must lie in (0, 1): level=${level}`);
  }
  const publicVariables = input.public.map((v) => describeVariable(v, input.confidential));
  const variables = [...publicVariables, ...input.synthesized];
  checkVariables(variables);
  if (input.synthesized.length === 0) {
    throw new RangeError("Invalid synthesized: needs at least one synthesized variable");
  }
  const known = new Map(variables.map((v) => [v.name, v]));
  // Parse every model before any work, so a bad formula fails fast.
  for (const model of options.models ?? []) {
    const formula = parseFormula(model);
    for (const name of [formula.outcome, ...formula.terms]) {
      if (!known.has(name)) {
        throw new RangeError(
          `Invalid utility model "${formula.text}": unknown column "${name}" (known: ${
            [...known.keys()].join(", ")
          })`,
        );
      }
    }
  }
  const confidential = readDataset(variables, input.confidential, "the confidential data");
  if (confidential.n === 0) throw new RangeError("Invalid confidential: has no records");
  const synthetic = input.synthetic.map((columns, l) => {
    const dataset = readDataset(variables, columns, `synthetic dataset ${l + 1}`);
    if (dataset.n === 0) throw new RangeError(`Invalid synthetic dataset ${l + 1}: has no records`);
    return dataset;
  });

  const numeric = (data: CodedDataset, name: string) =>
    (data.get(name) as Extract<CodedColumn, { kind: "numeric" }>).values;
  const codes = (data: CodedDataset, name: string) =>
    (data.get(name) as Extract<CodedColumn, { kind: "categorical" }>).codes;
  const perVariable = input.synthesized.map((variable): VariableUtility =>
    variable.kind === "numeric"
      ? numericUtility(
        variable,
        numeric(confidential.data, variable.name),
        synthetic.map((s) => numeric(s.data, variable.name)),
        points,
      )
      : categoricalUtility(
        variable,
        codes(confidential.data, variable.name),
        synthetic.map((s) => codes(s.data, variable.name)),
      )
  );

  const categorical = variables.filter((v) => v.kind === "categorical");
  const synthesizedNames = new Set(input.synthesized.map((v) => v.name));
  const twoWay: TwoWayUtility[] = [];
  for (let a = 0; a < categorical.length; a++) {
    for (let b = a + 1; b < categorical.length; b++) {
      if (
        !synthesizedNames.has(categorical[a].name) && !synthesizedNames.has(categorical[b].name)
      ) {
        continue;
      }
      twoWay.push(
        twoWayUtility(
          categorical[a],
          categorical[b],
          confidential.data,
          synthetic.map((s) => s.data),
        ),
      );
    }
  }

  return {
    n: confidential.n,
    m,
    synthesized: input.synthesized,
    public: publicVariables,
    variables: perVariable,
    twoWay,
    propensity: propensityUtility(variables, confidential, synthetic),
    models: (options.models ?? []).map((model) =>
      modelUtility(model, known, confidential, synthetic, level)
    ),
  };
}
