/**
 * `deno task synth`: private synthetic data from a CSV file with one mechanism of the papers.
 *
 *     deno task synth --data FILE.csv --y COL[,COL…] [--x COL,COL]
 *       --model MODEL[,MODEL…] [--weight COL]
 *       [--strata COL --stratum-sizes LABEL=N,…]
 *       --mechanism unweighted|lw|cw|sw|lw-final|cw-final|weighted-e|censored|censored-w|histogram|auto
 *       [--epsilon E] [--m M] [--c C --g G] [--radius R] [--radius-mode relative|absolute]
 *       [--match-lipschitz D] [--retruncations N] [--lower A --upper B --bins K] [--draws S]
 *       [--chains K] [--warmup W] [--seed N] [--backend auto|cpu|gpu] [--sampler nuts|gpu-hmc]
 *       [--missing error|drop] [--levels "COL=a|b|c;…"] [--utility-model "A ~ x + B; …"]
 *       [--prior student-t|paper] [--report] [--allow-flagged] --out DIR
 *
 * With `--schema S.json` the whole file is synthesised instead (issue 35):
 *
 *     deno task synth --data F.csv --schema S.json --y all [--x A,B] [--model auto|bayes-net|latent-class]
 *       [--mechanism auto|sw|lw|lw-final|weighted-e|censored|censored-w|unweighted]
 *       --epsilon E [--m M] [--dirichlet A] [--parents P] [--max-cells C] [--classes K]
 *       [--chains C] [--warmup W] [--draws D] [--thin T] [--split-merge N]
 *       [--backend auto|cpu|cpu-parallel|gpu] [--seed N] [--allow-flagged] --out DIR
 *
 * Every column of F.csv is synthesised by the Bayesian network (`--parents`, `--max-cells`; auto
 * but under censoring) or the latent class model (`--classes`, `--warmup`, `--thin`,
 * `--split-merge`) under the owner's declared schema (`deno task schema` drafts one); `--x` names
 * columns released as they are (the network synthesises the others given them, and the records are
 * then put in a random order). It writes the files below (the synthetic files with the input's
 * header, column order and N/A markers) and DIR/utility.json (k-marginal, 3-way marginals, pMSE,
 * per-column TVD, rule violations, weighted totals). A schema with levels or bounds read from the
 * data is used with a warning (they are confidential facts: replace them with public ones before a
 * real release).
 *
 * Both requests are read by their API schemas (`request_flags.ts`: `SynthesisSpec`,
 * `FileSynthesisSpec`), planned by `synthesisPlan` and run by `runPlan`, which bundles the release.
 *
 * MODEL is one of the registry's models (poisson, negbin, beta, normal, lognormal, fbs, fbp,
 * logistic, categorical, hurdle). Several outcomes `--y A,B,C --model mA,mB,mC` are synthesised
 * as the chain p(A | x)·p(B | x, A)·p(C | x, A, B) under one record-level guarantee (SPEC §10).
 *
 * Writes DIR/synthetic-1.csv … synthetic-M.csv (the synthetic outcomes, the public covariates
 * and strata, and for FBS/FBP the smoothed synthetic weights in the weight column), DIR/report.json (the public release manifest) and DIR/diagnostics.json (the
 * owner's confidential evaluation), and with several outcomes, utility models or `--report`
 * DIR/utility.json and DIR/report.html (the owner's release report, self-contained: first the
 * release — mechanism, settings, ε, guarantee, Δ, m, n, the final fit's health — then utility;
 * with several outcomes also the identification risk), all at once or not at all. Bad input exits 2, an
 * unreachable ε or a final fit that fails its diagnostics exits 3 (`--allow-flagged` writes it
 * anyway, with `fitFlagged: true` in report.json and a warning atop report.html); nothing is
 * written then.
 *
 * @module
 */
import { readCsv } from "../data/csv.ts";
import { readFileSchema } from "../data/file_schema.ts";
import { writeFilesAtomically } from "../data/write_files.ts";
import { FileSynthesisSpec } from "../synthesis/file_spec.ts";
import { synthesisPlan } from "../synthesis/plan.ts";
import { releaseFiles } from "../synthesis/release_bundle.ts";
import { type PlanRelease, runPlan } from "../synthesis/run_plan.ts";
import { SynthesisSpec } from "../synthesis/spec.ts";
import { progress } from "./progress.ts";
import { parseRequestFlags } from "./request_flags.ts";
import { runCommand, UsageError } from "./run_command.ts";
import { parseStratumSizes } from "./stratum_sizes.ts";

/** A parsed command line: the paths and the validated request (a whole file names a schema). */
export type SynthCommand =
  | { readonly data: string; readonly out: string; readonly spec: SynthesisSpec }
  | {
    readonly data: string;
    readonly out: string;
    readonly schema: string;
    readonly spec: FileSynthesisSpec;
  };

/**
 * Parses `--levels "race=white|black|other;sex=f|m"`: each text column's declared levels in the
 * order that codes them (the first is a covariate's reference level).
 */
function parseLevels(flag: string, value: string): Record<string, string[]> {
  const declared: Record<string, string[]> = {};
  for (const entry of value.split(";").filter((part) => part.trim() !== "")) {
    const at = entry.indexOf("=");
    const name = entry.slice(0, at).trim();
    if (at < 1 || name === "" || name in declared) {
      throw new UsageError(`--${flag}: expected column=level|level;column=level|… once per column`);
    }
    declared[name] = entry.slice(at + 1).split("|");
  }
  return declared;
}

/**
 * Parses a synthesis's command line into the data path, the output folder and the request.
 *
 * @param args The arguments after the command.
 */
export function parseSynthArgs(args: string[]): { data: string; out: string; spec: SynthesisSpec } {
  const { paths, request } = parseRequestFlags(args, {
    schema: SynthesisSpec,
    paths: { data: "the confidential CSV file", out: "the output folder" },
    omit: ["autoReason"],
    names: { utilityModels: "utility-model" },
    readers: {
      stratumSizes: parseStratumSizes,
      levels: parseLevels,
      // Utility models, `;`-separated: `--utility-model "b ~ x + a; a ~ x"`.
      utilityModels: (_, value) =>
        value.split(";").map((model) => model.trim()).filter((model) => model !== ""),
    },
  });
  return { data: paths.data, out: paths.out, spec: request };
}

/**
 * Parses the command line: a whole-file request when it names a schema, a synthesis otherwise.
 *
 * @param args The arguments after the command.
 */
export function parseSynthCommand(args: string[]): SynthCommand {
  if (!args.some((arg) => arg === "--schema" || arg.startsWith("--schema="))) {
    return parseSynthArgs(args);
  }
  const { paths, request } = parseRequestFlags(args, {
    schema: FileSynthesisSpec,
    paths: {
      data: "the confidential CSV file",
      schema: "the declared file schema",
      out: "the output folder",
    },
  });
  return { data: paths.data, schema: paths.schema, out: paths.out, spec: request };
}

/** The command on `args` (exported for the tests to run it in-process, `commandFailure`). */
export async function main(args: string[] = Deno.args): Promise<void> {
  const command = parseSynthCommand(args);
  const release = "schema" in command ? await fileRun(command) : await synthesisRun(command);
  await writeFilesAtomically(command.out, releaseFiles(release.bundle));
  summarise(release, command.out);
}

/** Plans and runs a synthesis (one's own data: "auto" may choose either guarantee). */
async function synthesisRun(command: { data: string; spec: SynthesisSpec }): Promise<PlanRelease> {
  const plan = synthesisPlan(command.spec);
  const data = await readCsv(command.data);
  const shown = progress("fit");
  return await runPlan(data, {
    plan,
    options: {
      onNote: (line) => {
        shown.end();
        console.error(line);
      },
      onProgress: shown.update,
    },
  }).finally(() => shown.close());
}

/** Plans and runs a whole file under its declared schema, one line per stage. */
async function fileRun(
  command: { data: string; schema: string; spec: FileSynthesisSpec },
): Promise<PlanRelease> {
  const plan = synthesisPlan(command.spec);
  const schema = await readFileSchema(command.schema);
  warnDataFacts(schema.columns);
  const data = await readCsv(command.data);
  const started = performance.now();
  return await runPlan(data, {
    plan,
    schema,
    // A fit's sweeps go to the API's progress, not to this log.
    onProgress: (stage, done) => {
      if (done !== undefined) return;
      console.error(`synth: ${((performance.now() - started) / 1000).toFixed(0)} s: ${stage}`);
    },
  });
}

/** Warns of a schema's levels or bounds read from the confidential data (`"source": "data"`). */
function warnDataFacts(columns: readonly { name: string; source?: string }[]): void {
  const fromData = columns.filter((column) => column.source === "data");
  if (fromData.length === 0) return;
  console.error(
    `synth: warning: the schema's levels or bounds of ${
      fromData.map((c) => c.name).join(", ")
    } were read from the confidential data ("source": "data"); the release's shape then ` +
      "depends on them: declare public levels and bounds before a real release",
  );
}

/** The release's line on stdout, and its notes (records dropped, a flagged fit) on stderr. */
function summarise(release: PlanRelease, out: string): void {
  const { report } = release.result;
  const head = `synth: ${report.mechanism}, ${report.model}, n=${report.n}, m=${report.m}`;
  if (release.kind === "file") {
    const utility = release.bundle.utility!;
    console.log(
      `${head}, ${report.columns!.length} columns: Δ=${report.lipschitz}, ε=${report.epsilon} ` +
        `(${report.guarantee}); k-marginal ${utility.map((u) => u.kMarginal).join(", ")}; ` +
        `wrote ${out}/`,
    );
    if (report.fitFlagged) {
      console.error(
        "synth: warning: --allow-flagged: the final fit failed its label-invariant checks " +
          "(R̂ > 1.01 or bulk ESS < 400), so Δ and ε are not established",
      );
    }
    return;
  }
  console.log(
    `${head}: Δ=${report.lipschitz ?? "n/a"}, ε=${report.epsilon} (${report.guarantee}); ` +
      `wrote ${out}/`,
  );
  const { missingDropped } = release.result.diagnostics;
  if (missingDropped !== undefined) {
    console.error(
      `synth: --missing drop: removed ${missingDropped} record(s) with a missing value`,
    );
  }
  if (report.fitFlagged) {
    console.error(
      "synth: warning: --allow-flagged: the final fit failed its diagnostics (R̂ > 1.01, bulk " +
        "ESS < 400 or a divergence), so Δ and ε are not established; report.json says " +
        "fitFlagged: true",
    );
  }
}

if (import.meta.main) await runCommand("synth", main);
