/**
 * The design release as a study of the one command (`deno task study design_release`, alias
 * `deno task design-release`; `docs/studies/design_release.md`, issue 24):
 *
 *     deno task study design_release [--out DIR] [--quick]
 *     deno task study design_release --render [--out DIR]
 *
 * Reads examples/nhanes.csv, runs the study of `design_release.ts` (one SW release at ε = 10 of
 * race, hi_chol and the weight given agecat and gender; the design-based tables both ways; the
 * weights; the held-out check) and writes DIR/design_release.json (a pure function of the
 * settings) and DIR/design_release.md (the wall time in a footer), both or neither. `--quick` is
 * a reduced run for the tests (every 10th record, short chains). `--render` runs nothing: it
 * decides the report's document again from DIR/design_release.json and rewrites the JSON (with
 * the document) and the markdown, keeping the markdown's footer.
 *
 * @module
 */
import { readCsv } from "../data/csv.ts";
import {
  DESIGN_RELEASE_SETTINGS,
  designReleaseJson,
  type DesignReleaseResult,
  QUICK_DESIGN_RELEASE,
  runDesignRelease,
} from "./design_release.ts";
import { designReleaseMarkdown, withDesignReleaseDocument } from "./design_release_document.ts";
import type { SingleRunStudy } from "./study.ts";
import { footerOf } from "./study_document.ts";

/** DIR/design_release.json, with the report's document, and DIR/design_release.md. */
function designReleaseFiles(result: DesignReleaseResult, footer: string): Map<string, string> {
  const report = withDesignReleaseDocument(result);
  return new Map([
    ["design_release.json", designReleaseJson(report)],
    ["design_release.md", designReleaseMarkdown(report, footer)],
  ]);
}

/** `deno task study design_release`. */
export const designReleaseStudy: SingleRunStudy = {
  name: "design_release",
  flags: { quick: "boolean" },
  async render(out) {
    const result = JSON.parse(await Deno.readTextFile(`${out}/design_release.json`));
    return designReleaseFiles(
      result,
      footerOf(await Deno.readTextFile(`${out}/design_release.md`)),
    );
  },
  async run({ values, out, fits }) {
    const settings = values.quick === true ? QUICK_DESIGN_RELEASE : DESIGN_RELEASE_SETTINGS;
    const data = await readCsv(settings.data);
    const { result, seconds } = await runDesignRelease(data, settings, {
      onProgress: fits.update,
    });
    fits.end();
    const footer = `---\nWall time ${seconds.toFixed(0)} s on ${navigator.hardwareConcurrency} ` +
      `logical core(s), Deno ${Deno.version.deno} (machine-dependent; not part of the JSON).`;
    return {
      files: designReleaseFiles(result, footer),
      message: `design-release: wrote ${out}/design_release.json and .md`,
    };
  },
};
