/**
 * The frontier as a study of the one command (`deno task study frontier`, alias `deno task
 * frontier`; `docs/studies/frontier.md`):
 *
 *     deno task study frontier [--out DIR] [--cache DIR] [--only KEY,…] [--partial] [--quick]
 *     deno task study frontier --render [--out DIR]
 *
 * Runs every arm of `frontier.ts` (each mechanism at each ε and m on NHANES and CPS1988) and
 * writes DIR/frontier.json (a pure function of the settings), DIR/frontier.md, DIR/frontier.html
 * (the figures inline) and one SVG per file, all or none. Each finished arm is kept in the cache
 * folder (default out/frontier-cache), so an interrupted run resumes, and so are the arms of an
 * existing DIR/frontier.json (a partial run committed earlier, `--partial`); `--only` runs only
 * the arms whose key starts with one of the prefixes (e.g. `nhanes-` or `cps1988-sw-`) and writes
 * nothing unless every arm is then in the cache (`--partial` writes what there is, marked as
 * partial). `--quick` is a reduced run for tests (every 40th record, ε = 5, m = 1, short chains).
 * `--render` decides the report's document again from DIR/frontier.json and rewrites the JSON
 * (with the document), the markdown, HTML and figures.
 *
 * @module
 */
import { writeFilesAtomically } from "../data/write_files.ts";
import {
  armKey,
  armSettings,
  type CachedFrontierArm,
  CPS1988_FILE,
  FRONTIER_SETTINGS,
  type FrontierCache,
  frontierPlan,
  type FrontierResult,
  type FrontierSettings,
  NHANES_FILE,
  runFrontier,
} from "./frontier.ts";
import { frontierMarkdown, withFrontierDocument } from "./frontier_document.ts";
import { frontierSvg } from "./frontier_figure.ts";
import type { SingleRunStudy } from "./study.ts";
import { footerOf } from "./study_document.ts";

/** The reduced run of `--quick`. */
export const QUICK_FRONTIER: FrontierSettings = Object.freeze({
  ...FRONTIER_SETTINGS,
  files: [{ ...NHANES_FILE, every: 40 }, { ...CPS1988_FILE, every: 80 }],
  epsilons: [5],
  ms: [1],
  draws: 200,
  chains: 2,
  warmup: 150,
});

/** A cache of finished arms: one JSON file per arm in `dir`. */
export function frontierFolderCache(dir: string): FrontierCache {
  const path = (key: string) => `${dir}/${key}.json`;
  return {
    async get(key) {
      try {
        return JSON.parse(await Deno.readTextFile(path(key)));
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

/**
 * A cache that also finds the arms of an earlier result (a committed partial run): an arm of it
 * counts when its file and the sampler are the same as the plan's.
 *
 * @param inner The folder cache.
 * @param earlier The earlier result, or null.
 */
export function withEarlierArms(
  inner: FrontierCache,
  earlier: FrontierResult | null,
): FrontierCache {
  if (earlier === null) return inner;
  const kept = new Map<string, CachedFrontierArm>();
  for (const arm of earlier.arms) {
    const file = earlier.settings.files.find((f) => f.key === arm.file);
    if (file === undefined) continue;
    const plan = { file, mechanism: arm.mechanism, epsilon: arm.epsilon, m: arm.m };
    kept.set(armKey(plan), { settings: armSettings(plan, earlier.settings), arm, seconds: 0 });
  }
  return {
    async get(key) {
      return await inner.get(key) ?? kept.get(key);
    },
    set: (key, value) => inner.set(key, value),
  };
}

/** The files a result renders to, by name. */
export function frontierFiles(result: FrontierResult, footer: string): Map<string, string> {
  const figures = Object.fromEntries(
    result.settings.files.map((f) => [f.key, `frontier_${f.key}.svg`]),
  );
  const report = withFrontierDocument(result, figures);
  const markdown = frontierMarkdown(report, footer);
  const files = new Map<string, string>([
    ["frontier.json", JSON.stringify(report, null, 2) + "\n"],
    ["frontier.md", markdown],
  ]);
  const svgs = result.settings.files.map((f) => frontierSvg(result, f.key));
  result.settings.files.forEach((f, j) => files.set(figures[f.key], svgs[j]));
  // The HTML page: the figures inline, then the markdown's text as preformatted tables.
  const escaped = markdown.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  files.set(
    "frontier.html",
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>ppsynth: utility against ε</title></head>\n` +
      `<body>\n<h1>Utility against ε on real files</h1>\n${
        svgs.join("\n")
      }\n<pre>${escaped}</pre>\n</body></html>\n`,
  );
  return files;
}

/** `deno task study frontier`. */
export const frontierStudy: SingleRunStudy = {
  name: "frontier",
  flags: { cache: "string", only: "string", quick: "boolean", partial: "boolean" },
  async render(out) {
    const result = JSON.parse(await Deno.readTextFile(`${out}/frontier.json`)) as FrontierResult;
    return frontierFiles(result, footerOf(await Deno.readTextFile(`${out}/frontier.md`)));
  },
  async run({ values, out, log }) {
    const settings = values.quick === true ? QUICK_FRONTIER : FRONTIER_SETTINGS;
    const only = values.only as string | undefined;
    const prefixes = only?.split(",").map((p) => p.trim()).filter((p) => p !== "");
    const earlier = await Deno.readTextFile(`${out}/frontier.json`).then(
      (text) => JSON.parse(text) as FrontierResult,
      () => null,
    );
    const folder = (values.cache as string | undefined) ?? "out/frontier-cache";
    const cache = withEarlierArms(frontierFolderCache(folder), earlier);
    const started = performance.now();
    const shown = new Map<string, string>();
    const { result, seconds } = await runFrontier(settings, {
      cache,
      only: prefixes === undefined ? undefined : (key) => prefixes.some((p) => key.startsWith(p)),
      onProgress: (arm, stage, done, total) => {
        const line = stage === "start" || stage === "cached"
          ? `[frontier] ${arm}${stage === "cached" ? " (cached)" : ""}`
          : `[frontier] ${arm}: ${stage} ${Math.floor((10 * done) / total) * 10}%`;
        if (shown.get(`${arm} ${stage}`) === line) return;
        shown.set(`${arm} ${stage}`, line);
        log(line);
      },
    });
    const planned = frontierPlan(settings).length;
    if (result.arms.length < planned && values.partial !== true) {
      return {
        files: null,
        message: `frontier: ${result.arms.length} of ${planned} arms done; nothing written`,
      };
    }
    const wall = (performance.now() - started) / 1000;
    const total = Object.values(seconds).reduce((s, v) => s + v, 0);
    const perFile = settings.files.map((f) => {
      const sum = frontierPlan(settings).filter((p) => p.file.key === f.key)
        .reduce((s, p) => s + (seconds[armKey(p)] ?? 0), 0);
      return `${f.label} ${(sum / 60).toFixed(1)} min`;
    }).join(", ");
    const footer =
      `---\nCompute ${(total / 60).toFixed(1)} min over ${planned} arms (${perFile}; this ` +
      `invocation ${
        (wall / 60).toFixed(1)
      } min), on ${navigator.hardwareConcurrency} logical core(s), ` +
      `Deno ${Deno.version.deno} (machine-dependent; not part of the JSON).`;
    return {
      files: frontierFiles(result, footer),
      message: `frontier: wrote ${out}/frontier.json, .md, .html and figures`,
    };
  },
};
