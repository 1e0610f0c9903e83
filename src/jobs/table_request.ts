/**
 * The survey-table request of `POST /v1/tables`: the table methods' settings (SPEC §8,
 * `src/survey/table_methods.ts`) as JSON, with `by` as an array of two columns and the method
 * required, and the public result it releases (the command's JSON rows and the release's
 * privacy).
 *
 * @module
 */
import { z } from "zod";
import {
  DEFAULT_TABLE_M,
  missingStratumSizes,
  SYNTHETIC_TABLE_METHODS,
  TABLE_METHOD_NAMES,
  type TableMethodName,
  type TablePrivacy,
  TableSettings,
} from "../survey/table_methods.ts";

/** Columns of a table row besides the two grouping columns (every method's). */
const VALUE_COLUMNS = [
  "count",
  "countSE",
  "mean",
  "meanSE",
  "countDf",
  "countLower",
  "countUpper",
  "meanDf",
  "meanLower",
  "meanUpper",
];

/** The posterior draws of a synthesis when `draws` is absent (SynthesisSpec's default). */
const DEFAULT_DRAWS = 4000;

const Column = z.string().min(1).max(200);

/**
 * A table request: `tabulate`'s settings, `by` as two columns and `method` required (`sample`
 * releases the confidential estimates themselves). {@linkcode tableRules} adds what depends on
 * more than one field.
 */
export const TableSpec = TableSettings.extend({
  by: z.tuple([Column, Column]).refine(
    (names) => names[0] !== names[1],
    "the two grouping columns must differ",
  ).refine(
    (names) => names.every((name) => !VALUE_COLUMNS.includes(name)),
    `a grouping column cannot be named ${VALUE_COLUMNS.join(", ")}`,
  ),
  method: z.enum(TABLE_METHOD_NAMES),
  stratumSizes: z.record(z.string(), z.number().finite().positive()).optional(),
}).strict();

/** A validated table request. */
export type TableSpec = z.infer<typeof TableSpec>;

/**
 * The rules of a table request across fields: `laplace`, `fbs` and `fbp` need `epsilon`; `fbp`
 * needs the public `stratumSizes` (unless a registered dataset's policy gives them); fbs and fbp
 * need m ≤ draws; only `laplace` takes `bounds` (inline data; a registered dataset's come from
 * its policy).
 *
 * @param spec The request.
 * @param context Where issues go.
 * @param sizesFromPolicy The stratum sizes come from a release policy, not the request.
 */
export function tableRules(
  spec: TableSpec,
  context: z.RefinementCtx,
  sizesFromPolicy = false,
): void {
  if (spec.method !== "sample" && spec.epsilon === undefined) {
    context.addIssue({
      code: "custom",
      path: ["epsilon"],
      message: `the ${spec.method} method needs the total epsilon of the table`,
    });
  }
  if (!sizesFromPolicy && missingStratumSizes(spec) === "fbp") {
    context.addIssue({
      code: "custom",
      path: ["stratumSizes"],
      message: "the fbp model needs the public population size of every stratum",
    });
  }
  if (spec.bounds !== undefined && spec.method !== "laplace") {
    context.addIssue({
      code: "custom",
      path: ["bounds"],
      message: "only the laplace method takes bounds",
    });
  }
  const m = spec.m ?? DEFAULT_TABLE_M;
  const draws = spec.draws ?? DEFAULT_DRAWS;
  if ((SYNTHETIC_TABLE_METHODS as readonly string[]).includes(spec.method) && m > draws) {
    context.addIssue({
      code: "custom",
      path: ["m"],
      message: `m=${m} exceeds the number of draws ${draws}: each sample needs its own draw`,
    });
  }
}

/** One cell of a table: the two grouping labels and the values (NaN as null). */
export type TableRow = Record<string, string | number | null>;

/** A table as the API returns it. */
export interface TableResult {
  readonly method: TableMethodName;
  readonly by: readonly [string, string];
  /** The rows of `deno task tabulate --out FILE.json`, grand total first. */
  readonly rows: readonly TableRow[];
  /** The privacy of the release; null for `sample` (the confidential estimates, not private). */
  readonly privacy: TablePrivacy | null;
}
