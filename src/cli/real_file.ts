/**
 * `deno task real-file`: the real public-use file end to end (`docs/studies/real_file.md`), the
 * study `real_file` (`src/studies/real_file.ts`, R = 1) with flags for a reduced run.
 *
 *     deno task real-file [--out DIR] [--every K] [--draws S] [--warmup W] [--m M]
 *       [--epsilons 5,10,20]
 *     deno task real-file --render [--out DIR]
 *
 * Reads examples/nhanes.csv, runs the unweighted synthesizer, LW_final and the perturbed
 * histogram at each ε in this thread, and writes DIR/real_file.json (the study's result: settings,
 * its one record, summary and the report's document; a pure function of the settings) and
 * DIR/real_file.md (the document through the study's template, with the wall time of each arm in
 * a footer), both or neither. DIR defaults to docs/studies/; the other flags make a reduced run
 * (the committed files are the defaults' output, the same as `deno task study real_file
 * --replicates 1`). `--render` decides the document again from DIR/real_file.json and writes
 * both files again, the existing markdown's footer kept, without running anything. On the whole
 * file the report quotes R's table (`test/reference/nhanes_tables_expected.json`, named in the
 * settings). Progress goes to stderr.
 *
 * @module
 */
import { parseDecimal } from "../data/decimal.ts";
import { writeFilesAtomically } from "../data/write_files.ts";
import {
  REAL_FILE_SETTINGS,
  type RealFileRecord,
  type RealFileSettings,
  type RealFileSummary,
  study,
} from "../studies/real_file.ts";
import { studyMarkdown, withDocument } from "../studies/study_report.ts";
import { runStudy, studyJson, writeStudy } from "../studies/study_runner.ts";
import type { StudyResult } from "../studies/study_types.ts";
import { parseFlags, runCommand, UsageError } from "./run_command.ts";

/** The seed of every synthesis (the study's seed). */
const SEED = 1;

function positiveInteger(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = parseDecimal(value);
  if (!Number.isSafeInteger(parsed) || parsed < 1) {
    throw new UsageError(`--${flag}: must be a positive integer`);
  }
  return parsed;
}

/**
 * Parses the command line.
 *
 * @param args The arguments after the command.
 */
export function parseRealFileArgs(args: string[]): {
  out: string;
  render: boolean;
  settings: RealFileSettings;
} {
  const values: Record<string, string | boolean | undefined> = parseFlags({
    args,
    options: {
      ...Object.fromEntries(
        ["out", "every", "draws", "warmup", "epsilons", "m"].map((name) => [name, {
          type: "string" as const,
        }]),
      ),
      render: { type: "boolean" as const },
    },
  }).values;
  const text = (name: string) => values[name] as string | undefined;
  const epsilonsFlag = text("epsilons");
  const epsilons = epsilonsFlag === undefined
    ? REAL_FILE_SETTINGS.epsilons
    : epsilonsFlag.split(",").map((text) => {
      const value = parseDecimal(text.trim());
      if (!(value > 0) || !Number.isFinite(value)) {
        throw new UsageError("--epsilons: positive numbers separated by commas");
      }
      return value;
    });
  return {
    out: text("out") ?? "docs/studies",
    render: values.render === true,
    settings: {
      ...REAL_FILE_SETTINGS,
      epsilons,
      m: positiveInteger("m", text("m"), REAL_FILE_SETTINGS.m),
      draws: positiveInteger("draws", text("draws"), REAL_FILE_SETTINGS.draws),
      warmup: positiveInteger("warmup", text("warmup"), REAL_FILE_SETTINGS.warmup),
      every: positiveInteger("every", text("every"), REAL_FILE_SETTINGS.every),
    },
  };
}

/** The footer of a report: from its last line "---" on. */
export function footerOf(markdown: string): string {
  const at = markdown.lastIndexOf("\n---\n");
  if (at < 0) throw new UsageError("the existing markdown has no footer (a line ---)");
  return markdown.slice(at + 1).trimEnd();
}

/**
 * The seconds each arm took, from the replicate's stages: an arm starts at the first stage
 * naming it ("LABEL" or "LABEL: …") and ends where the next arm starts, or at "done".
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

type RealFileResult = StudyResult<RealFileSettings, RealFileRecord, RealFileSummary>;

const encoder = new TextEncoder();

async function main(): Promise<void> {
  const { out, render, settings } = parseRealFileArgs(Deno.args);
  if (render) {
    const json = `${out}/real_file.json`;
    const result = withDocument(study, JSON.parse(await Deno.readTextFile(json)) as RealFileResult);
    const footer = footerOf(await Deno.readTextFile(`${out}/real_file.md`));
    await writeFilesAtomically(
      out,
      new Map([
        ["real_file.json", studyJson(result)],
        ["real_file.md", studyMarkdown(study, result, footer)],
      ]),
    );
    console.log(`real-file: rewrote ${out}/real_file.md from ${json}`);
    return;
  }
  const started = performance.now();
  const clock = new ArmClock();
  const bare = await runStudy(study, {
    seed: SEED,
    replicates: 1,
    settings,
    workers: 0,
    onStage: (_r, stage) => {
      clock.stage(stage, performance.now());
      if (stage !== "done") Deno.stderr.writeSync(encoder.encode(`[real-file] ${stage}\n`));
    },
  });
  const result = withDocument(study, bare);
  const wall = (performance.now() - started) / 1000;
  const minutes = (s: number) => `${(s / 60).toFixed(1)} min`;
  const arms = [...clock.seconds].map(([arm, s]) => `${arm} ${minutes(s)}`).join(", ");
  const footer = `---\nWall time ${minutes(wall)} (${wall.toFixed(0)} s): ${arms}; on ` +
    `${navigator.hardwareConcurrency} logical core(s), Deno ${Deno.version.deno} ` +
    "(machine-dependent; not part of the JSON).";
  await writeStudy(out, result, studyMarkdown(study, result, footer));
  console.log(`real-file: wrote ${out}/real_file.json and real_file.md in ${minutes(wall)}`);
}

if (import.meta.main) await runCommand("real-file", main);
