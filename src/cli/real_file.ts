/**
 * `deno task real-file`: the real public-use file end to end (`docs/studies/real_file.md`).
 *
 *     deno task real-file [--out DIR] [--cache DIR] [--every K] [--draws S] [--warmup W]
 *       [--m M] [--epsilons 5,10,20]
 *     deno task real-file --render [--out DIR]
 *
 * Reads examples/nhanes.csv, runs the unweighted synthesizer, LW_final and the perturbed
 * histogram at each ε (`src/studies/real_file.ts`) and writes DIR/real_file.json (a pure function
 * of the settings) and DIR/real_file.md (with the wall times in a footer), both or neither. DIR
 * defaults to docs/studies/; the other flags make a reduced run (the committed files are the
 * defaults' output). With `--cache DIR` each finished synthesis is kept in that folder and a rerun
 * with the same settings takes it from there (a long run survives an interruption). `--render`
 * rewrites DIR/real_file.md from DIR/real_file.json and the footer of the existing markdown,
 * without running anything. With the whole file, the markdown quotes R's table on it from
 * test/reference/nhanes_tables_expected.json (how far ours is from it, and the PSU-clustered
 * SEs). Progress goes to stderr.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { readCsv } from "../data/csv.ts";
import { parseDecimal } from "../data/decimal.ts";
import { writeFilesAtomically } from "../data/write_files.ts";
import {
  type ArmCache,
  type CachedArm,
  hiCholTable,
  REAL_FILE_SETTINGS,
  realFileJson,
  type RealFileResult,
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
  cache: string | null;
  render: boolean;
  settings: RealFileSettings;
} {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args,
      options: {
        ...Object.fromEntries(
          ["out", "cache", "every", "draws", "warmup", "epsilons", "m"].map((name) => [name, {
            type: "string" as const,
          }]),
        ),
        render: { type: "boolean" as const },
      },
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
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
    cache: text("cache") ?? null,
    render: values.render === true,
    settings: {
      ...REAL_FILE_SETTINGS,
      epsilons,
      every: positiveInteger("every", text("every"), REAL_FILE_SETTINGS.every),
      draws: positiveInteger("draws", text("draws"), REAL_FILE_SETTINGS.draws),
      warmup: positiveInteger("warmup", text("warmup"), REAL_FILE_SETTINGS.warmup),
      m: positiveInteger("m", text("m"), REAL_FILE_SETTINGS.m),
    },
  };
}

/**
 * A cache of finished arms in a folder, one `<arm>.json` each.
 *
 * @param dir The folder (created when the first arm is kept).
 */
export function folderCache(dir: string): ArmCache {
  const path = (key: string) => `${dir}/${key}.json`;
  return {
    async get(key) {
      try {
        return JSON.parse(await Deno.readTextFile(path(key))) as CachedArm;
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) return undefined;
        throw error;
      }
    },
    async set(key, value) {
      await writeFilesAtomically(dir, new Map([[`${key}.json`, JSON.stringify(value) + "\n"]]));
    },
  };
}

/** The footer of a report: from its last line "---" on. */
export function footerOf(markdown: string): string {
  const at = markdown.lastIndexOf("\n---\n");
  if (at < 0) throw new UsageError("the existing markdown has no footer (a line ---)");
  return markdown.slice(at + 1).trimEnd();
}

const encoder = new TextEncoder();

async function main(): Promise<void> {
  const { out, cache, render, settings } = parseRealFileArgs(Deno.args);
  if (render) {
    const result = JSON.parse(
      await Deno.readTextFile(`${out}/real_file.json`),
    ) as RealFileResult;
    const footer = footerOf(await Deno.readTextFile(`${out}/real_file.md`));
    const markdown = realFileMarkdown(result, footer, await rReference(result.settings));
    await writeFilesAtomically(out, new Map([["real_file.md", markdown]]));
    console.log(`real-file: rewrote ${out}/real_file.md from ${out}/real_file.json`);
    return;
  }
  const started = performance.now();
  const data = await readCsv(settings.data);
  const shown = new Map<string, string>();
  const { result, seconds } = await runRealFile(data, settings, {
    cache: cache === null ? undefined : folderCache(cache),
    onProgress: (arm, stage, done, total) => {
      const line = stage === "start" || stage === "cached"
        ? `[real-file] ${arm}${stage === "cached" ? " (cached)" : ""}`
        : `[real-file] ${arm}: ${stage} ${Math.floor((10 * done) / total) * 10}%`;
      if (shown.get(`${arm} ${stage}`) === line) return;
      shown.set(`${arm} ${stage}`, line);
      Deno.stderr.writeSync(encoder.encode(line + "\n"));
    },
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
