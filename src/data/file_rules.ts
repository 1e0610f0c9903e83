/**
 * The schema's consistency rules evaluated on cells (a confidential file or a synthetic one):
 * per-rule violation counts for the report, and one record's verdict for a synthesizer that
 * rejects and redraws inconsistent records (post-processing, free of privacy cost).
 *
 * @module
 */
import { parseDecimal } from "./decimal.ts";
import type { FileRule, FileSchema, RuleCondition } from "./file_schema.ts";

/** Cells by column name, every column of equal length. */
export type FileCells = ReadonlyMap<string, readonly string[]>;

/** Whether `a op b` holds. */
function compare(a: number, op: string, b: number): boolean {
  switch (op) {
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    case ">":
      return a > b;
    case ">=":
      return a >= b;
    case "==":
      return a === b;
    default:
      return a !== b;
  }
}

/** The cells of a column, or a RangeError naming it. */
function cellsOf(cells: FileCells, name: string): readonly string[] {
  const column = cells.get(name);
  if (column === undefined) {
    throw new RangeError(`Cannot evaluate the rules as the cells lack column "${name}"`);
  }
  return column;
}

/** Whether a condition holds for row i (an N/A or non-numeric cell fails every comparison). */
function holds(
  condition: RuleCondition,
  cells: FileCells,
  markers: ReadonlyMap<string, string | undefined>,
  i: number,
): boolean {
  const cell = cellsOf(cells, condition.column)[i];
  if ("isNA" in condition) return (cell === markers.get(condition.column)) === condition.isNA;
  if ("in" in condition) {
    const value = parseDecimal(cell);
    return condition.in.some((member) =>
      member === cell || (!Number.isNaN(value) && parseDecimal(member) === value)
    );
  }
  const left = parseDecimal(cell);
  const right = "value" in condition
    ? condition.value
    : parseDecimal(cellsOf(cells, condition.other)[i]);
  return !Number.isNaN(left) && !Number.isNaN(right) && compare(left, condition.op, right);
}

/** Whether record i keeps a rule. */
function keeps(
  rule: FileRule,
  cells: FileCells,
  markers: ReadonlyMap<string, string | undefined>,
  i: number,
): boolean {
  const when = (rule.when ?? []).every((condition) => holds(condition, cells, markers, i));
  const then = rule.then.every((condition) => holds(condition, cells, markers, i));
  return rule.iff ? when === then : !when || then;
}

function markersOf(schema: FileSchema): Map<string, string | undefined> {
  return new Map(schema.columns.map((column) => [column.name, column.notApplicable]));
}

/**
 * How many records break each of the schema's rules.
 *
 * @param cells Column name → cells (the columns the rules name must be there).
 * @param schema The schema whose rules and N/A markers apply.
 * @returns One entry per rule, in declared order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ruleViolations } from "./file_rules.ts";
 * const schema = {
 *   columns: [
 *     { name: "NPF", kind: "count", bounds: [2, 20], notApplicable: "N" },
 *     { name: "NOC", kind: "count", bounds: [0, 19], notApplicable: "N" },
 *   ],
 *   rules: [{ name: "NPF > NOC", then: [{ column: "NPF", op: ">", other: "NOC" }],
 *     when: [{ column: "NPF", isNA: false }, { column: "NOC", isNA: false }] }],
 * } as const;
 * const cells = new Map([["NPF", ["3", "2", "N"]], ["NOC", ["1", "2", "0"]]]);
 * assert.deepEqual(ruleViolations(cells, schema), [{ rule: "NPF > NOC", violations: 1 }]);
 * ```
 */
export function ruleViolations(
  cells: FileCells,
  schema: FileSchema,
): { rule: string; violations: number }[] {
  const markers = markersOf(schema);
  const n = cells.values().next().value?.length ?? 0;
  return (schema.rules ?? []).map((rule) => {
    let violations = 0;
    for (let i = 0; i < n; i++) if (!keeps(rule, cells, markers, i)) violations++;
    return { rule: rule.name, violations };
  });
}

/**
 * Whether one record keeps every rule of the schema.
 *
 * @param cells Column name → cells.
 * @param row The record's index (0-based).
 * @param schema The schema whose rules and N/A markers apply.
 * @returns True when no rule is broken.
 */
export function recordSatisfiesRules(cells: FileCells, row: number, schema: FileSchema): boolean {
  const markers = markersOf(schema);
  return (schema.rules ?? []).every((rule) => keeps(rule, cells, markers, row));
}
