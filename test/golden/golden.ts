/**
 * Byte-identity of the commands' outputs across a refactor (issue 12): runs `demo`, `synth` over
 * every mechanism × the five regression models on fixed seeds, `tabulate` over every method and
 * each study at `--replicates 2`, and hashes every file they write (SHA-256; a study's markdown
 * without its wall-time footer). `--record` writes `test/golden/hashes.json`; `--check` (the
 * default) compares against it and exits 1 naming every file that differs.
 *
 *     deno run -A test/golden/golden.ts [--record] [--only demo,synth,tabulate,study]
 *
 * Not part of `deno task test` (it takes several minutes); run it before and after a change that
 * must not change results.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { MECHANISM_NAMES } from "../../src/mechanisms/mechanism.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const HASHES = new URL("hashes.json", import.meta.url).pathname;
const REGRESSION_MODELS = ["poisson", "negbin", "beta", "normal", "lognormal"] as const;
const STUDIES = ["contraction", "reweight", "five", "survey"] as const;
const SAMPLER = ["--draws", "200", "--chains", "2", "--warmup", "150"];
/** Byte identity, not the fits' diagnostics, is checked: short fits are written even if flagged. */
const SYNTH_SAMPLER = [...SAMPLER, "--allow-flagged"];
/** The survey tables have no --allow-flagged: their fits get enough draws to pass. */
const TABLE_SAMPLER = ["--draws", "4000", "--chains", "4", "--warmup", "300"];

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new Uint8Array(bytes));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Runs a CLI module; returns its exit code and its stderr (printed when it fails). */
async function run(
  module: string,
  args: string[],
  cwd = ROOT,
): Promise<{ code: number; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}${module}`, ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
}

/** Hashes of every file under `dir`, keyed `prefix/relative path`. */
async function hashDir(dir: string, prefix: string, into: Record<string, string>): Promise<void> {
  const entries = [];
  for await (const entry of Deno.readDir(dir)) entries.push(entry);
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) {
      await hashDir(path, `${prefix}/${entry.name}`, into);
      continue;
    }
    let bytes = await Deno.readFile(path);
    if (entry.name.endsWith(".md")) {
      const text = new TextDecoder().decode(bytes);
      const footer = text.lastIndexOf("---\nWall time");
      bytes = new TextEncoder().encode(footer < 0 ? text : text.slice(0, footer));
    }
    into[`${prefix}/${entry.name}`] = await sha256(bytes);
  }
}

/** Deterministic data for each model: y from a fixed sequence, a covariate z. */
function modelCsv(model: string): string {
  const lines = ["y,z"];
  let state = 12345;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < 80; i++) {
    const z = (i % 5) / 4;
    const u = next();
    const y = model === "poisson" || model === "negbin"
      ? Math.floor(-Math.log(1 - u) * (4 + 3 * z))
      : model === "beta"
      ? 0.05 + 0.9 * u
      : model === "lognormal"
      ? Math.exp(1 + z + (u - 0.5))
      : 2 + z + 2 * (u - 0.5);
    lines.push(`${model === "beta" ? y.toFixed(6) : y},${z}`);
  }
  return lines.join("\n") + "\n";
}

function mechanismArgs(mechanism: string, model: string): string[] {
  switch (mechanism) {
    case "unweighted":
      return [];
    case "lw":
    case "cw":
      return ["--epsilon", "40", "--m", "2"];
    case "sw":
    case "lw-final":
    case "cw-final":
    case "weighted-e":
    case "censored":
    case "censored-w":
      return ["--epsilon", "30", "--m", "2"];
    case "histogram":
      return model === "beta"
        ? ["--epsilon", "2", "--m", "2"]
        : ["--epsilon", "2", "--m", "2", "--lower=-5", "--upper", "200"];
  }
  throw new Error(mechanism);
}

async function runAll(only: Set<string>, work: string): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  // Exit codes only: stderr holds progress lines whose order the parallel chains set.
  const note = (key: string, result: { code: number }) => {
    hashes[`${key}/exit`] = String(result.code);
  };
  if (only.has("demo")) {
    note("demo", await run("src/cli/demo.ts", [], work));
    await hashDir(`${work}/out/demo`, "demo", hashes);
  }
  if (only.has("synth")) {
    for (const model of REGRESSION_MODELS) {
      const data = `${work}/${model}.csv`;
      await Deno.writeTextFile(data, modelCsv(model));
      for (const mechanism of MECHANISM_NAMES) {
        const out = `${work}/synth-${model}-${mechanism}`;
        const key = `synth/${model}/${mechanism}`;
        const result = await run("src/cli/synth.ts", [
          "--data",
          data,
          "--y",
          "y",
          "--x",
          "z",
          "--model",
          model,
          "--mechanism",
          mechanism,
          ...mechanismArgs(mechanism, model),
          ...SYNTH_SAMPLER,
          "--seed",
          "17",
          "--backend",
          "cpu",
          "--out",
          out,
        ]);
        note(key, result);
        if (result.code === 0) await hashDir(out, key, hashes);
        else console.error(result.stderr.trim().split("\n").at(-1));
        console.error(`golden: ${key} exit ${result.code}`);
      }
    }
  }
  if (only.has("tabulate")) {
    const data = `${ROOT}test/reference/survey_sample.csv`;
    const stratumSizes = Array.from({ length: 8 }, (_, h) => `field${h + 1}=${12_000 + 500 * h}`)
      .join(",");
    for (const method of ["sample", "laplace", "fbs", "fbp"]) {
      const out = `${work}/table-${method}.json`;
      const extra = method === "sample" ? [] : ["--epsilon", method === "laplace" ? "8" : "20"];
      const synthetic = method === "fbs" || method === "fbp" ? ["--m", "2", ...TABLE_SAMPLER] : [];
      const result = await run("src/cli/tabulate.ts", [
        "--data",
        data,
        "--y",
        "salary",
        "--weight",
        "w",
        "--strata",
        "field",
        "--by",
        "field,gender",
        "--method",
        method,
        ...extra,
        ...synthetic,
        // fbs counts need the sizes too (without them it is refused, not ~10% low).
        ...(method === "fbs" || method === "fbp" ? ["--stratum-sizes", stratumSizes] : []),
        "--seed",
        "5",
        "--out",
        out,
      ]);
      note(`tabulate/${method}`, result);
      if (result.code === 0) {
        hashes[`tabulate/${method}/table.json`] = await sha256(await Deno.readFile(out));
      }
      console.error(`golden: tabulate/${method} exit ${result.code}`);
    }
  }
  if (only.has("study")) {
    for (const study of STUDIES) {
      const out = `${work}/study-${study}`;
      const result = await run("src/cli/study.ts", [
        study,
        "--replicates",
        "2",
        "--seed",
        "3",
        "--out",
        out,
      ]);
      hashes[`study/${study}/exit`] = String(result.code);
      if (result.code === 0) await hashDir(out, `study/${study}`, hashes);
      console.error(`golden: study/${study} exit ${result.code}`);
    }
  }
  return hashes;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { record: { type: "boolean" }, only: { type: "string" } },
  });
  const only = new Set((values.only ?? "demo,synth,tabulate,study").split(","));
  const work = await Deno.makeTempDir({ prefix: "ppsynth_golden_" });
  try {
    const hashes = await runAll(only, work);
    if (values.record) {
      const recorded = await Deno.readTextFile(HASHES).then(JSON.parse).catch(() => ({}));
      const merged = Object.fromEntries(
        Object.entries({ ...recorded, ...hashes }).sort(([a], [b]) => a.localeCompare(b)),
      );
      await Deno.writeTextFile(HASHES, JSON.stringify(merged, null, 2) + "\n");
      console.error(`golden: recorded ${Object.keys(hashes).length} hashes in ${HASHES}`);
    } else {
      const recorded: Record<string, string> = JSON.parse(await Deno.readTextFile(HASHES));
      const keys = Object.keys(recorded).filter((key) => only.has(key.split("/")[0]));
      const differ = keys.filter((key) => recorded[key] !== hashes[key]);
      const extra = Object.keys(hashes).filter((key) => !(key in recorded));
      for (const key of [...differ, ...extra]) console.error(`golden: differs: ${key}`);
      console.error(`golden: ${keys.length - differ.length} of ${keys.length} identical`);
      if (differ.length + extra.length > 0) Deno.exit(1);
    }
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}
