/**
 * `deno task tabulate`: survey tables (SPEC §8) from a weighted sample: counts and mean outcomes
 * with their standard errors for every cell of a two-way classification, both margins and the
 * grand total (27 cells for field × gender).
 *
 *     deno task tabulate --data FILE.csv --y salary --weight w --strata field --by field,gender
 *       [--method sample|fbs|fbp|laplace] [--epsilon E] [--m M] [--seed N]
 *       [--stratum-sizes LABEL=N,…] [--draws S] [--chains K] [--warmup W] --out FILE.csv|FILE.json
 *
 * Writes one row per cell with the two grouping columns (labels from the data, "all" for a
 * margin) and `count`, `countSE`, `mean`, `meanSE`, as CSV or as a JSON array of row objects
 * (by the extension of --out), atomically. `--method sample` tabulates the confidential sample
 * itself (Taylor-linearised SEs for the stratified with-replacement design). `laplace` adds
 * Laplace noise with local sensitivities and random-group replicate SEs at total ε (survey
 * paper §2.4). `fbs` and `fbp` synthesise m samples with the pseudo posterior calibrated to ε
 * (LW weights) and combine their tables (partial-synthesis rules), adding `countDf`,
 * `countLower`, `countUpper`, `meanDf`, `meanLower`, `meanUpper`; `fbp` needs the public
 * `--stratum-sizes`. Without `--seed`, noise and seeds are drawn from the operating system's
 * CSPRNG (a seeded run is for studies only). Bad input exits 2 and writes nothing.
 *
 * @module
 */
import { basename, dirname, extname } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { formatCsv, readCsv } from "../data/csv.ts";
import type { Dataset } from "../data/dataset.ts";
import { writeFilesAtomically } from "../data/write_files.ts";
import { type SurveyTable, surveyTable, tableColumns, tableInput } from "../survey/tables.ts";
import { Rng } from "../random/rng.ts";
import type { CombinedTable } from "../survey/combine.ts";
import { laplaceTable, secureRelease, seededRelease } from "../survey/laplace_baseline.ts";
import { syntheticTable } from "../survey/synthetic_tables.ts";
import { progressLine } from "./progress.ts";
import { runCommand, UsageError } from "./run_command.ts";
import { parseStratumSizes } from "./stratum_sizes.ts";

/** The table methods the command accepts (SPEC §8; the survey paper's §2). */
export const TABLE_METHOD_NAMES = ["sample", "fbs", "fbp", "laplace"] as const;

/** The value columns of the output, after the two grouping columns. */
const VALUE_COLUMNS = ["count", "countSE", "mean", "meanSE"];

/** The options of `deno task tabulate`, validated. */
export const TabulateOptions = z.object({
  data: z.string().min(1),
  y: z.string().min(1),
  weight: z.string().min(1),
  strata: z.string().min(1),
  by: z.string().transform((v) => v.split(",").map((name) => name.trim())).refine(
    (names) => names.length === 2 && names.every((name) => name !== ""),
    "must name exactly two columns, e.g. --by field,gender",
  ).refine((names) => names[0] !== names[1], "the two grouping columns must differ").refine(
    (names) => names.every((name) => !VALUE_COLUMNS.includes(name)),
    `a grouping column cannot be named ${VALUE_COLUMNS.join(", ")}`,
  ).transform((names) => [names[0], names[1]] as const),
  method: z.enum(TABLE_METHOD_NAMES).default("sample"),
  epsilon: z.coerce.number().positive().finite().optional(),
  m: z.coerce.number().int().positive().max(1000).optional(),
  seed: z.coerce.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  stratumSizes: z.record(z.string(), z.number()).optional(),
  draws: z.coerce.number().int().min(4).max(1_000_000).optional(),
  chains: z.coerce.number().int().min(1).max(64).optional(),
  warmup: z.coerce.number().int().min(10).max(100_000).optional(),
  out: z.string().refine(
    (path) => [".csv", ".json"].includes(extname(path).toLowerCase()),
    "must end in .csv or .json",
  ),
}).strict();

/** The validated options. */
export type TabulateOptions = z.infer<typeof TabulateOptions>;

/** A table method: the sample's data and the command's options to the table it releases. */
export type TableMethod = (data: Dataset, options: TabulateOptions) => Promise<SurveyTable>;

/**
 * `sample`: the confidential sample's own table, N̂ = Σ w·1_cell and μ̂ = Σ w·y·1_cell/N̂ with
 * Taylor-linearised SEs for the design stratified by --strata, sampled with replacement.
 */
function sampleMethod(data: Dataset, options: TabulateOptions): Promise<SurveyTable> {
  return Promise.resolve(surveyTable(tableInput(data, options)));
}

function requireEpsilon(options: TabulateOptions): number {
  if (options.epsilon === undefined) {
    throw new UsageError(`--epsilon: required by --method ${options.method}`);
  }
  return options.epsilon;
}

/** `laplace`: the survey paper's Laplace baseline at total ε (secure noise unless seeded). */
function laplaceMethod(data: Dataset, options: TabulateOptions): Promise<SurveyTable> {
  const epsilon = requireEpsilon(options);
  const seeded = options.seed !== undefined;
  const rng = new Rng(options.seed ?? freshSeed());
  const table = laplaceTable(tableInput(data, options), {
    epsilon,
    rng,
    release: seeded ? seededRelease(rng.split(1)) : secureRelease,
  });
  console.error(
    `tabulate: laplace, ε = ${epsilon} (local DP; ε_pc = ${table.epsilonPoint}, ε_rep = ` +
      `${table.epsilonReplicate})${seeded ? "; seeded noise: for studies only" : ""}`,
  );
  return Promise.resolve(table);
}

/** `fbs` and `fbp`: combined tables of m synthetic samples at total ε. */
function syntheticMethod(method: "fbs" | "fbp"): TableMethod {
  return async (data, options) => {
    if (method === "fbp" && options.stratumSizes === undefined) {
      throw new UsageError(
        "--stratum-sizes: the fbp model needs the public population size of every stratum",
      );
    }
    const progress = new Map<string, ReturnType<typeof progressLine>>();
    const { table, report } = await syntheticTable(data, {
      ...options,
      method,
      epsilon: requireEpsilon(options),
      m: options.m ?? 3,
      onProgress: (stage, done, total) => {
        if (!progress.has(stage)) progress.set(stage, progressLine(`${method}: ${stage}`));
        progress.get(stage)!(done, total);
      },
    });
    console.error(
      `tabulate: ${method}, m = ${report.m}, Δ = ${report.lipschitz}, ε = ${report.epsilon} ` +
        `(${report.guarantee})`,
    );
    return table;
  };
}

function freshSeed(): number {
  const [high, low] = crypto.getRandomValues(new Uint32Array(2));
  return (high & 0x1fffff) * 2 ** 32 + low;
}

/** The table methods, by name. */
export const TABLE_METHODS: ReadonlyMap<string, TableMethod> = new Map([
  ["sample", sampleMethod],
  ["laplace", laplaceMethod],
  ["fbs", syntheticMethod("fbs")],
  ["fbp", syntheticMethod("fbp")],
]);

/**
 * Formats a table as CSV text or as a JSON array of row objects (NaN becomes null).
 *
 * @param table The table.
 * @param format "csv" or "json".
 */
export function formatTable(table: SurveyTable, format: "csv" | "json"): string {
  const columns = tableColumns(table);
  if ("m" in table) {
    const combined = table as CombinedTable;
    columns.set("countDf", combined.countDf);
    columns.set("countLower", combined.countLower);
    columns.set("countUpper", combined.countUpper);
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

async function main(): Promise<void> {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({
      args: Deno.args,
      options: Object.fromEntries(
        [
          "data",
          "y",
          "weight",
          "strata",
          "by",
          "method",
          "epsilon",
          "m",
          "seed",
          "stratum-sizes",
          "draws",
          "chains",
          "warmup",
          "out",
        ].map(
          (name) => [name, { type: "string" as const }],
        ),
      ),
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { "stratum-sizes": sizes, ...rest } = values;
  const options = TabulateOptions.parse({
    ...rest,
    ...(sizes === undefined
      ? {}
      : { stratumSizes: parseStratumSizes("stratum-sizes", String(sizes)) }),
  });
  const method = TABLE_METHODS.get(options.method)!;
  const data = await readCsv(options.data);
  const table = await method(data, options);
  const format = extname(options.out).toLowerCase() === ".csv" ? "csv" : "json";
  await writeFilesAtomically(
    dirname(options.out),
    new Map([[basename(options.out), formatTable(table, format)]]),
  );
  console.log(`tabulate: wrote ${table.count.length} cells to ${options.out}`);
}

if (import.meta.main) await runCommand("tabulate", main);
