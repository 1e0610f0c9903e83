/**
 * `deno task real-file`: the real public-use file end to end (`docs/studies/real_file.md`).
 *
 *     deno task real-file [--out DIR] [--every K] [--draws S] [--warmup W] [--epsilons 5,10,20]
 *
 * Reads examples/nhanes.csv, runs the unweighted synthesizer, LW_final and the perturbed
 * histogram at each ε (`src/studies/real_file.ts`) and writes DIR/real_file.json (a pure function
 * of the settings) and DIR/real_file.md (with the wall times in a footer), both or neither. DIR
 * defaults to docs/studies/; the other flags make a reduced run (the committed files are the
 * defaults' output). With the whole file, the markdown quotes R's table on it from
 * test/reference/nhanes_tables_expected.json (how far ours is from it, and the PSU-clustered
 * SEs). Progress goes to stderr.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { readCsv } from "../data/csv.ts";
import { writeFilesAtomically } from "../data/write_files.ts";
import {
  hiCholTable,
  REAL_FILE_SETTINGS,
  realFileJson,
  type RealFileSettings,
  runRealFile,
  usedRecords,
} from "../studies/real_file.ts";
import { realFileMarkdown, type RReference } from "../studies/real_file_markdown.ts";
import type { SurveyTable } from "../survey/tables.ts";
import { runCommand, UsageError } from "./run_command.ts";

/** R's reference file for the table on the whole file. */
export const R_REFERENCE = new URL(
  "../../test/reference/nhanes_tables_expected.json",
  import.meta.url,
);

/** One cell of R's table. */
export interface RCell {
  readonly agecat: string;
  readonly gender: string;
  readonly count: number;
  readonly countSE: number;
  readonly mean: number;
  readonly meanSE: number;
}

/**
 * The largest relative difference between our table and R's cells (matched by their labels),
 * over the count, mean and their SEs.
 *
 * @param table Our table.
 * @param cells R's cells.
 */
export function relativeDifference(table: SurveyTable, cells: readonly RCell[]): number {
  if (cells.length !== table.count.length) {
    throw new RangeError(`R has ${cells.length} cells, ours ${table.count.length}`);
  }
  let worst = 0;
  for (const cell of cells) {
    const r = table.labels[0].findIndex((a, i) =>
      a === cell.agecat && table.labels[1][i] === cell.gender
    );
    if (r < 0) throw new RangeError(`no cell ${cell.agecat} × ${cell.gender} in our table`);
    for (const key of ["count", "countSE", "mean", "meanSE"] as const) {
      const ours = table[key][r];
      worst = Math.max(worst, Math.abs(ours - cell[key]) / Math.abs(cell[key]));
    }
  }
  return worst;
}

/** R's reference on the whole file, for the markdown. */
async function rReference(settings: RealFileSettings): Promise<RReference | undefined> {
  if (settings.every !== 1) return undefined;
  const expected = JSON.parse(await Deno.readTextFile(R_REFERENCE)) as {
    versions: { survey: string };
    cells: RCell[];
    clustered: RCell[];
  };
  const data = usedRecords(await readCsv(settings.data)).data;
  const table = hiCholTable(data);
  const ratios = (key: "meanSE" | "countSE") => {
    const values = expected.clustered.map((cell, r) => cell[key] / expected.cells[r][key]);
    return [Math.min(...values), Math.max(...values)] as const;
  };
  return {
    maxRelativeDifference: relativeDifference(table, expected.cells),
    clusteredMeanSERatio: ratios("meanSE"),
    clusteredCountSERatio: ratios("countSE"),
    survey: expected.versions.survey,
  };
}

function positiveInteger(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = value.trim() === "" ? NaN : Number(value);
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
export function parseRealFileArgs(args: string[]): { out: string; settings: RealFileSettings } {
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({
      args,
      options: Object.fromEntries(
        ["out", "every", "draws", "warmup", "epsilons", "m"].map((name) => [name, {
          type: "string" as const,
        }]),
      ),
    }).values as Record<string, string | undefined>;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const epsilons = values.epsilons === undefined
    ? REAL_FILE_SETTINGS.epsilons
    : values.epsilons.split(",").map((text) => {
      const value = text.trim() === "" ? NaN : Number(text);
      if (!(value > 0) || !Number.isFinite(value)) {
        throw new UsageError("--epsilons: positive numbers separated by commas");
      }
      return value;
    });
  return {
    out: values.out ?? "docs/studies",
    settings: {
      ...REAL_FILE_SETTINGS,
      epsilons,
      every: positiveInteger("every", values.every, REAL_FILE_SETTINGS.every),
      draws: positiveInteger("draws", values.draws, REAL_FILE_SETTINGS.draws),
      warmup: positiveInteger("warmup", values.warmup, REAL_FILE_SETTINGS.warmup),
      m: positiveInteger("m", values.m, REAL_FILE_SETTINGS.m),
    },
  };
}

const encoder = new TextEncoder();

async function main(): Promise<void> {
  const { out, settings } = parseRealFileArgs(Deno.args);
  const started = performance.now();
  const data = await readCsv(settings.data);
  const shown = new Map<string, string>();
  const { result, seconds } = await runRealFile(data, settings, (arm, stage, done, total) => {
    const line = stage === "start"
      ? `[real-file] ${arm}`
      : `[real-file] ${arm}: ${stage} ${Math.floor((10 * done) / total) * 10}%`;
    if (shown.get(`${arm} ${stage}`) === line) return;
    shown.set(`${arm} ${stage}`, line);
    Deno.stderr.writeSync(encoder.encode(line + "\n"));
  });
  const wall = (performance.now() - started) / 1000;
  const minutes = (s: number) => `${(s / 60).toFixed(1)} min`;
  const footer =
    `---\nWall time ${minutes(wall)} (${wall.toFixed(0)} s): ${
      result.arms.map((arm) => `${arm.label} ${minutes(seconds[arm.key])}`).join(", ")
    }; on ${navigator.hardwareConcurrency} logical core(s), Deno ${Deno.version.deno} ` +
    "(machine-dependent; not part of the JSON).";
  const markdown = realFileMarkdown(result, footer, await rReference(settings));
  await writeFilesAtomically(
    out,
    new Map([["real_file.json", realFileJson(result)], ["real_file.md", markdown]]),
  );
  console.log(`real-file: wrote ${out}/real_file.json and real_file.md in ${minutes(wall)}`);
}

if (import.meta.main) await runCommand("real-file", main);
