/**
 * `deno task frontier`: the utility–ε frontier on real files (`docs/studies/frontier.md`).
 *
 *     deno task frontier [--out DIR] [--cache DIR] [--only KEY,…] [--partial] [--quick]
 *     deno task frontier --render [--out DIR]
 *
 * Runs every arm of `src/studies/frontier.ts` (each mechanism at each ε and m on NHANES and
 * CPS1988) and writes DIR/frontier.json (a pure function of the settings), DIR/frontier.md,
 * DIR/frontier.html (the figures inline) and one SVG per file, all or none. DIR defaults to
 * docs/studies/. Each finished arm is kept in the cache folder (default out/frontier-cache), so an
 * interrupted run resumes, and so are the arms of an existing DIR/frontier.json (a partial run
 * committed earlier, `--partial`); `--only` runs only the arms whose key starts with one of the prefixes
 * (e.g. `nhanes-` or `cps1988-sw-`) and writes nothing unless every arm is then in the cache
 * (`--partial` writes what there is, marked as partial).
 * `--quick` is a reduced run for tests (every 40th record, ε = 5, m = 1, short chains).
 * `--render` decides the report's document again from DIR/frontier.json and rewrites the JSON
 * (with the document), the markdown, HTML and figures. Progress goes to stderr.
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
} from "../studies/frontier.ts";
import { frontierSvg } from "../studies/frontier_figure.ts";
import { frontierMarkdown, withFrontierDocument } from "../studies/frontier_document.ts";
import { parseFlags, runCommand } from "./run_command.ts";

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

const encoder = new TextEncoder();

async function main(): Promise<void> {
  const { values } = parseFlags({
    args: Deno.args,
    options: {
      out: { type: "string" },
      cache: { type: "string" },
      only: { type: "string" },
      quick: { type: "boolean" },
      partial: { type: "boolean" },
      render: { type: "boolean" },
    },
  });
  const out = values.out ?? "docs/studies";
  if (values.render) {
    const result = JSON.parse(await Deno.readTextFile(`${out}/frontier.json`)) as FrontierResult;
    const old = await Deno.readTextFile(`${out}/frontier.md`);
    const at = old.lastIndexOf("\n---\n");
    await writeFilesAtomically(
      out,
      frontierFiles(result, at < 0 ? "" : old.slice(at + 1).trimEnd()),
    );
    console.log(
      `frontier: rewrote ${out}/frontier.json, .md, .html and figures from frontier.json`,
    );
    return;
  }
  const settings = values.quick ? QUICK_FRONTIER : FRONTIER_SETTINGS;
  const prefixes = values.only?.split(",").map((p) => p.trim()).filter((p) => p !== "");
  const earlier = await Deno.readTextFile(`${out}/frontier.json`).then(
    (text) => JSON.parse(text) as FrontierResult,
    () => null,
  );
  const cache = withEarlierArms(frontierFolderCache(values.cache ?? "out/frontier-cache"), earlier);
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
      Deno.stderr.writeSync(encoder.encode(line + "\n"));
    },
  });
  const planned = frontierPlan(settings).length;
  if (result.arms.length < planned && !values.partial) {
    console.log(`frontier: ${result.arms.length} of ${planned} arms done; nothing written`);
    return;
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
  await writeFilesAtomically(out, frontierFiles(result, footer));
  console.log(`frontier: wrote ${out}/frontier.json, .md, .html and figures`);
}

if (import.meta.main) await runCommand("frontier", main);
