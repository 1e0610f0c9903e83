/**
 * `deno task bench:real` (issue 23): `synth` on the real files of the repository, as a user runs
 * it, with the counts that explain each time,
 *
 *     deno task bench:real [--runs 1] [--only apistrat,nhanes,cps1988] [--out DIR]
 *
 * - apistrat (`examples/apistrat.csv`, n = 200): the README's worked example, api00, enroll,
 *   awards (normal, negbin, logistic) given stype, LW_final at ε = 20, m = 2;
 * - NHANES (`examples/nhanes.csv`, the file of `deno task real-file`): race, hi_chol (categorical,
 *   logistic) given agecat, gender with `--missing drop` and the levels `src/studies/real_file.ts`
 *   declares, LW_final at ε = 10, m = 1;
 * - CPS1988 (`examples/cps1988.csv`, n = 28,155, `test/reference/cps1988_export.R`): wage,
 *   parttime, region (lognormal, logistic, categorical) given education, experience (numeric, raw
 *   scale), ethnicity, smsa, with every text column's levels declared, LW_final at ε = 10, m = 1.
 *
 * Each run is `synth` in a fresh process (seeds 1..runs; the sampler's defaults: 4 chains, 1000
 * warmup iterations and 1000 draws per chain; `--allow-flagged`, so that a flagged final fit is
 * measured rather than refused, and the table says whether it was flagged). Per run: wall time of
 * the process, fits, gradients over all fits (`diagnostics.json` → `refits[].gradientEvaluations`,
 * setups and discarded warm-started attempts included), the final fit's leapfrog steps per
 * iteration, ns per record per gradient of the run (wall time ÷ gradients ÷ n: everything the
 * process does, on every core, charged to the gradients) and the final fit's R̂ max, bulk ESS min
 * and divergences. Leapfrog steps per iteration are the final fit's gradients less its setup
 * (`fit.setup.setupEvaluations`: the mode search and a discarded warm-started attempt) over its
 * NUTS iterations, summed over the conditionals (each conditional's chains × (warmup + draws per
 * chain), read from synth's progress lines on stderr, as the conditionals' warmups differ when
 * some are warm-started; without them, chains × (`fit.warmup` + draws per chain) × conditionals):
 * the mean size of one conditional's trajectory. A second table times one log density + gradient
 * of each conditional in this process (one thread, at points jittered around its start, α = ¼,
 * as `bench/several_outcomes.ts` does).
 *
 * Progress goes to stderr; the tables, markdown, to stdout. `--out DIR` keeps each run's output
 * in DIR/FILE-seedN (default: a temporary folder, removed).
 *
 * @module
 */
import { APISTRAT_ARGS, benchArgs, lwFinalArgs, nsPerGradient } from "./_common.ts";
import { parseSynthArgs } from "../src/cli/synth.ts";
import { readCsv } from "../src/data/csv.ts";
import { dropMissing } from "../src/data/missing.ts";
import type { JointModel } from "../src/models/joint.ts";
import { synthesisPlan } from "../src/synthesis/plan.ts";
import { synthesisModel } from "../src/synthesis/synthesis_model.ts";
import { LEVELS as NHANES_LEVELS } from "../src/studies/real_file.ts";
import config from "../deno.json" with { type: "json" };

const ROOT = new URL("../", import.meta.url).pathname;

/** `deno task synth` as deno.json declares it, less `deno`: run, its permissions, the script. */
const SYNTH = config.tasks.synth.split(" ").slice(1);

/** One benchmarked synthesis: its file, and synth's arguments less seed and output. */
interface RealRun {
  readonly key: string;
  readonly label: string;
  readonly mechanism: string;
  readonly epsilon: number;
  readonly args: readonly string[];
}

const levels = (declared: Record<string, readonly string[]>) =>
  Object.entries(declared).map(([name, values]) => `${name}=${values.join("|")}`).join(";");

const RUNS: readonly RealRun[] = [
  {
    key: "apistrat",
    label: "apistrat",
    mechanism: "LW_final",
    epsilon: 20,
    args: APISTRAT_ARGS,
  },
  {
    key: "nhanes",
    label: "NHANES",
    mechanism: "LW_final",
    epsilon: 10,
    args: [
      "--data",
      "examples/nhanes.csv",
      "--y",
      "race,hi_chol",
      "--model",
      "categorical,logistic",
      "--x",
      "agecat,gender",
      "--missing",
      "drop",
      "--levels",
      levels({ race: NHANES_LEVELS.race, hi_chol: NHANES_LEVELS.hi_chol }),
      ...lwFinalArgs(10, 1),
    ],
  },
  {
    key: "cps1988",
    label: "CPS1988",
    mechanism: "LW_final",
    epsilon: 10,
    args: [
      "--data",
      "examples/cps1988.csv",
      "--y",
      "wage,parttime,region",
      "--model",
      "lognormal,logistic,categorical",
      "--x",
      "education,experience,ethnicity,smsa",
      "--levels",
      levels({
        parttime: ["no", "yes"],
        region: ["northeast", "midwest", "south", "west"],
        ethnicity: ["cauc", "afam"],
        smsa: ["no", "yes"],
      }),
      ...lwFinalArgs(10, 1),
    ],
  },
];

/** What a run's report.json and diagnostics.json say, as far as the table reads them. */
interface Outputs {
  readonly report: { n: number; epsilon: number; fitFlagged?: boolean };
  readonly diagnostics: {
    refits: { label: string; gradientEvaluations: number }[];
    finalFit: string;
    fit: {
      rhatMax: number;
      essBulkMin: number;
      divergences: number;
      flagged: boolean;
      warmup: number;
      gradientEvaluations: number;
      setup: { setupEvaluations: number };
    };
  };
}

/** Runs synth in a fresh process, with its progress lines passed on and kept. */
async function runSynth(
  args: string[],
  tag: string,
): Promise<{ seconds: number; stderr: string[] }> {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const stdout = new Response(child.stdout).text();
  let pending = "";
  const show = (line: string) => {
    lines.push(line);
    // Each conditional's fit when it ends, and anything that is not progress (notes, warnings).
    if (!line.startsWith("[fit ") || line.includes("] 100% (")) {
      const at = ((performance.now() - started) / 1000).toFixed(0);
      console.error(`[bench:real ${tag} ${at} s] ${line}`);
    }
  };
  for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
    pending += chunk;
    const parts = pending.split("\n");
    pending = parts.pop()!;
    parts.forEach(show);
  }
  if (pending !== "") show(pending);
  const status = await child.status;
  const seconds = (performance.now() - started) / 1000;
  await stdout;
  if (!status.success) {
    throw new Error(`synth ${args.join(" ")} exited ${status.code}:\n${lines.join("\n")}`);
  }
  return { seconds, stderr: lines };
}

/**
 * NUTS iterations of the final fit, over its conditionals: the total of each conditional's last
 * progress line of that fit (`[fit LABEL (OUTCOME)] P% (done/total)`); null if one is missing.
 */
function finalIterations(stderr: string[], label: string, outcomes: string[]): number | null {
  let sum = 0;
  for (const outcome of outcomes) {
    const prefix = outcomes.length === 1 ? `[fit ${label}] ` : `[fit ${label} (${outcome})] `;
    const last = stderr.findLast((line) => line.startsWith(prefix));
    const total = last?.match(/\((\d+)\/(\d+)\)$/)?.[2];
    if (total === undefined) return null;
    sum += Number(total);
  }
  return sum;
}

/** The in-process cost of each conditional of a run (its data as synth reads them). */
async function gradientCosts(run: RealRun): Promise<string[]> {
  const { data: path, spec } = parseSynthArgs([...run.args, "--out", "unused"]);
  const raw = await readCsv(`${ROOT}${path}`);
  const { outcomes } = synthesisPlan(spec);
  const data = spec.missing === "drop"
    ? dropMissing(raw, [...outcomes.map(({ y }) => y), ...spec.x]).data
    : raw;
  const model = synthesisModel(data, spec);
  const components = outcomes.length === 1
    ? [{ outcome: outcomes[0].y, model }]
    : (model as JointModel).components;
  return components.map(({ outcome, model }) => {
    const ns = nsPerGradient(model);
    console.error(`[bench:real] ${run.key}: ${outcome} (${model.name}): ${ns.toFixed(0)} ns`);
    return `| ${run.label} | ${outcome} | ${model.name} | ${model.design.n} | ${model.dim} | ${
      ns.toFixed(0)
    } | ${(ns / model.design.n).toFixed(1)} |`;
  });
}

const group = (value: number) => Math.round(value).toLocaleString("en-US");

const { runs, only, out } = benchArgs({
  runs: "1",
  only: RUNS.map((run) => run.key).join(","),
  out: "",
});
const chosen = only.split(",").map((key) => key.trim()).filter((key) => key !== "");
for (const key of chosen) {
  if (!RUNS.some((run) => run.key === key)) {
    throw new Error(`--only: unknown file ${key} (one of ${RUNS.map((run) => run.key)})`);
  }
}
const selected = RUNS.filter((run) => chosen.includes(run.key));

const rows: string[] = [];
for (const run of selected) {
  const { spec } = parseSynthArgs([...run.args, "--out", "unused"]);
  const { outcomes } = synthesisPlan(spec);
  const chains = spec.chains ?? 4;
  const drawsPerChain = spec.draws / chains;
  for (let seed = 1; seed <= Number(runs); seed++) {
    const tag = `${run.key} seed ${seed}`;
    const dir = out === ""
      ? await Deno.makeTempDir({ prefix: `bench_real_${run.key}_` })
      : `${out}/${run.key}-seed${seed}`;
    console.error(`[bench:real] ${tag}: synth ${run.args.join(" ")} --seed ${seed} --out ${dir}`);
    const { seconds, stderr } = await runSynth(
      [...SYNTH, ...run.args, "--seed", String(seed), "--allow-flagged", "--out", dir],
      tag,
    );
    const { report, diagnostics } = {
      report: JSON.parse(await Deno.readTextFile(`${dir}/report.json`)),
      diagnostics: JSON.parse(await Deno.readTextFile(`${dir}/diagnostics.json`)),
    } as Outputs;
    if (out === "") await Deno.remove(dir, { recursive: true });
    const { fit, refits, finalFit } = diagnostics;
    const gradients = refits.reduce((sum, refit) => sum + refit.gradientEvaluations, 0);
    const names = outcomes.map(({ y }) => y);
    const iterations = finalIterations(stderr, finalFit, names) ??
      chains * (fit.warmup + drawsPerChain) * names.length;
    const steps = (fit.gradientEvaluations - fit.setup.setupEvaluations) / iterations;
    const flagged = fit.flagged || report.fitFlagged === true;
    const nsPerRecord = (seconds * 1e9) / gradients / report.n;
    console.error(
      `[bench:real] ${tag}: ${seconds.toFixed(1)} s, ${refits.length} fits, ${
        group(gradients)
      } gradients, final fit ${finalFit}: R̂ ${fit.rhatMax.toFixed(3)}, bulk ESS ${
        fit.essBulkMin.toFixed(0)
      }, ${fit.divergences} divergences${flagged ? ", FLAGGED" : ""}`,
    );
    rows.push(
      `| ${run.label} | ${report.n} | ${
        outcomes.map(({ y, model }) => `${y} (${model})`).join(", ")
      } | ${run.mechanism} | ${seed} | ${run.epsilon} | ${report.epsilon.toFixed(2)} | ${
        seconds.toFixed(1)
      } | ${refits.length} | ${group(gradients)} | ${steps.toFixed(1)} | ${
        nsPerRecord.toFixed(1)
      } | ${fit.rhatMax.toFixed(3)} | ${fit.essBulkMin.toFixed(0)} | ${fit.divergences} | ${
        flagged ? "**yes**" : "no"
      } |`,
    );
  }
}

const costs: string[] = [];
for (const run of selected) costs.push(...await gradientCosts(run));

console.log(
  "| file | n | outcomes | mechanism | seed | ε target | ε achieved | wall s | fits | " +
    "gradients, all fits | leapfrog steps per iteration, final fit | ns per record per gradient " +
    "(wall ÷ gradients ÷ n) | R̂ max | bulk ESS min | divergences | flagged |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const row of rows) console.log(row);
console.log();
console.log(
  "| file | conditional | model | n | dim | ns per gradient (one thread) | ns per record |",
);
console.log("|---|---|---|---|---|---|---|");
for (const row of costs) console.log(row);
