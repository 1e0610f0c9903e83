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
import { z } from "zod";
import { readCsv } from "../data/csv.ts";
import { writeFilesAtomically } from "../data/write_files.ts";
import {
  formatTable,
  releaseTable,
  TableSettings,
  VALUE_COLUMNS,
} from "../survey/table_methods.ts";
import { progress } from "./progress.ts";
import { runCommand, stringFlags, UsageError } from "./run_command.ts";
import { parseStratumSizes } from "./stratum_sizes.ts";

/** The options of `deno task tabulate`, validated. */
export const TabulateOptions = TableSettings.extend({
  data: z.string().min(1),
  by: z.string().transform((v) => v.split(",").map((name) => name.trim())).refine(
    (names) => names.length === 2 && names.every((name) => name !== ""),
    "must name exactly two columns, e.g. --by field,gender",
  ).refine((names) => names[0] !== names[1], "the two grouping columns must differ").refine(
    (names) => names.every((name) => !(VALUE_COLUMNS as readonly string[]).includes(name)),
    `a grouping column cannot be named ${VALUE_COLUMNS.join(", ")}`,
  ).transform((names) => [names[0], names[1]] as const),
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
  if (options.method === "fbp" && options.stratumSizes === undefined) {
    throw new UsageError(
      "--stratum-sizes: the fbp model needs the public population size of every stratum",
    );
  }
}

async function main(): Promise<void> {
  const { "stratum-sizes": sizes, ...rest } = stringFlags(Deno.args, [
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
  ]);
  const options = TabulateOptions.parse({
    ...rest,
    ...(sizes === undefined
      ? {}
      : { stratumSizes: parseStratumSizes("stratum-sizes", String(sizes)) }),
  });
  checkOptions(options);
  const data = await readCsv(options.data);
  const shown = progress(options.method);
  const { table, privacy, report } = await releaseTable(data, options, {
    onProgress: shown.update,
  }).finally(() => shown.end());
  if (options.method === "laplace") {
    console.error(
      `tabulate: laplace, ε = ${privacy!.epsilon} (local DP; ε_pc = ${privacy!.epsilonPoint}, ` +
        `ε_rep = ${privacy!.epsilonReplicate})` +
        `${options.seed !== undefined ? "; seeded noise: for studies only" : ""}`,
    );
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
