/**
 * The survey-table methods (SPEC §8; the survey paper's §2), one home for the `tabulate` command
 * and the HTTP table jobs alike: `sample` (the confidential sample's own table with
 * Taylor-linearised SEs), `laplace` (the Laplace baseline at total ε), `fbs` and `fbp` (combined
 * tables of m synthetic samples at total ε), with the privacy each release carries and its rows
 * as `tabulate --out FILE.csv|FILE.json` writes them.
 *
 * @module
 */
import { z } from "zod";
import { formatCsv } from "../data/csv.ts";
import type { Dataset } from "../data/dataset.ts";
import { type StopFlag, throwIfStopRequested } from "../data/worker_stop.ts";
import { NEIGHBOURS } from "../mechanisms/privacy.ts";
import { Rng } from "../random/rng.ts";
import { releaseSeed } from "../random/seed_policy.ts";
import type { ReleaseManifest } from "../synthesis/report.ts";
import type { SynthesisProgress } from "../synthesis/synthesize.ts";
import type { CombinedTable } from "./combine.ts";
import {
  type LaplaceBounds,
  type LaplaceRelease,
  laplaceTable,
  secureRelease,
  seededRelease,
} from "./laplace_baseline.ts";
import { syntheticTable } from "./synthetic_tables.ts";
import {
  type SurveyTable,
  surveyTable,
  type TableColumns,
  tableColumns,
  tableInput,
} from "./tables.ts";

/** The table methods (SPEC §8; the survey paper's §2). */
export const TABLE_METHOD_NAMES = ["sample", "fbs", "fbp", "laplace"] as const;

/** One of {@linkcode TABLE_METHOD_NAMES}. */
export type TableMethodName = typeof TABLE_METHOD_NAMES[number];

/** Methods whose release is a synthesis (the HTTP API runs them as jobs). */
export const SYNTHETIC_TABLE_METHODS: readonly TableMethodName[] = ["fbs", "fbp"];

/** The number of synthetic samples of fbs and fbp when `m` is absent. */
export const DEFAULT_TABLE_M = 3;

/** Random-group replicates of the Laplace baseline (the survey paper's R = 10). */
export const LAPLACE_REPLICATES = 10;

/** The value columns of every table, after the two grouping columns. */
export const VALUE_COLUMNS = ["count", "countSE", "mean", "meanSE"] as const;

/**
 * What a table releases: `counts-and-means` (the default: every value column) or `means` (the
 * means and their SEs only; no count or total is computed into the output). FBS without declared
 * stratum sizes can release only means ({@linkcode countsNeedStratumSizes}).
 */
export const TABLE_ESTIMATES = ["counts-and-means", "means"] as const;

/** One of {@linkcode TABLE_ESTIMATES}. */
export type TableEstimates = typeof TABLE_ESTIMATES[number];

/**
 * The public stratum sizes a table request lacks, or null when it needs none it does not have:
 * the one rule that the tabulate CLI, the API's request rules (`jobs/table_request.ts`), the
 * release policy (`jobs/release_policy.ts`) and {@linkcode runTableMethod} apply, each with its
 * own wording.
 *
 * - `"fbp"`: FBP needs the sizes for any table (its synthetic weights are scaled to their total).
 * - `"fbs-counts"`: FBS counts and totals need them. FBS's w* = exp(E[log w | ỹ]) is the
 *   lognormal's median, not its mean (Σ w* fell about 10 % below Σ w on the survey sample); only
 *   the declared population size Σ_h N_h scales it, since Σ w is a statistic of the confidential
 *   weights that ε does not cover. A ratio mean Σ w*y / Σ w* does not depend on that scale, so
 *   `estimates: "means"` needs no sizes.
 *
 * @param request The method, stratum sizes (from the request or a release policy) and estimates.
 * @returns What is missing, or null.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { missingStratumSizes } from "./table_methods.ts";
 * assert.equal(missingStratumSizes({ method: "fbp" }), "fbp");
 * assert.equal(missingStratumSizes({ method: "fbp", estimates: "means" }), "fbp");
 * assert.equal(missingStratumSizes({ method: "fbs" }), "fbs-counts");
 * assert.equal(missingStratumSizes({ method: "fbs", estimates: "means" }), null);
 * assert.equal(missingStratumSizes({ method: "fbs", stratumSizes: { a: 10 } }), null);
 * assert.equal(missingStratumSizes({ method: "laplace" }), null);
 * ```
 */
export function missingStratumSizes(
  request: {
    readonly method: string;
    readonly stratumSizes?: unknown;
    readonly estimates?: string;
  },
): "fbp" | "fbs-counts" | null {
  if (request.stratumSizes !== undefined) return null;
  if (request.method === "fbp") return "fbp";
  return request.method === "fbs" && request.estimates !== "means" ? "fbs-counts" : null;
}

/**
 * Whether a request asks for FBS counts or totals without the public stratum sizes that give the
 * synthetic weights their scale ({@linkcode missingStratumSizes} is `"fbs-counts"`). (FBP needs
 * the sizes for any table: it is refused without them before this.)
 *
 * @param request The method, stratum sizes and estimates of a table request.
 * @returns True when the request must be refused.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { countsNeedStratumSizes } from "./table_methods.ts";
 * assert.equal(countsNeedStratumSizes({ method: "fbs" }), true);
 * assert.equal(countsNeedStratumSizes({ method: "fbs", estimates: "means" }), false);
 * assert.equal(countsNeedStratumSizes({ method: "fbs", stratumSizes: { a: 10 } }), false);
 * ```
 */
export function countsNeedStratumSizes(
  request: {
    readonly method: string;
    readonly stratumSizes?: unknown;
    readonly estimates?: string;
  },
): boolean {
  return missingStratumSizes(request) === "fbs-counts";
}

const finite = z.number().finite();

/**
 * Declared public bounds of a bounded Laplace table: `y: [a, b]` (a < b) and `weight: [lo, hi]`
 * (0 ≤ lo < hi).
 */
export const TableBounds = z.object({
  y: z.tuple([finite, finite]).refine(([a, b]) => a < b, "the lower bound must be below the upper"),
  weight: z.tuple([finite, finite]).refine(
    ([lo, hi]) => lo < hi,
    "the lower bound must be below the upper",
  ).refine(([lo]) => lo >= 0, "survey weights are never negative: the lower bound must be ≥ 0"),
}).strict();

/** Declared bounds of a Laplace table. */
export type TableBounds = z.infer<typeof TableBounds>;

/**
 * The settings of a table request that the command line and the HTTP API share. Numbers are JSON
 * numbers, never coerced from text (`"0x10"` is not 16): the command line converts its strings
 * with `parseDecimal` first. Each adds its own form of `by` and its inputs.
 */
export const TableSettings = z.object({
  y: z.string().min(1),
  weight: z.string().min(1),
  strata: z.string().min(1),
  method: z.enum(TABLE_METHOD_NAMES).default("sample"),
  epsilon: z.number().positive().finite().optional(),
  m: z.number().int().positive().max(1000).optional(),
  seed: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  stratumSizes: z.record(z.string(), z.number()).optional(),
  draws: z.number().int().min(4).max(1_000_000).optional(),
  chains: z.number().int().min(1).max(64).optional(),
  warmup: z.number().int().min(10).max(100_000).optional(),
  /** What the table releases (default `counts-and-means`). */
  estimates: z.enum(TABLE_ESTIMATES).optional(),
  /** laplace: declared bounds (the bounded, ε-DP mode); absent: the local-DP baseline. */
  bounds: TableBounds.optional(),
});

/** A table request: the columns, the method and its settings. */
export interface TableRequest extends TableColumns {
  readonly method: TableMethodName;
  /** Total ε of the table (laplace, fbs, fbp). */
  readonly epsilon?: number;
  /** Synthetic samples (fbs, fbp; default {@linkcode DEFAULT_TABLE_M}). */
  readonly m?: number;
  /** Seed (absent: a fresh secret one). */
  readonly seed?: number;
  /**
   * Public population size of every stratum (fbp; fbs counts and totals: the synthetic weights
   * are scaled to their total).
   */
  readonly stratumSizes?: Record<string, number>;
  /** What the table releases (default `counts-and-means`). */
  readonly estimates?: TableEstimates;
  /** Sampler settings of fbs and fbp. */
  readonly draws?: number;
  readonly chains?: number;
  readonly warmup?: number;
  /** laplace: declared public bounds of y and the weights (the bounded mode). */
  readonly bounds?: LaplaceBounds;
}

/** What a released table spent and guarantees (public). */
export interface TablePrivacy {
  /** Total ε of the table, charged once to a registered dataset's budget. */
  readonly epsilon: number;
  /**
   * "DP" or "aDP" (fbs, fbp: the synthesis's guarantee, ε = 2·Δ_{α,x}·m; laplace with declared
   * bounds: "DP"), or "local DP" (laplace without bounds: ε-DP with respect to the sensitivities
   * observed on this sample only).
   */
  readonly guarantee: string;
  /** The neighbour relation of the guarantee ("add-remove"). */
  readonly neighbours: string;
  readonly seedPolicy: string;
  /**
   * laplace: ε_pc for the points (ε/16 with ε_rep = ε/(16·R) per replicate, R replicates; with
   * bounds ε/8 and replicates 0, no ε_rep, standard errors null).
   */
  readonly epsilonPoint?: number;
  readonly epsilonReplicate?: number;
  readonly replicates?: number;
  /** laplace with bounds: the declared bounds the sensitivities come from (public). */
  readonly bounds?: TableBounds;
  /** fbs, fbp: the number of synthetic samples m and Δ_{α,x}. */
  readonly m?: number;
  readonly lipschitz?: number | null;
}

/** A computed table, its privacy (null for `sample`) and, for fbs and fbp, the synthesis's report. */
export interface TableRelease {
  readonly table: SurveyTable;
  readonly privacy: TablePrivacy | null;
  readonly report: ReleaseManifest | null;
  /**
   * laplace with bounds: values clamped to them, by column (the owner's diagnostics only, never
   * in the public table; 0 where the caller had clamped already).
   */
  readonly clamped?: Record<string, number>;
}

/** Options of {@linkcode runTableMethod}. */
export interface TableMethodOptions {
  /** Progress of an fbs or fbp synthesis. */
  readonly onProgress?: SynthesisProgress;
  /** fbs, fbp: aborting it stops the synthesis (a job past its time limit). */
  readonly signal?: AbortSignal;
  /** Declared levels of the grouping columns (a registered dataset's policy). */
  readonly levels?: Readonly<Record<string, readonly string[]>>;
  /** laplace: declared bounds of y and the weights (a registered dataset's policy). */
  readonly bounds?: LaplaceBounds;
  /**
   * laplace: read before each noise draw (a table of a million cells draws for minutes); when
   * set (its job was stopped: `worker_stop.ts`), the table throws.
   */
  readonly stop?: StopFlag;
}

function requireEpsilon(request: TableRequest): number {
  if (request.epsilon === undefined) {
    throw new RangeError(`Invalid epsilon: the ${request.method} method needs the table's total ε`);
  }
  return request.epsilon;
}

/**
 * Computes the table a request asks for: `sample`, the sample's own table; `laplace`, the
 * Laplace baseline at total ε (replicates from `Rng(seed)`, noise from its stream 1 when seeded,
 * the secure discrete Laplace otherwise), or with bounds (`options.bounds`, else the request's)
 * its bounded ε-DP mode on the data clamped to them (no replicates); `fbs` and `fbp`, the
 * combined tables of m synthetic samples at total ε (LW weights calibrated to ε); fbs counts and
 * totals only with the public stratum sizes ({@linkcode countsNeedStratumSizes}). With
 * `estimates: "means"` the counts are withheld (the table is marked so).
 *
 * @param data The confidential sample.
 * @param request The columns, method and settings.
 * @param options Progress, and the declared levels of the cells and bounds of the values.
 * @returns The table, its privacy and the synthesis report; throws a `DataError` for bad data,
 * a `RangeError` for settings or data the method cannot use (fbs counts without stratum sizes
 * among them), and a `CalibrationError` when fbs or fbp cannot reach ε.
 */
export async function runTableMethod(
  data: Dataset,
  request: TableRequest,
  options: TableMethodOptions = {},
): Promise<TableRelease> {
  const columns: TableColumns = { ...request, levels: options.levels ?? request.levels };
  const release = await computeTable(data, request, columns, options);
  return request.estimates === "means" ? { ...release, table: meansOnly(release.table) } : release;
}

/**
 * The table with its counts withheld: count, countSE (and a combined table's count df and
 * interval) NaN, marked `estimates: "means"` so that {@linkcode formatTable} leaves their
 * columns out.
 */
function meansOnly(table: SurveyTable): SurveyTable {
  const withheld = (values: Float64Array) => new Float64Array(values.length).fill(NaN);
  const means = {
    count: withheld(table.count),
    countSE: withheld(table.countSE),
    estimates: "means" as const,
  };
  if (!("m" in table)) return { ...table, ...means };
  const combined = table as CombinedTable;
  const out: CombinedTable = {
    ...combined,
    ...means,
    countDf: withheld(combined.countDf),
    countLower: withheld(combined.countLower),
    countUpper: withheld(combined.countUpper),
  };
  return out;
}

/**
 * A laplace table: with declared bounds, DP from the sensitivities they give (the values clamped
 * to them first, no replicates); without, the local-DP baseline over
 * {@linkcode LAPLACE_REPLICATES} replicates. A request's seed seeds the noise; without one it is
 * secure. A set `stop` flag ends the table before its next noise draw.
 */
function laplaceRelease(
  data: Dataset,
  request: TableRequest,
  columns: TableColumns,
  options: { epsilon: number; bounds: LaplaceBounds | undefined; stop: StopFlag | undefined },
): TableRelease {
  const { epsilon, bounds, stop } = options;
  const { seed, policy } = releaseSeed(request.seed);
  const bounded = bounds === undefined ? undefined : clampColumns(data, [
    [request.y, bounds.y],
    [request.weight, bounds.weight],
  ]);
  const rng = new Rng(seed);
  const noise = request.seed !== undefined ? seededRelease(rng.split(1)) : secureRelease;
  const release: LaplaceRelease = stop === undefined ? noise : (value, sensitivity, eps) => {
    throwIfStopRequested(stop);
    return noise(value, sensitivity, eps);
  };
  const table = laplaceTable(tableInput(bounded?.data ?? data, columns), {
    epsilon,
    bounds,
    replicates: bounds === undefined ? LAPLACE_REPLICATES : undefined,
    rng,
    release,
  });
  const shared = {
    epsilon: table.epsilon,
    guarantee: bounds === undefined ? "local DP" : "DP",
    neighbours: NEIGHBOURS,
    seedPolicy: policy,
    epsilonPoint: table.epsilonPoint,
  };
  if (bounds === undefined) {
    const privacy: TablePrivacy = {
      ...shared,
      epsilonReplicate: table.epsilonReplicate,
      replicates: LAPLACE_REPLICATES,
    };
    return { table, privacy, report: null };
  }
  const privacy: TablePrivacy = {
    ...shared,
    replicates: 0,
    bounds: { y: [bounds.y[0], bounds.y[1]], weight: [bounds.weight[0], bounds.weight[1]] },
  };
  return { table, privacy, report: null, clamped: bounded!.clamped };
}

/** {@linkcode runTableMethod} before the estimates are selected. */
async function computeTable(
  data: Dataset,
  request: TableRequest,
  columns: TableColumns,
  options: TableMethodOptions,
): Promise<TableRelease> {
  const { method } = request;
  if (method === "sample") {
    return { table: surveyTable(tableInput(data, columns)), privacy: null, report: null };
  }
  const epsilon = requireEpsilon(request);
  const bounds = options.bounds ?? request.bounds;
  if (bounds !== undefined && method !== "laplace") {
    throw new RangeError(`Invalid bounds: only the laplace method takes bounds: method=${method}`);
  }
  if (method === "laplace") {
    return laplaceRelease(data, request, columns, { epsilon, bounds, stop: options.stop });
  }
  if (countsNeedStratumSizes(request)) {
    throw new RangeError(
      "Invalid stratumSizes: fbs counts and totals need the public population size of every " +
        "stratum (the synthetic weights are scaled to their total; without them Σ w* is the " +
        'lognormal\'s median, about 10% low): give stratumSizes, or estimates "means" for the ' +
        "means alone",
    );
  }
  const { table, report } = await syntheticTable(data, {
    ...columns,
    method,
    epsilon,
    m: request.m ?? DEFAULT_TABLE_M,
    onProgress: options.onProgress,
    signal: options.signal,
  });
  const privacy: TablePrivacy = {
    epsilon: report.epsilon,
    guarantee: report.guarantee,
    neighbours: NEIGHBOURS,
    seedPolicy: report.seedPolicy,
    m: report.m,
    lipschitz: report.lipschitz,
  };
  return { table, privacy, report };
}

/**
 * A dataset with numeric columns clamped to bounds (a value outside moves to the nearest bound),
 * and the count of clamped values per column; a column named twice is clamped to each in turn.
 */
function clampColumns(
  data: Dataset,
  bounded: readonly (readonly [string, readonly [number, number]])[],
): { data: Dataset; clamped: Record<string, number> } {
  const columns = new Map(data.columns);
  const clamped: Record<string, number> = {};
  for (const [name, [lo, hi]] of bounded) {
    const column = columns.get(name);
    if (column === undefined || column.kind !== "numeric") continue;
    let count = 0;
    const values = column.values.map((v) => {
      if (v < lo || v > hi) count++;
      return v < lo ? lo : v > hi ? hi : v;
    });
    columns.set(name, { kind: "numeric", values });
    clamped[name] = (clamped[name] ?? 0) + count;
  }
  return { data: { ...data, columns }, clamped };
}

/**
 * Formats a table as CSV text or as a JSON array of row objects (NaN becomes null), with the
 * combining rules' columns for a combined (fbs, fbp) table; a means-only table
 * (`estimates: "means"`) has no count columns.
 *
 * @param table The table.
 * @param format "csv" or "json".
 * @returns The text `tabulate --out` writes.
 */
export function formatTable(table: SurveyTable, format: "csv" | "json"): string {
  const columns = tableColumns(table);
  const meansOnly = table.estimates === "means";
  if (meansOnly) {
    columns.delete("count");
    columns.delete("countSE");
  }
  if ("m" in table) {
    const combined = table as CombinedTable;
    if (!meansOnly) {
      columns.set("countDf", combined.countDf);
      columns.set("countLower", combined.countLower);
      columns.set("countUpper", combined.countUpper);
    }
    columns.set("meanDf", combined.meanDf);
    columns.set("meanLower", combined.meanLower);
    columns.set("meanUpper", combined.meanUpper);
  }
  if (format === "csv") return formatCsv(columns);
  const rows = Array.from(
    { length: table.count.length },
    (_, r) => Object.fromEntries([...columns].map(([name, values]) => [name, values[r]])),
  );
  return JSON.stringify(rows, null, 2) + "\n";
}
