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
 *
 * @module
 */
import { z } from "zod";
import type { Dataset } from "../data/dataset.ts";
import { getColumn } from "../data/dataset.ts";
import { NEIGHBOURS } from "../mechanisms/privacy.ts";
import { outcomeKind } from "../models/mod.ts";
import { outcomesOf, type SynthesisSpec } from "../synthesis/spec.ts";
import { PolicyError } from "./domain_errors.ts";
import type { TableSpec } from "./table_spec.ts";

/** Public columns with more distinct values than this get no levels (they cannot be a `by`). */
export const MAX_PUBLIC_LEVELS = 1000;

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
});

/** A declaration as given. */
export type PolicyDeclaration = z.input<typeof PolicyDeclaration>;

/** A registered dataset's release policy (public: it is what the owner declared). */
export interface ReleasePolicy {
  readonly publicColumns: readonly string[];
  readonly bounds: Readonly<Record<string, readonly [number, number]>>;
  readonly stratumSizes: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly levels: Readonly<Record<string, readonly string[]>>;
  readonly sizePublic: true;
  readonly neighbours: typeof NEIGHBOURS;
}

function invalid(message: string, field: string): PolicyError {
  return new PolicyError(400, "invalid_policy", message, field);
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
export function createPolicy(declaration: PolicyDeclaration, data: Dataset): ReleasePolicy {
  const parsed = PolicyDeclaration.parse(declaration);
  const { publicColumns } = parsed;
  const isColumn = (name: string) => data.names.includes(name);
  publicColumns.forEach((name, k) => {
    if (!isColumn(name)) throw invalid(`the dataset has no column "${name}"`, `publicColumns.${k}`);
    if (publicColumns.indexOf(name) !== k) {
      throw invalid(`"${name}" is named twice`, `publicColumns.${k}`);
    }
  });
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
  return {
    publicColumns: [...publicColumns],
    bounds: parsed.bounds,
    stratumSizes: parsed.stratumSizes,
    levels,
    sizePublic: true,
    neighbours: NEIGHBOURS,
  };
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
function requirePublic(policy: ReleasePolicy, name: string, field: string): void {
  if (!policy.publicColumns.includes(name)) {
    throw refuse(
      "confidential_column",
      "this column is confidential under the dataset's release policy, so it cannot be " +
        "released as it is",
      field,
    );
  }
}

/** What every request on a registered dataset must satisfy: no seed, a cap on ε. */
function checkCommon(request: { seed?: number; epsilon?: number }, needsEpsilon: boolean): void {
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
}

/** Refuses a request field that the policy sets. */
function setByPolicy(given: unknown, field: string): void {
  if (given !== undefined) {
    throw refuse("set_by_policy", "the dataset's release policy sets this field", field);
  }
}

/**
 * Checks a synthesis request against the policy and returns the spec to run: stratum sizes
 * and histogram bounds taken from the policy, no seed.
 *
 * @param policy The dataset's policy.
 * @param spec The validated request.
 * @returns The spec the job runs; throws a `PolicyError` (422) naming the request field.
 */
export function checkSynthesis(policy: ReleasePolicy, spec: SynthesisSpec): SynthesisSpec {
  checkCommon(spec, true);
  spec.x.forEach((name, k) => requirePublic(policy, name, `x.${k}`));
  if (spec.strata !== undefined) requirePublic(policy, spec.strata, "strata");
  setByPolicy(spec.stratumSizes, "stratumSizes");
  setByPolicy(spec.lower, "lower");
  setByPolicy(spec.upper, "upper");
  setByPolicy(spec.outcomeLevels, "outcomeLevels");
  const run: SynthesisSpec = { ...spec };
  const several = typeof spec.y !== "string";
  const outcomeLevels: Record<string, string[]> = {};
  outcomesOf(spec).forEach(({ y, model }, k) => {
    if (outcomeKind(model) !== "binary" && outcomeKind(model) !== "categorical") return;
    const declared = policy.levels[y];
    if (declared === undefined || policy.publicColumns.includes(y)) {
      throw refuse(
        "levels_required",
        `the ${model} model releases levels of its outcome: declare the outcome's level set ` +
          "(levels) at registration",
        several ? `y.${k}` : "y",
      );
    }
    outcomeLevels[y] = [...declared];
  });
  if (Object.keys(outcomeLevels).length > 0) run.outcomeLevels = outcomeLevels;
  if (spec.strata !== undefined && policy.stratumSizes[spec.strata] !== undefined) {
    run.stratumSizes = { ...policy.stratumSizes[spec.strata] };
  } else if (spec.model === "fbp") {
    throw refuse(
      "stratum_sizes_required",
      "the fbp model needs the public size of every stratum, declared at registration",
      "strata",
    );
  }
  if (spec.mechanism === "histogram" && Object.keys(outcomeLevels).length === 0) {
    const bounds = typeof spec.y === "string" ? policy.bounds[spec.y] : undefined;
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
 * Checks a table request against the policy and returns the spec to run (stratum sizes from
 * the policy, no seed).
 *
 * @param policy The dataset's policy.
 * @param spec The validated request.
 * @returns The spec to run; throws a `PolicyError` (422) naming the request field.
 */
export function checkTable(policy: ReleasePolicy, spec: TableSpec): TableSpec {
  checkCommon(spec, spec.method !== "sample");
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
  const sizes = policy.stratumSizes[spec.strata];
  if (spec.method === "fbp" && sizes === undefined) {
    throw refuse(
      "stratum_sizes_required",
      "the fbp method needs the public size of every stratum, declared at registration",
      "strata",
    );
  }
  return sizes === undefined ? { ...spec } : { ...spec, stratumSizes: { ...sizes } };
}

/** The confidential data as a release under the policy reads it. */
export interface PolicyData {
  /** The data with every bounded column clamped to its bounds. */
  readonly data: Dataset;
  /** Values clamped, by column (owner's diagnostics only). */
  readonly clamped: Record<string, number>;
}

/**
 * The data a release on a registered dataset reads: every column with public bounds clamped
 * to them (a value outside is moved to the nearest bound, never an error).
 *
 * @param data The registered dataset.
 * @param policy Its policy.
 * @returns The clamped data and the count of clamped values per column.
 */
export function policyData(data: Dataset, policy: ReleasePolicy): PolicyData {
  const columns = new Map(data.columns);
  const clamped: Record<string, number> = {};
  for (const [name, [lo, hi]] of Object.entries(policy.bounds)) {
    const column = columns.get(name);
    if (column === undefined || column.kind !== "numeric") continue;
    let count = 0;
    const values = column.values.map((v) => {
      if (v < lo) {
        count++;
        return lo;
      }
      if (v > hi) {
        count++;
        return hi;
      }
      return v;
    });
    columns.set(name, { kind: "numeric", values });
    clamped[name] = count;
  }
  return { data: { ...data, columns }, clamped };
}

/**
 * A job's progress as a key may see it. On a registered dataset the stages and fractions of a
 * running job depend on the data (how many refits calibration takes, where a failing job
 * stops), so only a key with the diagnostics scope sees them; any other key sees null until the
 * job has finished.
 *
 * @param job The job's dataset, status and progress.
 * @param diagnostics Whether the key has the diagnostics scope.
 * @returns The progress to show.
 */
export function visibleProgress<P>(
  job: { readonly datasetId: string | null; readonly status: string; readonly progress: P | null },
  diagnostics: boolean,
): P | null {
  const running = job.status === "queued" || job.status === "running";
  return job.datasetId !== null && running && !diagnostics ? null : job.progress;
}
