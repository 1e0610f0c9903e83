/**
 * `deno task study`: the papers' Monte Carlo studies (SPEC §9.1–9.3) at full size.
 *
 *     deno task study contraction|reweight|five|survey|real_file [--replicates R] [--seed N]
 *       [--out DIR] [--workers W] [--queue redis://…] [--render] [--sampler nuts|gpu-hmc]
 *       [--backend cpu|gpu]
 *
 * Writes DIR/<name>.json (settings, per-replicate records, their aggregate and the report's
 * document with its verdicts: a pure function of the name, R and the seed) and DIR/<name>.md (the
 * document through the study's template, with the wall time in a footer), both
 * or neither; DIR defaults to docs/studies/. Replicates run W at a time in worker threads
 * (default: the number of logical cores; 0 runs them in this thread); W never changes the JSON.
 * With `--queue` the replicates fan out to `deno task worker` processes on that Redis instead,
 * and the result is the same, byte for byte. Progress (replicate k of R, stage) goes to stderr.
 * `--render` runs nothing: it decides the document again from the committed DIR/<name>.json's
 * records and writes both files again (the old footer's wall time is kept), after a change to how
 * a study reports or decides its verdicts. `--sampler gpu-hmc` runs every fit as the GPU's
 * many-chain HMC (64 chains, the same warmup, at least as many draws; issue 27's batch
 * simulation on the GPU), and `--backend gpu` every Lipschitz bound on the GPU's kernels (the
 * CPU's Δ bit for bit), each recorded in the settings.
 *
 * @module
 */
import { parseDecimal } from "../data/decimal.ts";
import { writeFilesAtomically } from "../data/write_files.ts";
import { STUDIES } from "../studies/registry.ts";
import { studyMarkdown, withDocument } from "../studies/study_report.ts";
import { runStudy, type SamplerSettings, studyJson, writeStudy } from "../studies/study_runner.ts";
import { parseFlags, runCommand, UsageError } from "./run_command.ts";
import { runStudyCommandOnQueue } from "./study_queue.ts";

/** The study names `deno task study` accepts. */
export type StudyName = keyof typeof STUDIES;

/** A parsed `deno task study` command line. */
export interface StudyArgs {
  readonly name: StudyName;
  readonly replicates: number;
  readonly seed: number;
  readonly out: string;
  readonly workers: number;
  /** The Redis URL to fan replicates out to, or null to run them here. */
  readonly queue: string | null;
  /** Only decide the document again from the existing JSON and write both files. */
  readonly render: boolean;
  /** "gpu-hmc": every fit on the GPU (`SamplerSettings.sampler`); "nuts": the CPU (default). */
  readonly sampler: "nuts" | "gpu-hmc";
  /** "gpu": every Lipschitz bound on the GPU (`SamplerSettings.backend`); "cpu" (default). */
  readonly backend: "cpu" | "gpu";
}

function integerFlag(flag: string, value: string | undefined, fallback: number, min: number) {
  if (value === undefined) return fallback;
  const parsed = parseDecimal(value);
  if (!Number.isSafeInteger(parsed) || parsed < min) {
    throw new UsageError(`--${flag}: must be an integer ≥ ${min}`);
  }
  return parsed;
}

function samplerFlag(value: string | undefined): "nuts" | "gpu-hmc" {
  if (value === undefined || value === "nuts" || value === "gpu-hmc") return value ?? "nuts";
  throw new UsageError(`--sampler: must be nuts or gpu-hmc: got ${value}`);
}

function backendFlag(value: string | undefined): "cpu" | "gpu" {
  if (value === undefined || value === "cpu" || value === "gpu") return value ?? "cpu";
  throw new UsageError(`--backend: must be cpu or gpu: got ${value}`);
}

/**
 * Parses the command line: the study name, then --replicates (default the study's full-size R:
 * 100, or 1 for real_file), --seed (default 1),
 * --out (default docs/studies) and --workers (default the logical cores).
 *
 * @param args The arguments after the command.
 */
export function parseStudyArgs(args: string[]): StudyArgs {
  const parsed = parseFlags({
    args,
    allowPositionals: true,
    options: {
      replicates: { type: "string" },
      seed: { type: "string" },
      out: { type: "string" },
      workers: { type: "string" },
      queue: { type: "string" },
      render: { type: "boolean" },
      sampler: { type: "string" },
      backend: { type: "string" },
    },
  });
  const names = Object.keys(STUDIES);
  const [name, ...rest] = parsed.positionals;
  if (name === undefined || !names.includes(name) || rest.length > 0) {
    throw new UsageError(`study: expected one study name, one of ${names.join(", ")}`);
  }
  const { values } = parsed;
  return {
    name: name as StudyName,
    replicates: integerFlag("replicates", values.replicates, STUDIES[name].replicates, 1),
    seed: integerFlag("seed", values.seed, 1, 0),
    out: values.out ?? "docs/studies",
    workers: integerFlag("workers", values.workers, navigator.hardwareConcurrency, 0),
    queue: values.queue ?? null,
    render: values.render ?? false,
    sampler: samplerFlag(values.sampler),
    backend: backendFlag(values.backend),
  };
}

/** The footer of an earlier report (from its "---" line), kept when the report is rendered again. */
const FOOTER = "---\nWall time";

/** `--render`: DIR/<name>.md again from DIR/<name>.json, its earlier footer kept. */
async function render(args: StudyArgs): Promise<void> {
  const { study } = STUDIES[args.name];
  const json = `${args.out}/${args.name}.json`;
  const result = withDocument(study, JSON.parse(await Deno.readTextFile(json)));
  const earlier = await Deno.readTextFile(`${args.out}/${args.name}.md`).catch(() => "");
  const at = earlier.lastIndexOf(FOOTER);
  const footer = at >= 0 ? earlier.slice(at).trimEnd() : "---\nRendered from the JSON.";
  await writeFilesAtomically(
    args.out,
    new Map([
      [`${args.name}.json`, studyJson(result)],
      [`${args.name}.md`, studyMarkdown(study, result, footer)],
    ]),
  );
  console.log(`study: ${args.name}: wrote ${args.out}/${args.name}.md from ${json}`);
}

/**
 * A study's settings with every fit (`--sampler gpu-hmc`) or every Lipschitz bound
 * (`--backend gpu`) on the GPU, as the arguments ask.
 */
function withGpu(args: StudyArgs, settings: unknown): unknown {
  if (args.sampler === "nuts" && args.backend === "cpu") return settings;
  const sampler = (settings as { sampler?: SamplerSettings }).sampler;
  if (sampler === undefined) {
    throw new UsageError(`--sampler, --backend: study ${args.name} has no sampler setting`);
  }
  return {
    ...(settings as object),
    sampler: {
      ...sampler,
      ...(args.sampler === "gpu-hmc" ? { sampler: "gpu-hmc" } : {}),
      ...(args.backend === "gpu" ? { backend: "gpu" } : {}),
    },
  };
}

async function main(): Promise<void> {
  const args = parseStudyArgs(Deno.args);
  if (args.render) return await render(args);
  const { study, settings: defaults } = STUDIES[args.name];
  const settings = withGpu(args, defaults);
  const started = performance.now();
  const minutes = () => ((performance.now() - started) / 60000).toFixed(1);
  const encoder = new TextEncoder();
  let finished = 0;
  const bare = args.queue !== null
    ? await runStudyCommandOnQueue(study, {
      queue: args.queue,
      seed: args.seed,
      replicates: args.replicates,
      settings,
    })
    : await runStudy(study, {
      seed: args.seed,
      replicates: args.replicates,
      settings,
      workers: args.workers,
      onStage: (r, stage) => {
        if (stage === "done") finished++;
        const line = stage === "done"
          ? `[${args.name}] replicate ${r + 1} of ${args.replicates} done ` +
            `(${finished} of ${args.replicates} finished, ${minutes()} min)`
          : `[${args.name}] replicate ${r + 1} of ${args.replicates}: ${stage}`;
        Deno.stderr.writeSync(encoder.encode(line + "\n"));
      },
    });
  const result = withDocument(study, bare);
  const wall = (performance.now() - started) / 1000;
  const footer = `---\nWall time ${(wall / 60).toFixed(1)} min (${wall.toFixed(0)} s) with ` +
    `${
      args.queue !== null
        ? "queue workers"
        : args.workers === 0
        ? "no worker threads"
        : `${args.workers} worker thread(s)`
    } on ` +
    `${navigator.hardwareConcurrency} logical core(s), Deno ${Deno.version.deno} ` +
    "(machine-dependent; not part of the JSON).";
  await writeStudy(args.out, result, studyMarkdown(study, result, footer));
  console.log(
    `study: ${args.name}, R=${args.replicates}, seed=${args.seed}: wrote ` +
      `${args.out}/${args.name}.json and ${args.name}.md in ${(wall / 60).toFixed(1)} min`,
  );
}

if (import.meta.main) await runCommand("study", main);
