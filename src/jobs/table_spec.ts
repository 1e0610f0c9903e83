/**
 * The survey-table request of `POST /v1/tables`: the `tabulate` command's options (SPEC §8) as
 * JSON, with `by` as an array of two columns and the method required, and the public result it
 * releases (the command's JSON rows and the release's privacy).
 *
 * @module
 */
import { z } from "zod";
import { TABLE_METHOD_NAMES, TabulateOptions } from "../cli/tabulate.ts";

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

/** Table methods whose release is a synthesis (run as a job). */
export const SYNTHETIC_TABLE_METHODS: readonly string[] = ["fbs", "fbp"];

/** The number of synthetic samples of fbs and fbp when `m` is absent (as `tabulate`). */
export const DEFAULT_TABLE_M = 3;

/** The posterior draws of a synthesis when `draws` is absent (SynthesisSpec's default). */
const DEFAULT_DRAWS = 4000;

const Column = z.string().min(1).max(200);

/**
 * A table request: `tabulate`'s options without `--data` and `--out`. `method` is required
 * (`sample` releases the confidential estimates themselves); `laplace`, `fbs` and `fbp` need
 * `epsilon`; `fbp` needs the public `stratumSizes`; fbs and fbp need m ≤ draws.
 */
export const TableSpec = TabulateOptions.omit({ data: true, out: true }).extend({
  by: z.tuple([Column, Column]).refine(
    (names) => names[0] !== names[1],
    "the two grouping columns must differ",
  ).refine(
    (names) => names.every((name) => !VALUE_COLUMNS.includes(name)),
    `a grouping column cannot be named ${VALUE_COLUMNS.join(", ")}`,
  ),
  method: z.enum(TABLE_METHOD_NAMES),
  stratumSizes: z.record(z.string(), z.number().finite().positive()).optional(),
}).superRefine((spec, context) => {
  if (spec.method !== "sample" && spec.epsilon === undefined) {
    context.addIssue({
      code: "custom",
      path: ["epsilon"],
      message: `the ${spec.method} method needs the total epsilon of the table`,
    });
  }
  if (spec.method === "fbp" && spec.stratumSizes === undefined) {
    context.addIssue({
      code: "custom",
      path: ["stratumSizes"],
      message: "the fbp model needs the public population size of every stratum",
    });
  }
  const m = spec.m ?? DEFAULT_TABLE_M;
  const draws = spec.draws ?? DEFAULT_DRAWS;
  if (SYNTHETIC_TABLE_METHODS.includes(spec.method) && m > draws) {
    context.addIssue({
      code: "custom",
      path: ["m"],
      message: `m=${m} exceeds the number of draws ${draws}: each sample needs its own draw`,
    });
  }
});

/** A validated table request. */
export type TableSpec = z.infer<typeof TableSpec>;

/** One cell of a table: the two grouping labels and the values (NaN as null). */
export type TableRow = Record<string, string | number | null>;

/** What a released table spent and guarantees (public). */
export interface TablePrivacy {
  /** Total ε of the table, charged once to a registered dataset's budget. */
  readonly epsilon: number;
  /**
   * "DP" or "aDP" (fbs, fbp: the synthesis's guarantee, ε = 2·Δ_{α,x}·m), or "local DP"
   * (laplace: ε-DP with respect to the sensitivities observed on this sample only).
   */
  readonly guarantee: string;
  /** The neighbour relation of the guarantee ("add-remove"). */
  readonly neighbours: string;
  readonly seedPolicy: string;
  /** laplace: ε_pc = ε/16 for the points and ε_rep = ε/(16·R) per replicate, R replicates. */
  readonly epsilonPoint?: number;
  readonly epsilonReplicate?: number;
  readonly replicates?: number;
  /** fbs, fbp: the number of synthetic samples m and Δ_{α,x}. */
  readonly m?: number;
  readonly lipschitz?: number | null;
}

/** A table as the API returns it. */
export interface TableResult {
  readonly method: TableSpec["method"];
  readonly by: readonly [string, string];
  /** The rows of `deno task tabulate --out FILE.json`, grand total first. */
  readonly rows: readonly TableRow[];
  /** The privacy of the release; null for `sample` (the confidential estimates, not private). */
  readonly privacy: TablePrivacy | null;
}
