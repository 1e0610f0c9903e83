/**
 * `deno task tabulate`: survey tables (SPEC §8) from a weighted sample: counts and mean outcomes
 * with their standard errors for every cell of a two-way classification, both margins and the
 * grand total (27 cells for field × gender).
 *
 *     deno task tabulate --data FILE.csv --y salary --weight w --strata field --by field,gender
 *       [--method sample|fbs|fbp|laplace] [--epsilon E] [--m M] [--seed N]
 *       [--y-bounds LO,HI --weight-bounds LO,HI] [--stratum-sizes LABEL=N,…] [--draws S]
 *       [--chains K] [--warmup W] [--estimates counts-and-means|means] --out FILE.csv|FILE.json
 *
 * Writes one row per cell with the two grouping columns (labels from the data, "all" for a
 * margin) and `count`, `countSE`, `mean`, `meanSE`, as CSV or as a JSON array of row objects
 * (by the extension of --out), atomically. `--method sample` tabulates the confidential sample
 * itself (Taylor-linearised SEs for the stratified with-replacement design). `laplace` adds
 * Laplace noise with local sensitivities and random-group replicate SEs at total ε (survey
 * paper §2.4: local DP); with `--y-bounds` and `--weight-bounds` (both or neither) it clamps the
 * outcome and the weights to them and scales the noise to the bounds instead (ε-DP, ε/8 per
 * cell, no standard errors). Numbers are plain decimals (`0x10` is refused, not read as 16). `fbs` and `fbp` synthesise m samples with the pseudo posterior calibrated to ε
 * (LW weights) and combine their tables (partial-synthesis rules), adding `countDf`,
 * `countLower`, `countUpper`, `meanDf`, `meanLower`, `meanUpper`; `fbp` needs the public
 * `--stratum-sizes`, and so do `fbs` counts and totals (its synthetic weights are scaled to their
 * total; unscaled, Σ w* is the lognormal's median, about 10 % low): without them `fbs` is refused
 * unless `--estimates means` asks for the means alone (ratios, free of the weights' scale).
 * `--estimates means` leaves the count columns out of any method's table. Without `--seed`,
 * noise and seeds are drawn from the operating system's CSPRNG (a seeded run is for studies only). Bad input exits 2 and writes nothing.
 *
 * @module
 */
import { basename, dirname, extname } from "node:path";
import { z } from "zod";
import { readCsv } from "../data/csv.ts";
import { parseDecimal } from "../data/decimal.ts";
import { writeFilesAtomically } from "../data/write_files.ts";
import { TableSpec } from "../jobs/table_request.ts";
import {
  formatTable,
  missingStratumSizes,
  runTableMethod,
  TableBounds,
} from "../survey/table_methods.ts";
import { progress } from "./progress.ts";
import { runCommand, stringFlags, UsageError } from "./run_command.ts";
import { parseStratumSizes } from "./stratum_sizes.ts";

/**
 * The options of `deno task tabulate`, validated: the API's table request ({@linkcode TableSpec},
 * field for field) with `by` given as `A,B`, the method defaulting to `sample`, and the input and
 * output paths.
 */
export const TabulateOptions = TableSpec.omit({ by: true, method: true }).extend({
  data: z.string().min(1),
  by: z.string().transform((v) => v.split(",").map((name) => name.trim())).refine(
    (names) => names.length === 2 && names.every((name) => name !== ""),
    "must name exactly two columns, e.g. --by field,gender",
  ).transform((names) => [names[0], names[1]] as const).pipe(TableSpec.shape.by),
  method: TableSpec.shape.method.default("sample"),
  out: z.string().refine(
    (path) => [".csv", ".json"].includes(extname(path).toLowerCase()),
    "must end in .csv or .json",
  ),
}).strict();

/** The validated options. */
export type TabulateOptions = z.infer<typeof TabulateOptions>;

/** Refuses a method's missing settings by their flags (the library names them too). */
function checkOptions(options: TabulateOptions): void {
  if (options.method !== "sample" && options.epsilon === undefined) {
    throw new UsageError(`--epsilon: required by --method ${options.method}`);
  }
  const missing = missingStratumSizes(options);
  if (missing === "fbp") {
    throw new UsageError(
      "--stratum-sizes: the fbp model needs the public population size of every stratum",
    );
  }
  if (missing === "fbs-counts") {
    throw new UsageError(
      "--stratum-sizes: fbs counts and totals need the public population size of every " +
        "stratum (without them the synthetic weights have no declared scale and their totals " +
        "fall about 10% low); give --stratum-sizes, or --estimates means for the means alone",
    );
  }
}

/** The numeric flags, read with `parseDecimal` (a plain decimal, never hex or blank). */
const NUMBER_FLAGS = ["epsilon", "m", "seed", "draws", "chains", "warmup"] as const;

/** `LO,HI` as two plain decimals, or a UsageError naming the flag. */
function parseRange(flag: string, value: string): [number, number] {
  const parts = value.split(",").map(parseDecimal);
  if (parts.length !== 2 || parts.some((part) => !Number.isFinite(part))) {
    throw new UsageError(`--${flag}: expected LO,HI (two finite decimal numbers)`);
  }
  return [parts[0], parts[1]];
}

/**
 * Parses the command line into validated options: numbers as plain decimals (a UsageError
 * naming the flag otherwise), `--y-bounds` and `--weight-bounds` both or neither and only with
 * `--method laplace`.
 *
 * @param args The command line.
 * @returns The options; throws a UsageError or a ZodError naming the flag.
 */
export function parseTabulateArgs(args: string[]): TabulateOptions {
  const {
    "stratum-sizes": sizes,
    "y-bounds": yBounds,
    "weight-bounds": weightBounds,
    ...rest
  } = stringFlags(args, [
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
    "y-bounds",
    "weight-bounds",
    "draws",
    "chains",
    "warmup",
    "estimates",
    "out",
  ]);
  const raw: Record<string, unknown> = { ...rest };
  for (const flag of NUMBER_FLAGS) {
    if (rest[flag] === undefined) continue;
    const value = parseDecimal(rest[flag]);
    if (Number.isNaN(value)) throw new UsageError(`--${flag}: not a decimal number`);
    raw[flag] = value;
  }
  if (sizes !== undefined) raw.stratumSizes = parseStratumSizes("stratum-sizes", String(sizes));
  if ((yBounds === undefined) !== (weightBounds === undefined)) {
    const missing = yBounds === undefined ? "y-bounds" : "weight-bounds";
    throw new UsageError(
      `--${missing}: the bounded Laplace table needs both --y-bounds and --weight-bounds`,
    );
  }
  if (yBounds !== undefined && weightBounds !== undefined) {
    if ((rest.method ?? "sample") !== "laplace") {
      throw new UsageError("--y-bounds: only --method laplace takes bounds");
    }
    const bounds = {
      y: parseRange("y-bounds", yBounds),
      weight: parseRange("weight-bounds", weightBounds),
    };
    const checked = TableBounds.safeParse(bounds);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new UsageError(
        `--${issue.path[0] === "y" ? "y-bounds" : "weight-bounds"}: ${issue.message}`,
      );
    }
    raw.bounds = checked.data;
  }
  return TabulateOptions.parse(raw);
}

/** The command on `args` (exported for the tests to run it in-process, `commandFailure`). */
export async function main(args: string[] = Deno.args): Promise<void> {
  const options = parseTabulateArgs(args);
  checkOptions(options);
  const data = await readCsv(options.data);
  const shown = progress(options.method);
  const { table, privacy, report, clamped } = await runTableMethod(data, options, {
    onProgress: shown.update,
  }).finally(() => shown.end());
  if (options.method === "laplace") {
    const split = options.bounds === undefined
      ? `local DP; ε_pc = ${privacy!.epsilonPoint}, ε_rep = ${privacy!.epsilonReplicate}`
      : `DP with the declared bounds; ε_pc = ${privacy!.epsilonPoint}, no standard errors`;
    console.error(
      `tabulate: laplace, ε = ${privacy!.epsilon} (${split})` +
        `${options.seed !== undefined ? "; seeded noise: for studies only" : ""}`,
    );
    if (clamped !== undefined) {
      const counts = Object.entries(clamped).map(([name, count]) => `${name} ${count}`);
      console.error(`tabulate: values clamped to the bounds: ${counts.join(", ")}`);
    }
  } else if (report !== null) {
    console.error(
      `tabulate: ${options.method}, m = ${report.m}, Δ = ${report.lipschitz}, ` +
        `ε = ${report.epsilon} (${report.guarantee})`,
    );
  }
  const format = extname(options.out).toLowerCase() === ".csv" ? "csv" : "json";
  await writeFilesAtomically(
    dirname(options.out),
    new Map([[basename(options.out), formatTable(table, format)]]),
  );
  console.log(`tabulate: wrote ${table.count.length} cells to ${options.out}`);
}

if (import.meta.main) await runCommand("tabulate", main);
