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
 * With `--schema S.json` the whole file is synthesised instead (`--y all`, the latent class
 * model; see `synth_file.ts`).
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
import { parseDecimal } from "../data/decimal.ts";
import { writeFilesAtomically } from "../data/write_files.ts";
import { synthesisPlan } from "../synthesis/plan.ts";
import { releaseBundle, releaseFiles } from "../synthesis/release_bundle.ts";
import { SynthesisSpec } from "../synthesis/spec.ts";
import { synthesize } from "../synthesis/synthesize.ts";
import { progress } from "./progress.ts";
import { parseFlags, runCommand, UsageError } from "./run_command.ts";
import { parseStratumSizes } from "./stratum_sizes.ts";
import { isFileRequest, synthFile } from "./synth_file.ts";

/** Command-line flag → spec field, and whether the value is a number. */
const FLAGS: Record<
  string,
  {
    field: string;
    number?: true;
    list?: true;
    sizes?: true;
    outcomes?: true;
    models?: true;
    levels?: true;
  }
> = {
  y: { field: "y", outcomes: true },
  x: { field: "x", list: true },
  model: { field: "model", outcomes: true },
  missing: { field: "missing" },
  levels: { field: "levels", levels: true },
  prior: { field: "prior" },
  "utility-model": { field: "utilityModels", models: true },
  weight: { field: "weight" },
  strata: { field: "strata" },
  "stratum-sizes": { field: "stratumSizes", sizes: true },
  mechanism: { field: "mechanism" },
  epsilon: { field: "epsilon", number: true },
  m: { field: "m", number: true },
  c: { field: "c", number: true },
  g: { field: "g", number: true },
  radius: { field: "radius", number: true },
  "radius-mode": { field: "radiusMode" },
  "match-lipschitz": { field: "matchLipschitz", number: true },
  retruncations: { field: "retruncations", number: true },
  lower: { field: "lower", number: true },
  upper: { field: "upper", number: true },
  bins: { field: "bins", number: true },
  draws: { field: "draws", number: true },
  chains: { field: "chains", number: true },
  warmup: { field: "warmup", number: true },
  seed: { field: "seed", number: true },
  backend: { field: "backend" },
  sampler: { field: "sampler" },
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
 * Parses the command line into the data path, the output folder and a synthesis request.
 *
 * @param args The arguments after the command.
 */
export function parseSynthArgs(args: string[]): { data: string; out: string; spec: SynthesisSpec } {
  const values = parseFlags({
    args,
    options: {
      ...Object.fromEntries(
        ["data", "out", ...Object.keys(FLAGS)].map((name) => [name, { type: "string" as const }]),
      ),
      report: { type: "boolean" as const },
      "allow-flagged": { type: "boolean" as const },
    },
  }).values as Record<string, string | undefined>;
  if (!values.data) throw new UsageError("--data: required (the confidential CSV file)");
  if (!values.out) throw new UsageError("--out: required (the output folder)");
  const raw: Record<string, unknown> = {};
  for (
    const [flag, { field, number, list, sizes, outcomes, models, levels }] of Object.entries(FLAGS)
  ) {
    const value = values[flag];
    if (value === undefined) continue;
    if (sizes) {
      raw[field] = parseStratumSizes(flag, value);
    } else if (number) {
      const parsed = parseDecimal(value);
      if (!Number.isFinite(parsed)) throw new UsageError(`--${flag}: not a finite decimal number`);
      raw[field] = parsed;
    } else if (levels) {
      raw[field] = parseLevels(flag, value);
    } else if (models) {
      // Utility models, `;`-separated: `--utility-model "b ~ x + a; a ~ x"`.
      raw[field] = value.split(";").map((model) => model.trim()).filter((model) => model !== "");
    } else if (outcomes && value.includes(",")) {
      // Several outcomes (and one model each): `--y A,B --model m1,m2`.
      raw[field] = value.split(",").map((name) => name.trim());
    } else {
      raw[field] = list ? value.split(",").filter((name) => name !== "") : value;
    }
  }
  if ((values as Record<string, unknown>).report === true) raw.report = true;
  if ((values as Record<string, unknown>)["allow-flagged"] === true) raw.allowFlagged = true;
  const parsed = SynthesisSpec.safeParse(raw);
  if (!parsed.success) {
    const fieldToFlag = Object.fromEntries(
      Object.entries(FLAGS).map(([flag, { field }]) => [field, flag]),
    );
    throw new UsageError(
      parsed.error.issues.map((issue) => {
        const field = String(issue.path[0] ?? "options");
        return `--${fieldToFlag[field] ?? field}: ${issue.message}`;
      }).join("; "),
    );
  }
  return { data: values.data, out: values.out, spec: parsed.data };
}

async function main(): Promise<void> {
  if (isFileRequest(Deno.args)) return await synthFile(Deno.args);
  const { data: path, out, spec } = parseSynthArgs(Deno.args);
  // The request normalised once (one's own data: "auto" may choose either guarantee).
  const plan = synthesisPlan(spec);
  const data = await readCsv(path);
  const shown = progress("fit");
  const result = await synthesize(data, plan, {
    onNote: (line) => {
      shown.end();
      console.error(line);
    },
    onProgress: shown.update,
  }).finally(() => shown.close());
  const files = releaseFiles(releaseBundle({ kind: "synthesis", result, plan }));
  await writeFilesAtomically(out, files);
  const { report } = result;
  console.log(
    `synth: ${report.mechanism}, ${report.model}, n=${report.n}, m=${report.m}: ` +
      `Δ=${report.lipschitz ?? "n/a"}, ε=${report.epsilon} (${report.guarantee}); wrote ${out}/`,
  );
  if (result.diagnostics.missingDropped !== undefined) {
    console.error(
      `synth: --missing drop: removed ${result.diagnostics.missingDropped} record(s) with a ` +
        "missing value",
    );
  }
  if (result.report.fitFlagged) {
    console.error(
      "synth: warning: --allow-flagged: the final fit failed its diagnostics (R̂ > 1.01, bulk " +
        "ESS < 400 or a divergence), so Δ and ε are not established; report.json says " +
        "fitFlagged: true",
    );
  }
}

if (import.meta.main) await runCommand("synth", main);
