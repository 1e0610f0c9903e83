/**
 * The release policy of a registered dataset: what its data owner declared public, once, at
 * registration (SPEC §11). Every path that works on a registered dataset goes through this
 * module: the HTTP functions check a request against the policy before anything is accepted
 * ({@linkcode checkSynthesis}, {@linkcode checkTable}), and the jobs (worker pool and Redis
 * workers alike) and the synchronous tables read the data through {@linkcode policyData}.
 *
 * - Public columns: their values are released as they are (covariates `x`, table `by` columns,
 *   `strata`); every other column is confidential and may only be synthesized (`y`, `weight`).
 * - Levels: the public levels of each public column (declared, or the data's own, which are
 *   public since the column is); a table's cells are their cross product, so a cell's presence
 *   says nothing about the data.
 * - Bounds: public ranges of columns; values outside are clamped (counted for the owner), never
 *   an error. The perturbed histogram takes its bounds from here.
 * - Stratum sizes: the public population size of every level of a public stratum column (FBP).
 * - Randomness: no request on a registered dataset chooses a seed; releases draw theirs from the
 *   operating system's CSPRNG and use the secure samplers.
 * - Size: registering declares n public (a release of n synthetic records shows it).
 * - Survey design: the file's weight, strata and PSU columns (`surveyDesign`) stay confidential
 *   unless the owner also declares `discloseDesign: true`: they predict confidential variables
 *   (in NHANES, age group and gender predict race on 47 % of held-out records, 72 % adding the
 *   exam weight's ventile, 77 % adding stratum and PSU; `docs/studies/frontier.md`).
 *
 * @module
 */
import { z } from "zod";
import { DataError } from "../data/data_error.ts";
import type { Dataset } from "../data/dataset.ts";
import { getColumn } from "../data/dataset.ts";
import { encodeFile } from "../data/file_encoding.ts";
import { type FileSchema, parseFileSchema } from "../data/file_schema.ts";
import { type Guarantee, NEIGHBOURS } from "../mechanisms/privacy.ts";
import { MECHANISMS } from "../mechanisms/registry.ts";
import { modelRequirements } from "../models/mod.ts";
import { parseFormula } from "../stats/formula.ts";
import { missingStratumSizes } from "../survey/table_methods.ts";
import type { FileSynthesisSpec } from "../synthesis/file_spec.ts";
import { type SynthesisPlan, synthesisPlan } from "../synthesis/plan.ts";
import type { SynthesisSpec } from "../synthesis/spec.ts";
import { PolicyError } from "./domain_errors.ts";
import type { TableSpec } from "./table_request.ts";

/** Public columns with more distinct values than this get no levels (they cannot be a `by`). */
export const MAX_PUBLIC_LEVELS = 1000;

/** The smallest ε of one request when the owner declares none (`minEpsilon`). */
export const DEFAULT_MIN_EPSILON = 0.01;

const Column = z.string().min(1).max(200);
const finite = z.number().finite();

/** What the data owner declares at registration (every field optional). */
export const PolicyDeclaration = z.object({
  /** Columns whose values are public; every other column is confidential. */
  publicColumns: z.array(Column).max(10_000).default([]),
  /** Public bounds [lo, hi] of columns (clamping; the perturbed histogram's range). */
  bounds: z.record(Column, z.tuple([finite, finite])).default({}),
  /** Public population size of every level of a public stratum column. */
  stratumSizes: z.record(Column, z.record(z.string().max(200), finite.positive())).default({}),
  /**
   * Public levels of public columns (default: the data's distinct values), and the public level
   * set of a confidential categorical or binary outcome (declared only; its values stay
   * confidential, but a synthesis releases values from this set).
   */
  levels: z.record(Column, z.array(z.string().max(200)).min(1).max(MAX_PUBLIC_LEVELS)).default({}),
  /** The smallest ε one request may ask for (each request's outcome, failures included, is
   * released at its ε, so a tiny ε would make every bit of it almost free). */
  minEpsilon: finite.positive().max(1e6).default(DEFAULT_MIN_EPSILON),
  /**
   * The weakest guarantee a release may carry: "DP" allows only mechanisms with a formal
   * ε-DP guarantee (censored, censored-w, histogram, laplace tables with declared bounds);
   * "aDP" also the pseudo posterior ones, whose ε is asymptotic (SPEC §1).
   */
  guarantee: z.enum(["DP", "aDP"]).default("aDP"),
  /**
   * The file's survey design columns: its weight, its strata and its primary sampling units
   * (each a column of the dataset, no column twice). They are confidential like any other
   * column; naming one in `publicColumns` also needs `discloseDesign`.
   */
  surveyDesign: z.object({
    weight: Column.optional(),
    strata: Column.optional(),
    psu: Column.optional(),
  }).strict().default({}),
  /**
   * The owner's acknowledgment that the design columns named in `publicColumns` are released as
   * they are, knowing that weights, strata and PSUs can predict confidential variables.
   */
  discloseDesign: z.boolean().default(false),
  /**
   * Whether an analyst may run the `unweighted` mechanism: its ε = 2·Δ_x·m has no floor, so a
   * request at any cap succeeds or fails on whether the data's Δ_x fits it (one bit of Δ per
   * request, `mechanisms/privacy.ts`). Off unless the owner allows it.
   */
  allowUnweighted: z.boolean().default(false),
  /**
   * The declared schema of the whole file (issue 35, `src/data/file_schema.ts`): every column's
   * kind, public levels or bounds, N/A marker and rules. Declared, a request may synthesise the
   * whole file (`y: "all"`) under it, and only under it. Checked by `parseFileSchema`.
   */
  fileSchema: z.unknown().optional(),
});

/** A declaration as given. */
export type PolicyDeclaration = z.input<typeof PolicyDeclaration>;

/** The roles of a survey file's design columns, in the order they are checked. */
export const DESIGN_ROLES = ["weight", "strata", "psu"] as const;

/** A survey file's design columns, by role (each optional). */
export type SurveyDesign = { readonly [role in (typeof DESIGN_ROLES)[number]]?: string };

/** A registered dataset's release policy (public: it is what the owner declared). */
export interface DatasetPolicy {
  readonly publicColumns: readonly string[];
  readonly bounds: Readonly<Record<string, readonly [number, number]>>;
  readonly stratumSizes: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly levels: Readonly<Record<string, readonly string[]>>;
  /** The smallest ε of one request (absent in policies stored before it existed: the default). */
  readonly minEpsilon?: number;
  /** The weakest guarantee allowed (absent in older policies: "aDP"). */
  readonly guarantee?: Guarantee;
  /** The file's declared design columns (absent in older policies: none declared). */
  readonly surveyDesign?: SurveyDesign;
  /**
   * Whether a declared design column is public, which the owner acknowledged with
   * `discloseDesign: true` (absent in older policies: false).
   */
  readonly designDisclosed?: boolean;
  /** Whether `unweighted` may run (absent in older policies: false). */
  readonly allowUnweighted?: boolean;
  /** The declared schema of the whole file (absent: no whole-file release). */
  readonly fileSchema?: FileSchema;
  readonly sizePublic: true;
  readonly neighbours: typeof NEIGHBOURS;
}

function invalid(message: string, field: string): PolicyError {
  return new PolicyError(400, "invalid_policy", message, field);
}

/**
 * A policy's survey design as later code reads it: a policy stored before the fields existed
 * declared no design and disclosed none.
 *
 * @param policy The dataset's policy.
 * @returns The declared design columns (copied) and whether any of them is public.
 */
export function surveyDesignOf(
  policy: DatasetPolicy,
): { surveyDesign: SurveyDesign; designDisclosed: boolean } {
  return {
    surveyDesign: { ...policy.surveyDesign },
    designDisclosed: policy.designDisclosed ?? false,
  };
}

/**
 * Checks the declared design columns against the data and the public columns: each must be a
 * column, none named twice, and one that is also public needs the owner's `discloseDesign`.
 *
 * @returns The design (declared roles only) and whether a design column is public.
 */
function checkDesign(
  declared: SurveyDesign,
  disclose: boolean,
  publicColumns: readonly string[],
  isColumn: (name: string) => boolean,
): { surveyDesign: SurveyDesign; designDisclosed: boolean } {
  const surveyDesign: { -readonly [role in keyof SurveyDesign]: string } = {};
  const seen: string[] = [];
  for (const role of DESIGN_ROLES) {
    const name = declared[role];
    if (name === undefined) continue;
    if (!isColumn(name)) {
      throw invalid(`the dataset has no column "${name}"`, `surveyDesign.${role}`);
    }
    if (seen.includes(name)) {
      throw invalid(`"${name}" is named twice`, `surveyDesign.${role}`);
    }
    seen.push(name);
    surveyDesign[role] = name;
  }
  const k = publicColumns.findIndex((name) => seen.includes(name));
  if (k >= 0 && !disclose) {
    const role = DESIGN_ROLES.find((r) => surveyDesign[r] === publicColumns[k]);
    throw invalid(
      `"${publicColumns[k]}" is a survey design column (surveyDesign.${role}): weights, strata ` +
        "and PSUs can predict confidential variables (in NHANES, age group and gender predict " +
        "race on 47 % of held-out records, 72 % adding the exam weight's ventile, 77 % adding " +
        "stratum and PSU); declaring it public needs discloseDesign: true",
      `publicColumns.${k}`,
    );
  }
  return { surveyDesign, designDisclosed: k >= 0 };
}

/**
 * A column's distinct values as table labels: numbers in numeric order, written as tables write
 * them (shortest round-trip form); text in code-point order (a categorical column's levels are
 * exactly the values present).
 */
function sortedLevels(data: Dataset, name: string): string[] {
  const column = getColumn(data, name);
  if (column.kind === "numeric") {
    return [...new Set(column.values)].sort((a, b) => a - b).map(String);
  }
  return [...column.levels].sort();
}

/**
 * Builds the policy of a dataset being registered, checking the declaration against the data
 * (the owner's request: errors name the field, and may name the owner's own levels).
 *
 * @param declaration What the owner declared.
 * @param data The dataset being registered.
 * @returns The policy; throws a `PolicyError` (400 "invalid_policy") naming the field.
 */
export function createPolicy(declaration: PolicyDeclaration, data: Dataset): DatasetPolicy {
  const parsed = PolicyDeclaration.parse(declaration);
  const { publicColumns } = parsed;
  const isColumn = (name: string) => data.names.includes(name);
  publicColumns.forEach((name, k) => {
    if (!isColumn(name)) throw invalid(`the dataset has no column "${name}"`, `publicColumns.${k}`);
    if (publicColumns.indexOf(name) !== k) {
      throw invalid(`"${name}" is named twice`, `publicColumns.${k}`);
    }
  });
  const design = checkDesign(parsed.surveyDesign, parsed.discloseDesign, publicColumns, isColumn);
  const isPublic = (name: string) => publicColumns.includes(name);
  for (const [name, [lo, hi]] of Object.entries(parsed.bounds)) {
    if (!isColumn(name)) throw invalid(`the dataset has no column "${name}"`, `bounds.${name}`);
    if (getColumn(data, name).kind !== "numeric") {
      throw invalid("bounds need a numeric column", `bounds.${name}`);
    }
    if (!(lo < hi)) throw invalid("the lower bound must be below the upper", `bounds.${name}`);
  }
  const levels: Record<string, string[]> = {};
  for (const [name, declared] of Object.entries(parsed.levels)) {
    if (!isColumn(name)) throw invalid(`the dataset has no column "${name}"`, `levels.${name}`);
    if (isPublic(name)) continue;
    // A confidential column's level set: declared, never read off the data (a rare level's
    // presence would tell of a record); the data must keep to it.
    const missing = sortedLevels(data, name).find((level) => !declared.includes(level));
    if (missing !== undefined) {
      throw invalid(`the data has the level "${missing}", which is not declared`, `levels.${name}`);
    }
    levels[name] = [...new Set(declared)];
  }
  for (const name of publicColumns) {
    const declared = parsed.levels[name];
    const present = sortedLevels(data, name);
    if (declared !== undefined) {
      const missing = present.find((level) => !declared.includes(level));
      if (missing !== undefined) {
        throw invalid(
          `the data has the level "${missing}", which is not declared`,
          `levels.${name}`,
        );
      }
      levels[name] = [...new Set(declared)];
    } else if (present.length <= MAX_PUBLIC_LEVELS) {
      levels[name] = present;
    }
  }
  for (const [name, sizes] of Object.entries(parsed.stratumSizes)) {
    if (!isPublic(name)) {
      throw invalid("stratum sizes need a public stratum column", `stratumSizes.${name}`);
    }
    const missing = (levels[name] ?? sortedLevels(data, name)).find((level) => !(level in sizes));
    if (missing !== undefined) {
      throw invalid(`no size for the stratum "${missing}"`, `stratumSizes.${name}`);
    }
  }
  const fileSchema = parsed.fileSchema === undefined
    ? undefined
    : declaredFileSchema(parsed.fileSchema, data);
  return {
    publicColumns: [...publicColumns],
    bounds: parsed.bounds,
    stratumSizes: parsed.stratumSizes,
    levels,
    minEpsilon: parsed.minEpsilon,
    guarantee: parsed.guarantee,
    surveyDesign: design.surveyDesign,
    designDisclosed: design.designDisclosed,
    allowUnweighted: parsed.allowUnweighted,
    ...(fileSchema === undefined ? {} : { fileSchema }),
    sizePublic: true,
    neighbours: NEIGHBOURS,
  };
}

/**
 * Refuses a file schema whose columns are not exactly the data's: a declared column the data
 * lack, or a column of the data left undeclared (400, `code`, naming the column and `field`).
 *
 * @param schema The parsed schema.
 * @param columns The data's columns.
 * @param code The error's code (`invalid_policy` at registration, `invalid_data` inline).
 * @param field The request field of the schema.
 */
export function requireSchemaColumns(
  schema: FileSchema,
  columns: readonly string[],
  code: string,
  field: string,
): void {
  schema.columns.forEach(({ name }, k) => {
    if (!columns.includes(name)) {
      throw new PolicyError(
        400,
        code,
        `the schema declares the column "${name}", which the data do not have`,
        `${field}.columns.${k}`,
      );
    }
  });
  const declared = new Set(schema.columns.map(({ name }) => name));
  const missing = columns.find((name) => !declared.has(name));
  if (missing !== undefined) {
    throw new PolicyError(
      400,
      code,
      `the data's column "${missing}" is not declared by the schema (a whole file declares ` +
        "every column)",
      `${field}.columns`,
    );
  }
}

/**
 * The owner's declared file schema, checked at registration: it parses (`parseFileSchema`,
 * naming the column and field at fault), declares exactly the data's columns, reads no level or
 * bound off the data (`"source": "data"`: the release's shape would depend on confidential
 * facts), and the data keep to it (`encodeFile`, naming column and row: the owner's own data), so
 * a whole-file job never fails on its encoding.
 */
function declaredFileSchema(json: unknown, data: Dataset): FileSchema {
  let schema: FileSchema;
  try {
    schema = parseFileSchema(json, "fileSchema");
  } catch (error) {
    if (error instanceof DataError) throw invalid(error.message, "fileSchema");
    throw error;
  }
  requireSchemaColumns(schema, data.names, "invalid_policy", "fileSchema");
  const drafted = schema.columns.findIndex(({ source }) => source === "data");
  if (drafted >= 0) {
    throw invalid(
      `column "${schema.columns[drafted].name}": its levels or bounds were read from the ` +
        'confidential data ("source": "data"); declare public ones before registering',
      `fileSchema.columns.${drafted}.source`,
    );
  }
  try {
    encodeFile(data, schema);
  } catch (error) {
    if (error instanceof DataError) throw invalid(error.message, "fileSchema");
    throw error;
  }
  return schema;
}

/**
 * Refuses a request that names a column the registered dataset does not have (400
 * "invalid_data"; column names are public: they are in the dataset's description).
 *
 * @param columns The dataset's columns.
 * @param named (request field, column) pairs; undefined columns are skipped.
 */
export function requireColumns(
  columns: readonly string[],
  named: readonly (readonly [string, string | undefined])[],
): void {
  for (const [field, column] of named) {
    if (column !== undefined && !columns.includes(column)) {
      throw new PolicyError(400, "invalid_data", `the dataset has no column "${column}"`, field);
    }
  }
}

function refuse(code: string, message: string, field: string): PolicyError {
  return new PolicyError(422, code, message, field);
}

/** Refuses a confidential column named as public. */
function requirePublic(policy: DatasetPolicy, name: string, field: string): void {
  if (!policy.publicColumns.includes(name)) {
    throw refuse(
      "confidential_column",
      "this column is confidential under the dataset's release policy, so it cannot be " +
        "released as it is",
      field,
    );
  }
}

/**
 * What every request on a registered dataset must satisfy: no seed, a cap on ε of at least the
 * policy's minimum, and a guarantee the policy allows.
 */
function checkCommon(
  policy: DatasetPolicy,
  request: { seed?: number; epsilon?: number },
  needsEpsilon: boolean,
  guarantee: Guarantee | null,
): void {
  if (request.seed !== undefined) {
    throw refuse(
      "seed_not_allowed",
      "releases of a registered dataset draw their randomness from the operating system's " +
        "CSPRNG; a seed cannot be chosen",
      "seed",
    );
  }
  if (needsEpsilon && request.epsilon === undefined) {
    throw refuse(
      "epsilon_required",
      "work on a registered dataset is charged its epsilon when accepted: give epsilon",
      "epsilon",
    );
  }
  const minEpsilon = policy.minEpsilon ?? DEFAULT_MIN_EPSILON;
  if (request.epsilon !== undefined && !(request.epsilon >= minEpsilon)) {
    throw refuse(
      "epsilon_too_small",
      `the dataset's release policy sets the smallest epsilon of a request to ${minEpsilon}`,
      "epsilon",
    );
  }
  if (guarantee === "aDP" && (policy.guarantee ?? "aDP") === "DP") {
    throw refuse(
      "guarantee_not_allowed",
      "the dataset's release policy allows only releases with a formal DP guarantee " +
        '(guarantee "DP"): censored, censored-w, histogram, or a laplace table',
      "mechanism",
    );
  }
}

/** Refuses a request field that the policy sets. */
function setByPolicy(given: unknown, field: string): void {
  if (given !== undefined) {
    throw refuse("set_by_policy", "the dataset's release policy sets this field", field);
  }
}

/**
 * Refuses a model that takes log v of a column (lognormal, fbs and fbp, a synthesised weight)
 * unless the owner declared the column's bounds [lo, hi] with lo > 0: the data are clamped to
 * them (`policyData`), so no record can hold a value ≤ 0 or a text cell, and the answer depends
 * on the policy alone (422 `bounds_required`, before anything is charged).
 */
function requirePositiveBounds(
  policy: DatasetPolicy,
  column: string,
  field: string,
  model: string,
): void {
  const bounds = policy.bounds[column];
  if (bounds === undefined || !(bounds[0] > 0)) {
    throw refuse(
      "bounds_required",
      `the ${model} model takes the logarithm of "${column}": declare its bounds at ` +
        "registration with a positive lower bound (values are clamped to them; log 0 is " +
        "undefined)",
      field,
    );
  }
}

/**
 * Refuses utility models that cannot run whatever the data: a formula that does not parse, or
 * that names a column neither synthesised nor a covariate of the request (422
 * `invalid_utility_model`, before anything is charged).
 */
function checkUtilityModels(plan: SynthesisPlan): void {
  const known = new Set([...plan.covariates, ...plan.outcomes.map(({ y }) => y)]);
  plan.spec.utilityModels?.forEach((text, k) => {
    let message: string | null = null;
    try {
      const formula = parseFormula(text);
      const unknown = [formula.outcome, ...formula.terms].find((name) => !known.has(name));
      if (unknown !== undefined) {
        message = `the utility model names "${unknown}", which is neither an outcome nor in x`;
      }
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      message = error.message;
    }
    if (message !== null) throw refuse("invalid_utility_model", message, `utilityModels.${k}`);
  });
}

/**
 * The guarantees a policy lets `mechanism: "auto"` choose from (`synthesisPlan`).
 *
 * @param policy The dataset's policy.
 * @returns ["DP"] where the owner allows only DP, else both.
 */
export function policyGuarantees(policy: DatasetPolicy): Guarantee[] {
  return (policy.guarantee ?? "aDP") === "DP" ? ["DP"] : ["DP", "aDP"];
}

/**
 * Checks a synthesis request against the policy and returns the spec to run: stratum sizes
 * and histogram bounds taken from the policy, no seed.
 *
 * @param policy The dataset's policy.
 * @param plan The request's plan, "auto" resolved under {@linkcode policyGuarantees}.
 * @returns The spec the job runs; throws a `PolicyError` (422) naming the request field.
 */
export function checkSynthesis(policy: DatasetPolicy, plan: SynthesisPlan): SynthesisSpec {
  if (plan.requested.autoReason !== undefined) {
    throw refuse(
      "set_by_service",
      'autoReason is set by mechanism "auto", not a request',
      "autoReason",
    );
  }
  const { spec } = plan;
  // What the mechanism carries and accepts, known before it runs (`mechanisms/registry.ts`).
  const mechanism = MECHANISMS[spec.mechanism];
  checkCommon(policy, spec, true, mechanism.privacy.guarantee);
  spec.x.forEach((name, k) => requirePublic(policy, name, `x.${k}`));
  if (spec.strata !== undefined) requirePublic(policy, spec.strata, "strata");
  setByPolicy(spec.stratumSizes, "stratumSizes");
  setByPolicy(spec.lower, "lower");
  setByPolicy(spec.upper, "upper");
  setByPolicy(spec.levels, "levels");
  refuseFlagged(spec.allowFlagged);
  if (spec.missing === "drop") {
    // Dropping the records that miss a confidential value would show which they are (n and
    // the public columns in file order): refused, whatever the columns.
    throw refuse(
      "missing_drop_not_allowed",
      'on a registered dataset records are never dropped: "missing" must be "error" ' +
        "(a missing value fails the job, which stays charged)",
      "missing",
    );
  }
  const run: SynthesisSpec = { ...spec };
  // Every text column is coded over its declared levels: the outcomes' (required) and the
  // public covariates' (declared, or the public column's own).
  const levels: Record<string, string[]> = {};
  for (const name of spec.x) {
    if (policy.levels[name] !== undefined) levels[name] = [...policy.levels[name]];
  }
  let levelledOutcomes = 0;
  for (const { y, model, kind, field } of plan.outcomes) {
    if (kind !== "binary" && kind !== "categorical") continue;
    const declared = policy.levels[y];
    if (declared === undefined || policy.publicColumns.includes(y)) {
      throw refuse(
        "levels_required",
        `the ${model} model releases levels of its outcome: declare the outcome's level set ` +
          "(levels) at registration",
        field,
      );
    }
    const count = new Set(declared).size;
    if (kind === "binary" ? count !== 2 : count < 2) {
      throw refuse(
        "invalid_levels",
        `the ${model} model's outcome has ${
          kind === "binary" ? "two levels" : "at least two levels"
        }: ${count} declared`,
        field,
      );
    }
    levels[y] = [...declared];
    levelledOutcomes++;
  }
  for (const { y, model, kind, field } of plan.outcomes) {
    if (kind === "positive") requirePositiveBounds(policy, y, field, model);
  }
  if (plan.survey !== null) {
    requirePositiveBounds(policy, plan.survey.weight, "weight", plan.manifest.model);
  }
  checkUtilityModels(plan);
  requireUnweightedAllowed(policy, spec.mechanism);
  if (Object.keys(levels).length > 0) run.levels = levels;
  if (spec.strata !== undefined && policy.stratumSizes[spec.strata] !== undefined) {
    run.stratumSizes = { ...policy.stratumSizes[spec.strata] };
  } else if (!plan.joint && modelRequirements(plan.outcomes[0].model).stratumSizes) {
    throw refuse(
      "stratum_sizes_required",
      `the ${plan.manifest.model} model needs the public size of every stratum, declared at ` +
        "registration",
      "strata",
    );
  }
  if (mechanism.accepts.bounds && levelledOutcomes === 0) {
    const bounds = plan.joint ? undefined : policy.bounds[plan.outcomes[0].y];
    if (bounds === undefined) {
      throw refuse(
        "bounds_required",
        "the perturbed histogram needs public bounds of the outcome, declared at registration",
        "y",
      );
    }
    [run.lower, run.upper] = bounds;
  }
  return run;
}

/**
 * Checks a whole-file request (`y: "all"`, issue 35) against the policy, before any data are
 * read: the policy must declare a file schema (422 `file_schema_required`), which the request
 * cannot set (422 `set_by_policy`); no seed, ε given and at least `minEpsilon`, a mechanism whose
 * guarantee the policy allows (the request's plan's: `auto` resolved by `synthesisPlan`),
 * `unweighted` only where allowed, no `allowFlagged`. Every refusal reads the policy and the
 * request only.
 *
 * @param policy The dataset's policy.
 * @param spec The validated whole-file request.
 * @param requestSchema The request's own `fileSchema`, if it gave one.
 * @returns The request to run (its schema is the policy's).
 */
export function checkFileSynthesis(
  policy: DatasetPolicy,
  spec: FileSynthesisSpec,
  requestSchema: unknown,
): FileSynthesisSpec {
  setByPolicy(requestSchema, "fileSchema");
  if (policy.fileSchema === undefined) {
    throw refuse(
      "file_schema_required",
      'a whole-file release (y: "all") needs the file schema declared in the dataset\'s ' +
        "release policy at registration (fileSchema)",
      "y",
    );
  }
  const { mechanism } = synthesisPlan(spec);
  spec.x?.forEach((name, k) => requirePublic(policy, name, `x.${k}`));
  checkCommon(policy, spec, true, MECHANISMS[mechanism].privacy.guarantee);
  refuseFlagged(spec.allowFlagged);
  requireUnweightedAllowed(policy, mechanism);
  return { ...spec };
}

/**
 * Checks a table request against the policy and returns the spec to run (stratum sizes from
 * the policy, no seed). A `laplace` table needs the owner's declared bounds of its `y` and
 * `weight` columns (422 `bounds_required`, naming the field; a negative lower weight bound is
 * 422 `invalid_bounds`): its noise is scaled to them (the bounded, ε-DP mode), never to the
 * data. The request cannot set bounds itself (422 `set_by_policy`).
 *
 * @param policy The dataset's policy.
 * @param spec The validated request.
 * @returns The spec to run; throws a `PolicyError` (422) naming the request field.
 */
export function checkTable(policy: DatasetPolicy, spec: TableSpec): TableSpec {
  checkCommon(
    policy,
    spec,
    spec.method !== "sample",
    spec.method === "fbs" || spec.method === "fbp" ? "aDP" : null,
  );
  spec.by.forEach((name, k) => {
    requirePublic(policy, name, `by.${k}`);
    if (policy.levels[name] === undefined) {
      throw refuse(
        "no_public_levels",
        `the column has more than ${MAX_PUBLIC_LEVELS} values and no declared levels`,
        `by.${k}`,
      );
    }
  });
  requirePublic(policy, spec.strata, "strata");
  setByPolicy(spec.stratumSizes, "stratumSizes");
  setByPolicy(spec.bounds, "bounds");
  if (spec.method === "laplace") {
    for (const [field, column] of [["y", spec.y], ["weight", spec.weight]] as const) {
      if (policy.bounds[column] === undefined) {
        throw refuse(
          "bounds_required",
          `a laplace table needs public bounds of its ${field} column "${column}", declared at ` +
            "registration: its noise is scaled to the declared bounds, never to the data",
          field,
        );
      }
    }
    if (policy.bounds[spec.weight][0] < 0) {
      throw refuse(
        "invalid_bounds",
        "a laplace table needs non-negative bounds of the weight column: the declared lower " +
          "bound is negative",
        "weight",
      );
    }
  }
  const sizes = policy.stratumSizes[spec.strata];
  if (missingStratumSizes({ method: spec.method, stratumSizes: sizes }) === "fbp") {
    throw refuse(
      "stratum_sizes_required",
      "the fbp method needs the public size of every stratum, declared at registration",
      "strata",
    );
  }
  if (spec.method === "fbs" || spec.method === "fbp") {
    requirePositiveBounds(policy, spec.y, "y", spec.method);
    requirePositiveBounds(policy, spec.weight, "weight", spec.method);
  }
  return sizes === undefined ? { ...spec } : { ...spec, stratumSizes: { ...sizes } };
}

/** The confidential data as a release under the policy reads it. */
export interface PolicyData {
  /** The data with every bounded column clamped to its bounds. */
  readonly data: Dataset;
  /** Values clamped or moved into the model's domain, by column (owner's diagnostics only). */
  readonly clamped: Record<string, number>;
}

/**
 * Where each numeric outcome kind's values go on a registered dataset, record by record and
 * whatever the other records hold (so neighbours stay neighbours and a release's guarantee is
 * unchanged), instead of failing the job on a record the model cannot take (a failure would
 * answer whether such a record exists): a count is rounded to the nearest integer ≥ 0, a
 * non-negative amount raised to 0, a unit-interval value moved into [1/(2n), 1 − 1/(2n)] (n
 * public; Smithson and Verkuilen 2006's squeeze at the ends). Positive outcomes need declared
 * bounds with lo > 0 instead (`requirePositiveBounds`); real ones take every number.
 */
const DOMAIN_RULES: Partial<Record<string, (v: number, n: number) => number>> = {
  count: (v) => Math.max(0, Math.round(v)),
  "non-negative": (v) => Math.max(0, v),
  "unit-interval": (v, n) => Math.min(1 - 0.5 / n, Math.max(0.5 / n, v)),
};

/**
 * The data a release on a registered dataset reads: every column with public bounds clamped
 * to them (a value outside is moved to the nearest bound, never an error), then, for a
 * synthesis, each numeric outcome moved into its model's domain ({@linkcode DOMAIN_RULES}).
 *
 * @param data The registered dataset.
 * @param policy Its policy.
 * @param plan The synthesis it is read for (absent: a table, or clamping only).
 * @returns The clamped data and the count of values moved per column.
 */
export function policyData(
  data: Dataset,
  policy: DatasetPolicy,
  plan?: Pick<SynthesisPlan, "outcomes">,
): PolicyData {
  const columns = new Map(data.columns);
  const clamped: Record<string, number> = {};
  const move = (name: string, rule: (v: number) => number) => {
    const column = columns.get(name);
    if (column === undefined || column.kind !== "numeric") return;
    let count = 0;
    const values = column.values.map((v) => {
      const moved = rule(v);
      if (moved !== v) count++;
      return moved;
    });
    columns.set(name, { kind: "numeric", values });
    clamped[name] = (clamped[name] ?? 0) + count;
  };
  for (const [name, [lo, hi]] of Object.entries(policy.bounds)) {
    move(name, (v) => v < lo ? lo : v > hi ? hi : v);
  }
  for (const { y, kind } of plan?.outcomes ?? []) {
    const rule = DOMAIN_RULES[kind];
    if (rule !== undefined) move(y, (v) => rule(v, data.n));
  }
  return { data: { ...data, columns }, clamped };
}

/**
 * Whether a key sees how a job ran: its progress (stage, fraction), its attempts and when it was
 * last updated. On a registered dataset all of these depend on the data (how many refits
 * calibration takes, where and when a failing job stops), before and after the job finishes, so
 * only a key with the diagnostics scope sees them; any other key sees the job's status and, for
 * a failure, the fixed public failure, nothing more.
 *
 * @param job The job's dataset.
 * @param diagnostics Whether the key has the diagnostics scope.
 * @returns Whether the run's details are shown.
 */
export function showsRunDetails(
  job: { readonly datasetId: string | null },
  diagnostics: boolean,
): boolean {
  return job.datasetId === null || diagnostics;
}

/** Refuses `allowFlagged` on registered data: a release needs a fit that passes its checks. */
function refuseFlagged(allowFlagged: boolean | undefined): void {
  if (allowFlagged !== undefined) {
    throw refuse(
      "flagged_not_allowed",
      "a release of a registered dataset needs a final fit that passes its diagnostics; " +
        "allowFlagged is for research on one's own data",
      "allowFlagged",
    );
  }
}

/** Refuses `unweighted` unless the owner's policy allows it (issue 34, F5). */
function requireUnweightedAllowed(
  policy: { readonly allowUnweighted?: boolean },
  mechanism: string,
): void {
  if (mechanism === "unweighted" && policy.allowUnweighted !== true) {
    throw refuse(
      "unweighted_not_allowed",
      "the dataset's release policy does not allow the unweighted mechanism: its epsilon has " +
        "no floor, so whether it fits the cap would depend on the data (allowUnweighted, " +
        "declared at registration)",
      "mechanism",
    );
  }
}
