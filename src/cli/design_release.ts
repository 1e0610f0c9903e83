/**
 * `deno task design-release`: a release that synthesises the survey weight, checked for what it
 * gives an analyst and an attacker (`docs/studies/design_release.md`, issue 24).
 *
 *     deno task design-release [--out DIR] [--quick]
 *     deno task design-release --render [--out DIR]
 *
 * Reads examples/nhanes.csv, runs the study of `src/studies/design_release.ts` (one SW release
 * at ε = 10 of race, hi_chol and the weight given agecat and gender; the design-based tables both
 * ways; the weights; the held-out check) and writes DIR/design_release.json (a pure function of
 * the settings) and DIR/design_release.md (the wall time in a footer), both or neither. DIR
 * defaults to docs/studies/. `--quick` is a reduced run for the tests (every 10th record, short
 * chains). `--render` runs nothing: it decides the report's document again from
 * DIR/design_release.json and rewrites the JSON (with the document) and the markdown, keeping the
 * markdown's footer. Progress goes to stderr.
 *
 * @module
 */
import { readCsv } from "../data/csv.ts";
import { writeFilesAtomically } from "../data/write_files.ts";
import {
  DESIGN_RELEASE_SETTINGS,
  designReleaseJson,
  type DesignReleaseResult,
  type DesignReleaseSettings,
  QUICK_DESIGN_RELEASE,
  runDesignRelease,
} from "../studies/design_release.ts";
import {
  designReleaseMarkdown,
  withDesignReleaseDocument,
} from "../studies/design_release_document.ts";
import { progress } from "./progress.ts";
import { parseFlags, runCommand } from "./run_command.ts";

/**
 * Parses the command line.
 *
 * @param args The arguments after the command.
 */
export function parseDesignReleaseArgs(
  args: string[],
): { out: string; settings: DesignReleaseSettings; render: boolean } {
  const { values } = parseFlags({
    args,
    options: {
      out: { type: "string" },
      quick: { type: "boolean" },
      render: { type: "boolean" },
    },
  });
  return {
    out: values.out ?? "docs/studies",
    settings: values.quick ? QUICK_DESIGN_RELEASE : DESIGN_RELEASE_SETTINGS,
    render: values.render ?? false,
  };
}

/** Writes DIR/design_release.json, with the report's document, and DIR/design_release.md. */
async function writeReport(out: string, result: DesignReleaseResult, footer: string) {
  const report = withDesignReleaseDocument(result);
  await writeFilesAtomically(
    out,
    new Map([
      ["design_release.json", designReleaseJson(report)],
      ["design_release.md", designReleaseMarkdown(report, footer)],
    ]),
  );
}

async function main(): Promise<void> {
  const { out, settings, render } = parseDesignReleaseArgs(Deno.args);
  if (render) {
    const result = JSON.parse(await Deno.readTextFile(`${out}/design_release.json`));
    const old = await Deno.readTextFile(`${out}/design_release.md`);
    const at = old.lastIndexOf("\n---\n");
    await writeReport(out, result, at < 0 ? "" : old.slice(at + 1).trimEnd());
    console.log(`design-release: rewrote ${out}/design_release.json and .md from the JSON`);
    return;
  }
  const data = await readCsv(settings.data);
  const shown = progress("design-release");
  const { result, seconds } = await runDesignRelease(data, settings, { onProgress: shown.update });
  shown.end();
  const footer = `---\nWall time ${seconds.toFixed(0)} s on ${navigator.hardwareConcurrency} ` +
    `logical core(s), Deno ${Deno.version.deno} (machine-dependent; not part of the JSON).`;
  await writeReport(out, result, footer);
  console.log(`design-release: wrote ${out}/design_release.json and .md`);
}

if (import.meta.main) await runCommand("design-release", main);
