/**
 * The declared schema of a whole public-use file: every column's kind, its public levels or
 * bounds, its not-applicable marker (a structural state, not a missing value), the geography
 * column and the codebook's consistency rules. Everything about a release's shape is read from
 * here, never from the confidential data.
 *
 * A schema file is JSON:
 *
 *     { "geography": "PUMA", "bins": 32,
 *       "columns": [{ "name": "SEX", "kind": "categorical", "levels": ["1", "2"] },
 *                   { "name": "PINCP", "kind": "amount", "bounds": [-9000, 1341000],
 *                     "integer": true, "decimals": 1, "notApplicable": "N" }, …],
 *       "rules": [{ "name": "no income under 15",
 *                   "when": [{ "column": "AGEP", "op": "<", "value": 15 }],
 *                   "then": [{ "column": "PINCP", "isNA": true }], "iff": true }] }
 *
 * @module
 */
import { z } from "zod";
import { DataError, readInputText } from "./data_error.ts";
import { parseDecimal } from "./decimal.ts";

/** The kinds of column a file holds. */
export const COLUMN_KINDS = ["categorical", "count", "continuous", "amount", "weight"] as const;

/** A column's kind: categorical codes, or one of four numeric kinds (see `file_encoding.ts`). */
export type ColumnKind = typeof COLUMN_KINDS[number];

/** Where a column's levels or bounds come from: public facts, or a draft read from the data. */
export type ColumnSource = "declared" | "codebook" | "data";

/** A column determined by a categorical column: the value each of its cells maps to. */
export interface Determination {
  readonly column: string;
  readonly map: Readonly<Record<string, string>>;
}

/** One column of a {@linkcode FileSchema}. */
export interface FileColumn {
  readonly name: string;
  readonly kind: ColumnKind;
  /** Categorical: the exact cell strings, the N/A marker excluded. */
  readonly levels?: readonly string[];
  /** Numeric: the declared [lower, upper] range (both inclusive). */
  readonly bounds?: readonly [number, number];
  /** Numeric: whole numbers only (a count always is). */
  readonly integer?: boolean;
  /** The cell that marks "not applicable" (e.g. `N`): a state of its own. */
  readonly notApplicable?: string;
  /** Numeric: digits written after the point (`5000.0` → 1); the resolution of a non-integer. */
  readonly decimals?: number;
  /** Numeric: values that each get a level of their own (top codes, placeholders). */
  readonly points?: readonly number[];
  /** Numeric: this column's bin count, overriding the schema's. */
  readonly bins?: number;
  /**
   * Weight: the declared public total (a population size the weights are controlled to, as the
   * ACS person weights are to the Census Bureau's published estimates); a synthetic file's
   * weights are scaled to it.
   */
  readonly total?: number;
  /** A categorical column that is a function of another (copied from it, never modelled). */
  readonly determinedBy?: Determination;
  /** Where levels or bounds come from; `data` marks a draft to review (see `deno task schema`). */
  readonly source?: ColumnSource;
  readonly description?: string;
}

/** A comparison of a numeric cell. */
export type ComparisonOp = "<" | "<=" | ">" | ">=" | "==" | "!=";

/**
 * One condition on a record: the column's cell is (or is not) N/A; is one of a set of cells;
 * compares with a number; or compares with another column's cell. A comparison with an N/A or
 * non-numeric cell is false.
 */
export type RuleCondition =
  | { readonly column: string; readonly isNA: boolean }
  | { readonly column: string; readonly in: readonly string[] }
  | { readonly column: string; readonly op: ComparisonOp; readonly value: number }
  | { readonly column: string; readonly op: ComparisonOp; readonly other: string };

/**
 * A consistency rule: when every `when` condition holds, every `then` condition must hold; with
 * `iff`, also the converse (the `then` conditions all hold exactly when the `when` ones do).
 * Without `when`, the `then` conditions hold for every record.
 */
export interface FileRule {
  readonly name: string;
  readonly when?: readonly RuleCondition[];
  readonly then: readonly RuleCondition[];
  readonly iff?: boolean;
}

/** The declared schema of a file: its columns in file order, geography, bin count and rules. */
export interface FileSchema {
  readonly columns: readonly FileColumn[];
  /** The categorical column that marginals are taken within (e.g. PUMA). */
  readonly geography?: string;
  /** Bins of a numeric column's range (default {@linkcode DEFAULT_BINS}). */
  readonly bins?: number;
  readonly rules?: readonly FileRule[];
  readonly description?: string;
}

/** A numeric column's default bin count: finer than SDNist's 20 percentile bins. */
export const DEFAULT_BINS = 32;

const Op = z.enum(["<", "<=", ">", ">=", "==", "!="]);
const Condition = z.union([
  z.object({ column: z.string(), isNA: z.boolean() }).strict(),
  z.object({ column: z.string(), in: z.array(z.string()).min(1) }).strict(),
  z.object({ column: z.string(), op: Op, value: z.number() }).strict(),
  z.object({ column: z.string(), op: Op, other: z.string() }).strict(),
]);
const Rule = z.object({
  name: z.string().min(1),
  when: z.array(Condition).optional(),
  then: z.array(Condition).min(1),
  iff: z.boolean().optional(),
}).strict();
const Column = z.object({
  name: z.string().min(1),
  kind: z.enum(COLUMN_KINDS),
  levels: z.array(z.string()).min(1).optional(),
  bounds: z.tuple([z.number(), z.number()]).optional(),
  integer: z.boolean().optional(),
  notApplicable: z.string().optional(),
  decimals: z.number().int().min(0).max(9).optional(),
  points: z.array(z.number()).optional(),
  bins: z.number().int().min(2).max(10000).optional(),
  total: z.number().positive().finite().optional(),
  determinedBy: z.object({ column: z.string(), map: z.record(z.string(), z.string()) }).strict()
    .optional(),
  source: z.enum(["declared", "codebook", "data"]).optional(),
  description: z.string().optional(),
}).strict();
const Schema = z.object({
  columns: z.array(Column).min(1),
  geography: z.string().optional(),
  bins: z.number().int().min(2).max(10000).optional(),
  rules: z.array(Rule).optional(),
  description: z.string().optional(),
}).strict();

/** Whether a column is one of the numeric kinds. */
export function isNumericKind(kind: ColumnKind): boolean {
  return kind !== "categorical";
}

/** Whether a numeric column holds whole numbers only (a count always does). */
export function isIntegerColumn(column: FileColumn): boolean {
  return column.kind === "count" || column.integer === true;
}

/** The grid step of a numeric column: 1 for integers, else 10^−decimals. */
export function columnUnit(column: FileColumn): number {
  return isIntegerColumn(column) ? 1 : 10 ** -(column.decimals ?? 0);
}

/** Whether x is a whole number of grid steps (to within rounding of the decimal). */
export function onGrid(x: number, unit: number): boolean {
  if (unit === 1) return Number.isInteger(x);
  const steps = Math.round(x / unit);
  return Math.abs(steps * unit - x) <= 1e-9 * Math.max(1, Math.abs(x));
}

/**
 * Parses and checks a schema file's JSON.
 *
 * @param json The parsed JSON.
 * @param source The schema file's name, for messages.
 * @returns The schema; a malformed one throws a {@linkcode DataError} naming the column (or
 * rule) and field.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseFileSchema } from "./file_schema.ts";
 * const schema = parseFileSchema({
 *   columns: [{ name: "SEX", kind: "categorical", levels: ["1", "2"] }],
 * }, "s.json");
 * assert.equal(schema.columns[0].kind, "categorical");
 * assert.throws(
 *   () => parseFileSchema({ columns: [{ name: "AGEP", kind: "count" }] }, "s.json"),
 *   /column "AGEP": field "bounds"/,
 * );
 * ```
 */
export function parseFileSchema(json: unknown, source: string): FileSchema {
  const parsed = Schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const [top, index, field, ...rest] = issue.path;
    const raw = json as { columns?: { name?: unknown }[]; rules?: { name?: unknown }[] };
    if (top === "columns" && typeof index === "number") {
      const name = raw.columns?.[index]?.name;
      const column = typeof name === "string" ? name : `#${index + 1}`;
      throw new DataError(
        { file: source, column },
        `field "${[field, ...rest].filter((p) => p !== undefined).join(".")}": ${issue.message}`,
      );
    }
    if (top === "rules" && typeof index === "number") {
      const name = raw.rules?.[index]?.name;
      throw new DataError(
        { file: source },
        `rule ${typeof name === "string" ? `"${name}"` : `#${index + 1}`}: field "${
          [field, ...rest].filter((p) => p !== undefined).join(".")
        }": ${issue.message}`,
      );
    }
    throw new DataError(
      { file: source },
      `field "${issue.path.join(".") || "(schema)"}": ${issue.message}`,
    );
  }
  const schema = parsed.data as FileSchema;
  checkSchema(schema, source);
  return schema;
}

/** The semantic checks zod's shapes cannot state. */
function checkSchema(schema: FileSchema, source: string): void {
  const byName = new Map<string, FileColumn>();
  for (const column of schema.columns) {
    if (byName.has(column.name)) {
      throw new DataError({ file: source, column: column.name }, "declared twice");
    }
    byName.set(column.name, column);
    checkColumn(column, source);
  }
  for (const column of schema.columns) {
    if (column.determinedBy !== undefined) checkDetermination(column, byName, source);
  }
  if (schema.geography !== undefined) {
    const geography = byName.get(schema.geography);
    if (geography?.kind !== "categorical") {
      throw new DataError(
        { file: source },
        `field "geography": "${schema.geography}" is not a declared categorical column`,
      );
    }
  }
  const ruleNames = new Set<string>();
  for (const rule of schema.rules ?? []) {
    const fail = (problem: string) => {
      throw new DataError({ file: source }, `rule "${rule.name}": ${problem}`);
    };
    if (ruleNames.has(rule.name)) fail("declared twice");
    ruleNames.add(rule.name);
    if (rule.iff && (rule.when ?? []).length === 0) fail('field "iff": needs "when" conditions');
    for (const condition of [...(rule.when ?? []), ...rule.then]) {
      checkCondition(condition, byName, fail);
    }
  }
}

function checkColumn(column: FileColumn, source: string): void {
  const fail = (field: string, problem: string) => {
    throw new DataError({ file: source, column: column.name }, `field "${field}": ${problem}`);
  };
  if (column.kind === "categorical") {
    for (const field of ["bounds", "integer", "decimals", "points", "bins", "total"] as const) {
      if (column[field] !== undefined) fail(field, "not allowed for a categorical column");
    }
    if (column.levels === undefined) fail("levels", "required for a categorical column");
    const levels = column.levels!;
    if (new Set(levels).size !== levels.length) fail("levels", "a level is listed twice");
    if (column.notApplicable !== undefined && levels.includes(column.notApplicable)) {
      fail("notApplicable", "the marker is also listed among the levels");
    }
    return;
  }
  if (column.levels !== undefined) fail("levels", `not allowed for a ${column.kind} column`);
  if (column.determinedBy !== undefined) {
    fail("determinedBy", "only a categorical column can be determined by another");
  }
  if (column.kind === "count" && column.integer === false) {
    fail("integer", "a count is always whole numbers");
  }
  const integer = isIntegerColumn(column);
  if (!integer && column.decimals === undefined) {
    fail("decimals", 'required for a non-integer column (its resolution), or set "integer"');
  }
  if (column.bounds === undefined) fail("bounds", `required for a ${column.kind} column`);
  const [lo, hi] = column.bounds!;
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo > hi) {
    fail("bounds", "must be finite with lower ≤ upper");
  }
  const unit = integer ? 1 : 10 ** -column.decimals!;
  if (!onGrid(lo, unit) || !onGrid(hi, unit)) {
    fail(
      "bounds",
      integer ? "must be whole numbers" : `must have at most ${column.decimals} decimals`,
    );
  }
  if (column.kind === "weight" && lo < 0) fail("bounds", "a weight cannot be negative");
  if (column.total !== undefined && column.kind !== "weight") {
    fail("total", "only a weight column has a declared total");
  }
  const points = column.points ?? [];
  if (new Set(points).size !== points.length) fail("points", "a value is listed twice");
  for (const point of points) {
    if (!(point >= lo && point <= hi) || !onGrid(point, unit)) {
      fail("points", "every point must lie within the bounds, on the column's resolution");
    }
  }
  if (column.notApplicable !== undefined && !Number.isNaN(parseDecimal(column.notApplicable))) {
    fail("notApplicable", "a numeric column's marker cannot itself be a number");
  }
}

function checkDetermination(
  column: FileColumn,
  byName: ReadonlyMap<string, FileColumn>,
  source: string,
): void {
  const { column: parentName, map } = column.determinedBy!;
  const fail = (problem: string) => {
    throw new DataError({ file: source, column: column.name }, `field "determinedBy": ${problem}`);
  };
  const parent = byName.get(parentName);
  if (parent === undefined || parent.kind !== "categorical" || parentName === column.name) {
    fail(`"${parentName}" is not another declared categorical column`);
  }
  if (parent!.determinedBy !== undefined) fail(`"${parentName}" is itself determined`);
  const keys = [
    ...parent!.levels!,
    ...(parent!.notApplicable === undefined ? [] : [
      parent!.notApplicable,
    ]),
  ];
  const cells = new Set([
    ...column.levels!,
    ...(column.notApplicable === undefined ? [] : [column.notApplicable]),
  ]);
  if (Object.keys(map).length !== keys.length || !keys.every((key) => key in map)) {
    fail(`"map" must give a value for each of "${parentName}"'s ${keys.length} cells, no more`);
  }
  if (!Object.values(map).every((value) => cells.has(value))) {
    fail('every value of "map" must be one of the column\'s levels');
  }
}

function checkCondition(
  condition: RuleCondition,
  byName: ReadonlyMap<string, FileColumn>,
  fail: (problem: string) => never,
): void {
  const column = byName.get(condition.column);
  if (column === undefined) fail(`column "${condition.column}" is not declared`);
  const comparable = (c: FileColumn) =>
    isNumericKind(c.kind) || c.levels!.every((level) => !Number.isNaN(parseDecimal(level)));
  if ("isNA" in condition && column!.notApplicable === undefined) {
    fail(`column "${condition.column}" declares no notApplicable marker`);
  }
  if ("in" in condition && column!.kind === "categorical") {
    const cells = new Set([...column!.levels!, column!.notApplicable]);
    if (!condition.in.every((cell) => cells.has(cell))) {
      fail(`a cell of "in" is not a level of column "${condition.column}"`);
    }
  }
  if ("op" in condition) {
    if (!comparable(column!)) fail(`column "${condition.column}" is not numeric`);
    if ("other" in condition) {
      const other = byName.get(condition.other);
      if (other === undefined || !comparable(other)) {
        fail(`column "${condition.other}" is not a declared numeric column`);
      }
    }
  }
}

/**
 * Reads and parses a schema file.
 *
 * @param path The JSON file.
 * @returns The schema (see {@linkcode parseFileSchema}).
 */
export async function readFileSchema(path: string): Promise<FileSchema> {
  const text = await readInputText(path);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DataError({ file: path }, "the schema is not valid JSON");
  }
  return parseFileSchema(json, path);
}
