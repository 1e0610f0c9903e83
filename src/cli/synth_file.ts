/**
 * `deno task synth --schema S.json`: a whole file in one release (issue 35).
 *
 *     deno task synth --data F.csv --schema S.json --y all [--x A,B] [--model auto|bayes-net|latent-class]
 *       [--mechanism auto|sw|lw|lw-final|weighted-e|censored|censored-w|unweighted]
 *       --epsilon E [--m M] [--dirichlet A] [--parents P] [--max-cells C] [--classes K]
 *       [--chains C] [--warmup W] [--draws D] [--thin T] [--split-merge N]
 *       [--backend auto|cpu|cpu-parallel|gpu] [--seed N] [--allow-flagged] --out DIR
 *
 * Every column of F.csv is synthesised by the Bayesian network (`--parents`, `--max-cells`; auto
 * but under censoring) or the latent class model (`--classes`, `--warmup`, `--thin`,
 * `--split-merge`) under the owner's declared schema; `--x` names columns released as they are (the
 * network synthesises the others given them, and the records are then put in a random order) (`deno task schema` drafts one). Writes DIR/synthetic-1.csv … synthetic-M.csv (the
 * input's header, column order and N/A markers), DIR/report.json (the public manifest),
 * DIR/diagnostics.json (the owner's: Δ, the fits, the rules' redraws) and DIR/utility.json (the
 * owner's: k-marginal, 3-way marginals, pMSE, per-column TVD, rule violations, weighted totals),
 * all at once or not at all. A schema with levels or bounds read from the data is used with a
 * warning (they are confidential facts: replace them with public ones before a real release).
 *
 * @module
 */
import { readCsv } from "../data/csv.ts";
import { parseDecimal } from "../data/decimal.ts";
import { readFileSchema } from "../data/file_schema.ts";
import { writeFilesAtomically } from "../data/write_files.ts";
import { fileSettings, FileSynthesisSpec } from "../synthesis/file_spec.ts";
import { synthesizeFile } from "../synthesis/file_synthesis.ts";
import { releaseBundle, releaseFiles } from "../synthesis/release_bundle.ts";
import { parseFlags, UsageError } from "./run_command.ts";

const NUMBERS = [
  "epsilon",
  "m",
  "classes",
  "dirichlet",
  "parents",
  "max-cells",
  "chains",
  "warmup",
  "draws",
  "thin",
  "split-merge",
  "seed",
] as const;
const TEXTS = ["y", "model", "mechanism", "backend"] as const;
const LISTS = ["x"] as const;

/** Whether a command line asks for a whole-file release (it names a schema). */
export function isFileRequest(args: readonly string[]): boolean {
  return args.some((arg) => arg === "--schema" || arg.startsWith("--schema="));
}

/**
 * Parses a whole-file command line.
 *
 * @param args The arguments after the command.
 * @returns The data, schema and output paths and the validated request.
 */
export function parseFileArgs(
  args: string[],
): { data: string; schema: string; out: string; spec: FileSynthesisSpec } {
  const values = parseFlags({
    args,
    options: {
      ...Object.fromEntries(
        ["data", "schema", "out", ...NUMBERS, ...TEXTS, ...LISTS].map((name) => [
          name,
          { type: "string" as const },
        ]),
      ),
      "allow-flagged": { type: "boolean" as const },
    },
  }).values as Record<string, string | boolean | undefined>;
  for (const path of ["data", "schema", "out"] as const) {
    if (typeof values[path] !== "string" || values[path] === "") {
      throw new UsageError(`--${path}: required with --schema (a whole-file release)`);
    }
  }
  const raw: Record<string, unknown> = {};
  for (const name of TEXTS) if (values[name] !== undefined) raw[name] = values[name];
  for (const name of LISTS) {
    if (values[name] !== undefined) raw[name] = String(values[name]).split(",");
  }
  for (const name of NUMBERS) {
    if (values[name] === undefined) continue;
    const parsed = parseDecimal(String(values[name]));
    if (!Number.isFinite(parsed)) throw new UsageError(`--${name}: not a finite decimal number`);
    raw[name.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase())] = parsed;
  }
  if (values["allow-flagged"] === true) raw.allowFlagged = true;
  const parsed = FileSynthesisSpec.safeParse(raw);
  if (!parsed.success) {
    throw new UsageError(
      parsed.error.issues.map((issue) =>
        `--${
          String(issue.path[0] ?? "options").replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
        }: ${issue.message}`
      )
        .join("; "),
    );
  }
  return {
    data: values.data as string,
    schema: values.schema as string,
    out: values.out as string,
    spec: parsed.data,
  };
}

/**
 * Runs a whole-file release from the command line and writes its files.
 *
 * @param args The arguments after the command.
 */
export async function synthFile(args: string[]): Promise<void> {
  const { data: path, schema: schemaPath, out, spec } = parseFileArgs(args);
  const schema = await readFileSchema(schemaPath);
  const fromData = schema.columns.filter((column) => column.source === "data");
  if (fromData.length > 0) {
    console.error(
      `synth: warning: the schema's levels or bounds of ${
        fromData.map((c) => c.name).join(", ")
      } were read from the confidential data ("source": "data"); the release's shape then ` +
        "depends on them: declare public levels and bounds before a real release",
    );
  }
  const data = await readCsv(path);
  const started = performance.now();
  const result = await synthesizeFile(data, schema, fileSettings(spec), (stage, done) => {
    // One line per stage (a fit's sweeps go to the API's progress, not to this log).
    if (done !== undefined) return;
    console.error(`synth: ${((performance.now() - started) / 1000).toFixed(0)} s: ${stage}`);
  });
  const bundle = releaseBundle({ kind: "file", result, confidential: data, schema });
  await writeFilesAtomically(out, releaseFiles(bundle));
  const utility = bundle.utility!;
  const { report } = result;
  console.log(
    `synth: ${report.mechanism}, ${report.model}, n=${report.n}, m=${report.m}, ` +
      `${report.columns.length} columns: Δ=${report.lipschitz}, ε=${report.epsilon} ` +
      `(${report.guarantee}); k-marginal ${utility.map((u) => u.kMarginal).join(", ")}; ` +
      `wrote ${out}/`,
  );
  if (report.fitFlagged) {
    console.error(
      "synth: warning: --allow-flagged: the final fit failed its label-invariant checks " +
        "(R̂ > 1.01 or bulk ESS < 400), so Δ and ε are not established",
    );
  }
}
