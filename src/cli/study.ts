/**
 * `deno task study`: every study of the registry (`src/studies/registry.ts`) through one command
 * — the papers' Monte Carlo studies (SPEC §9.1–9.4), the real file, the frontier and the design
 * release (`deno task real-file`, `frontier` and `design-release` are this command under their
 * earlier names).
 *
 *     deno task study NAME [--out DIR] [--render] [the study's own flags]
 *     deno task study contraction|reweight|five|survey|real_file [--replicates R] [--seed N]
 *       [--workers W] [--queue redis://…] [--sampler nuts|gpu-hmc] [--backend cpu|gpu]
 *
 * A Monte Carlo study writes DIR/<name>.json (settings, per-replicate records, their aggregate and
 * the report's document with its verdicts: a pure function of the name, R, the seed and the
 * study's own flags) and DIR/<name>.md (the document through the study's template, with the wall
 * time in a footer), both or neither; DIR defaults to docs/studies/. Replicates run W at a time in
 * worker threads (default: the number of logical cores; 0 runs them in this thread); W never
 * changes the JSON. With `--queue` the replicates fan out to `deno task worker` processes on that
 * Redis instead, and the result is the same, byte for byte. Progress (replicate k of R, stage)
 * goes to stderr; a one-replicate run's footer also times each of its arms. `--sampler gpu-hmc`
 * runs every fit as the GPU's many-chain HMC (64 chains, the same warmup, at least as many draws;
 * issue 27), and `--backend gpu` every Lipschitz bound on the GPU's kernels (the CPU's Δ bit for
 * bit), each recorded in the settings. The real file's own flags make a reduced run: `--every K
 * --draws S --warmup W --m M --epsilons 5,10,20`.
 *
 * A study run once (frontier, design_release) writes the files of its `SingleRunStudy`
 * (`src/studies/frontier.ts`, `design_release.ts`), with its own flags.
 *
 * `--render` runs nothing: it decides the document again from the committed DIR/<name>.json and
 * writes the study's files again (the old footer kept), after a change to how a study reports or
 * decides its verdicts.
 *
 * @module
 */
import { parseDecimal } from "../data/decimal.ts";
import { writeFilesAtomically } from "../data/write_files.ts";
import {
  type RegisteredStudy,
  SINGLE_RUN_STUDIES,
  STUDIES,
  STUDY_NAMES,
} from "../studies/registry.ts";
import type { StudyFlags, StudyFlagValues } from "../studies/study.ts";
import { footerOf } from "../studies/study_document.ts";
import { studyMarkdown, withDocument } from "../studies/study_report.ts";
import { runStudy, type SamplerSettings, studyJson, writeStudy } from "../studies/study_runner.ts";
import { progress } from "./progress.ts";
import { parseFlags, runCommand, UsageError } from "./run_command.ts";
import { runStudyCommandOnQueue } from "./study_queue.ts";

/** A parsed `deno task study` command line. */
export interface StudyArgs {
  readonly name: string;
  readonly out: string;
  /** Only decide the document again from the existing JSON and write the files. */
  readonly render: boolean;
  /** The study's own flags as given. */
  readonly values: StudyFlagValues;
  /** A Monte Carlo study's settings: its full-size ones with its own flags and the GPU's. */
  readonly settings: unknown;
  readonly replicates: number;
  readonly seed: number;
  readonly workers: number;
  /** The Redis URL to fan replicates out to, or null to run them here. */
  readonly queue: string | null;
  /** "gpu-hmc": every fit on the GPU (`SamplerSettings.sampler`); "nuts": the CPU (default). */
  readonly sampler: "nuts" | "gpu-hmc";
  /** "gpu": every Lipschitz bound on the GPU (`SamplerSettings.backend`); "cpu" (default). */
  readonly backend: "cpu" | "gpu";
}

/** The flags of every Monte Carlo study. */
const REPLICATE_FLAGS: StudyFlags = {
  replicates: "string",
  seed: "string",
  workers: "string",
  queue: "string",
  sampler: "string",
  backend: "string",
};

function integerFlag(flag: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const parsed = parseDecimal(String(value));
  if (!Number.isSafeInteger(parsed) || parsed < min) {
    throw new UsageError(`--${flag}: must be an integer ≥ ${min}`);
  }
  return parsed;
}

function samplerFlag(value: unknown): "nuts" | "gpu-hmc" {
  if (value === undefined || value === "nuts" || value === "gpu-hmc") return value ?? "nuts";
  throw new UsageError(`--sampler: must be nuts or gpu-hmc: got ${value}`);
}

function backendFlag(value: unknown): "cpu" | "gpu" {
  if (value === undefined || value === "cpu" || value === "gpu") return value ?? "cpu";
  throw new UsageError(`--backend: must be cpu or gpu: got ${value}`);
}

/** Every flag any study takes, by name (a name has one kind across the studies). */
function allFlags(): StudyFlags {
  const flags: Record<string, "string" | "boolean"> = { ...REPLICATE_FLAGS };
  for (const own of [...Object.values(STUDIES), ...Object.values(SINGLE_RUN_STUDIES)]) {
    Object.assign(flags, own.flags);
  }
  return flags;
}

/**
 * A study's settings with every fit (`--sampler gpu-hmc`) or every Lipschitz bound
 * (`--backend gpu`) on the GPU, as asked.
 */
function withGpu(
  name: string,
  settings: unknown,
  sampler: StudyArgs["sampler"],
  backend: StudyArgs["backend"],
): unknown {
  if (sampler === "nuts" && backend === "cpu") return settings;
  const own = (settings as { sampler?: SamplerSettings }).sampler;
  if (own === undefined) {
    throw new UsageError(`--sampler, --backend: study ${name} has no sampler setting`);
  }
  return {
    ...(settings as object),
    sampler: {
      ...own,
      ...(sampler === "gpu-hmc" ? { sampler: "gpu-hmc" } : {}),
      ...(backend === "gpu" ? { backend: "gpu" } : {}),
    },
  };
}

/** A Monte Carlo study's settings with its own flags; their RangeError as a UsageError. */
function ownSettings(entry: RegisteredStudy, values: StudyFlagValues): unknown {
  try {
    return entry.withFlags(entry.settings, values);
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * Parses the command line: the study name; --out (default docs/studies) and --render; a Monte
 * Carlo study's --replicates (default its full-size R: 100, or 1 for real_file), --seed
 * (default 1), --workers (default the logical cores), --queue, --sampler and --backend; and the
 * study's own flags. A flag of another study is a UsageError.
 *
 * @param args The arguments after the command.
 */
export function parseStudyArgs(args: string[]): StudyArgs {
  const flags = allFlags();
  const parsed = parseFlags({
    args,
    allowPositionals: true,
    options: {
      out: { type: "string" },
      render: { type: "boolean" },
      ...Object.fromEntries(Object.entries(flags).map(([flag, type]) => [flag, { type }])),
    },
  });
  const [name, ...rest] = parsed.positionals;
  if (name === undefined || !STUDY_NAMES.includes(name) || rest.length > 0) {
    throw new UsageError(`study: expected one study name, one of ${STUDY_NAMES.join(", ")}`);
  }
  const entry = Object.hasOwn(STUDIES, name) ? STUDIES[name] : null;
  const own = entry?.flags ?? SINGLE_RUN_STUDIES[name].flags;
  const { out, render, ...given } = parsed.values as Record<string, string | boolean | undefined>;
  for (const flag of Object.keys(given)) {
    const replicateFlag = entry !== null && Object.hasOwn(REPLICATE_FLAGS, flag);
    if (!replicateFlag && !Object.hasOwn(own, flag)) {
      throw new UsageError(`--${flag}: not a flag of study ${name}`);
    }
  }
  const values = Object.fromEntries(Object.keys(own).map((flag) => [flag, given[flag]]));
  const sampler = samplerFlag(given.sampler);
  const backend = backendFlag(given.backend);
  return {
    name,
    out: (out as string | undefined) ?? "docs/studies",
    render: render === true,
    values,
    settings: entry === null ? null : withGpu(name, ownSettings(entry, values), sampler, backend),
    replicates: integerFlag("replicates", given.replicates, entry?.replicates ?? 1, 1),
    seed: integerFlag("seed", given.seed, 1, 0),
    workers: integerFlag("workers", given.workers, navigator.hardwareConcurrency, 0),
    queue: (given.queue as string | undefined) ?? null,
    sampler,
    backend,
  };
}

/**
 * The seconds each arm of a one-replicate run took, from its stages: an arm starts at the first
 * stage naming it ("LABEL" or "LABEL: …") and ends where the next arm starts, or at "done".
 */
export class ArmClock {
  readonly seconds = new Map<string, number>();
  #arm: string | null = null;
  #since = 0;

  /** Notes a stage at time `now` (ms). */
  stage(stage: string, now: number): void {
    const arm = stage === "done" ? null : stage.split(": ")[0];
    if (arm === this.#arm) return;
    if (this.#arm !== null) this.seconds.set(this.#arm, (now - this.#since) / 1000);
    this.#arm = arm;
    this.#since = now;
  }
}

/** `--render`: the study's files again from DIR/<name>.json, the earlier footer kept. */
async function render(args: StudyArgs): Promise<void> {
  const { name, out } = args;
  const single = Object.hasOwn(SINGLE_RUN_STUDIES, name) ? SINGLE_RUN_STUDIES[name] : null;
  if (single !== null) {
    const files = await single.render(out);
    await writeFilesAtomically(out, new Map(files));
    console.log(`study: ${name}: wrote ${[...files.keys()].join(", ")} in ${out} from the JSON`);
    return;
  }
  const { study } = STUDIES[name];
  const json = `${out}/${name}.json`;
  const result = withDocument(study, JSON.parse(await Deno.readTextFile(json)));
  const earlier = await Deno.readTextFile(`${out}/${name}.md`).catch(() => "");
  const footer = footerOf(earlier) || "---\nRendered from the JSON.";
  await writeFilesAtomically(
    out,
    new Map([
      [`${name}.json`, studyJson(result)],
      [`${name}.md`, studyMarkdown(study, result, footer)],
    ]),
  );
  console.log(`study: ${name}: wrote ${out}/${name}.md from ${json}`);
}

const encoder = new TextEncoder();
const log = (line: string) => Deno.stderr.writeSync(encoder.encode(line + "\n"));

/** A study run once: its run's files, all or none. */
async function runOnce(args: StudyArgs): Promise<void> {
  const study = SINGLE_RUN_STUDIES[args.name];
  const fits = progress(args.name);
  const { files, message } = await study.run({ values: args.values, out: args.out, log, fits });
  if (files !== null) await writeFilesAtomically(args.out, new Map(files));
  console.log(message);
}

/** A Monte Carlo study: R replicates here or on the queue, then its JSON and markdown. */
async function runReplicates(args: StudyArgs): Promise<void> {
  const { study } = STUDIES[args.name];
  const { settings, replicates, seed } = args;
  const started = performance.now();
  const minutes = (seconds: number) => `${(seconds / 60).toFixed(1)} min`;
  const elapsed = () => (performance.now() - started) / 1000;
  const clock = new ArmClock();
  let finished = 0;
  const bare = args.queue !== null
    ? await runStudyCommandOnQueue(study, { queue: args.queue, seed, replicates, settings })
    : await runStudy(study, {
      seed,
      replicates,
      settings,
      workers: args.workers,
      onStage: (r, stage) => {
        clock.stage(stage, performance.now());
        if (stage === "done") finished++;
        log(
          stage === "done"
            ? `[${args.name}] replicate ${r + 1} of ${replicates} done ` +
              `(${finished} of ${replicates} finished, ${minutes(elapsed())})`
            : `[${args.name}] replicate ${r + 1} of ${replicates}: ${stage}`,
        );
      },
    });
  const result = withDocument(study, bare);
  const wall = elapsed();
  const arms = replicates === 1 && args.queue === null
    ? `: ${[...clock.seconds].map(([arm, s]) => `${arm} ${minutes(s)}`).join(", ")};`
    : " with";
  const threads = args.queue !== null
    ? "queue workers"
    : args.workers === 0
    ? "no worker threads"
    : `${args.workers} worker thread(s)`;
  const footer = `---\nWall time ${minutes(wall)} (${wall.toFixed(0)} s)${arms} ${threads} on ` +
    `${navigator.hardwareConcurrency} logical core(s), Deno ${Deno.version.deno} ` +
    "(machine-dependent; not part of the JSON).";
  await writeStudy(args.out, result, studyMarkdown(study, result, footer));
  console.log(
    `study: ${args.name}, R=${replicates}, seed=${seed}: wrote ` +
      `${args.out}/${args.name}.json and ${args.name}.md in ${minutes(wall)}`,
  );
}

/**
 * The command: parses `args` and runs, or renders, the study they name.
 *
 * @param args The arguments after the command.
 */
export async function studyCommand(args: string[]): Promise<void> {
  const parsed = parseStudyArgs(args);
  if (parsed.render) return await render(parsed);
  if (Object.hasOwn(SINGLE_RUN_STUDIES, parsed.name)) return await runOnce(parsed);
  await runReplicates(parsed);
}

if (import.meta.main) await runCommand("study", () => studyCommand(Deno.args));
