/**
 * `deno task design-release`: a release that synthesises the survey weight, checked for what it
 * gives an analyst and an attacker (`docs/studies/design_release.md`, issue 24).
 *
 *     deno task design-release [--out DIR] [--quick]
 *
 * Reads examples/nhanes.csv, runs the study of `src/studies/design_release.ts` (one SW release
 * at ε = 10 of race, hi_chol and the weight given agecat and gender; the design-based tables both
 * ways; the weights; the held-out check) and writes DIR/design_release.json (a pure function of
 * the settings) and DIR/design_release.md (the wall time in a footer), both or neither. DIR
 * defaults to docs/studies/. `--quick` is a reduced run for the tests (every 10th record, short
 * chains). Progress goes to stderr.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { readCsv } from "../data/csv.ts";
import { writeFilesAtomically } from "../data/write_files.ts";
import {
  DESIGN_RELEASE_SETTINGS,
  designReleaseJson,
  type DesignReleaseSettings,
  QUICK_DESIGN_RELEASE,
  runDesignRelease,
} from "../studies/design_release.ts";
import { designReleaseMarkdown } from "../studies/design_release_markdown.ts";
import { progress } from "./progress.ts";
import { runCommand, UsageError } from "./run_command.ts";

/**
 * Parses the command line.
 *
 * @param args The arguments after the command.
 */
export function parseDesignReleaseArgs(
  args: string[],
): { out: string; settings: DesignReleaseSettings } {
  let values;
  try {
    values = parseArgs({
      args,
      options: { out: { type: "string" }, quick: { type: "boolean" } },
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return {
    out: values.out ?? "docs/studies",
    settings: values.quick ? QUICK_DESIGN_RELEASE : DESIGN_RELEASE_SETTINGS,
  };
}

async function main(): Promise<void> {
  const { out, settings } = parseDesignReleaseArgs(Deno.args);
  const data = await readCsv(settings.data);
  const shown = progress("design-release");
  const { result, seconds } = await runDesignRelease(data, settings, { onProgress: shown.update });
  shown.end();
  const footer = `---\nWall time ${seconds.toFixed(0)} s on ${navigator.hardwareConcurrency} ` +
    `logical core(s), Deno ${Deno.version.deno} (machine-dependent; not part of the JSON).`;
  await writeFilesAtomically(
    out,
    new Map([
      ["design_release.json", designReleaseJson(result)],
      ["design_release.md", designReleaseMarkdown(result, footer)],
    ]),
  );
  console.log(`design-release: wrote ${out}/design_release.json and .md`);
}

if (import.meta.main) await runCommand("design-release", main);
