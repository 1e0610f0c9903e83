/**
 * `deno task bench:crc` (issue 35): the whole ACS excerpt of NIST's CRC (`examples/crc/ma2019.csv`,
 * 7,634 persons, 24 columns) released by `synth --schema … --y all`, as a user runs it, scored
 * with SDNist v2.3.0's k-marginal beside the peers' published scores.
 *
 *     deno task bench:crc [--epsilons 1,5,10] [--arms auto,censored] [--seed 1] [--out DIR]
 *       [--data F.csv --schema S.json]
 *
 * Per ε and arm (`auto`: the whole-file rule, aDP; `censored`: pure DP), one `synth` process at
 * m = 1 with the command's defaults (`--allow-flagged`, so that a flagged fit is measured rather
 * than refused: the table says whether it was). Per run: wall time of the process, the fits and
 * Gibbs sweeps or exact draws (`diagnostics.json`; the network for `auto`, the latent class model
 * under censoring), ε and its guarantee, k-marginal on the five CRC feature sets
 * (`utility.json`), the worst rule's violation rate, and the person weights' total against the
 * confidential one. The peers' rows are the CRC archive's published scores (SDNist v2.3.0,
 * ma2019), quoted with their guarantees.
 *
 * Progress goes to stderr; the markdown table to stdout and, with `--out`, DIR/crc.json too.
 *
 * @module
 */
import { parseArgs } from "node:util";

const ROOT = new URL("../", import.meta.url).pathname;

/** The CRC archive's published scores on ma2019 (SDNist v2.3.0 k-marginal; issue 35). */
export const PEER_SCORES = [
  { peer: "MST", epsilon: 1, guarantee: "(ε, δ)-DP", set: "simple-features", score: 861 },
  { peer: "MST", epsilon: 10, guarantee: "(ε, δ)-DP", set: "simple-features", score: 902 },
  { peer: "MST", epsilon: 1, guarantee: "(ε, δ)-DP", set: "demographic-focused", score: 913 },
  { peer: "MST", epsilon: 10, guarantee: "(ε, δ)-DP", set: "demographic-focused", score: 964 },
  { peer: "Genetic SD", epsilon: 10, guarantee: "(ε, δ)-DP", set: "all-features", score: 876 },
  { peer: "Genetic SD", epsilon: 10, guarantee: "(ε, δ)-DP", set: "simple-features", score: 915 },
  { peer: "PrivBayes", epsilon: 10, guarantee: "ε-DP", set: "demographic-focused", score: 732 },
  { peer: "PATE-GAN", epsilon: 10, guarantee: "(ε, δ)-DP", set: "all-features", score: 712 },
  { peer: "synthpop CART", epsilon: null, guarantee: "none", set: "simple-features", score: 942 },
  { peer: "40 % subsample", epsilon: null, guarantee: "none", set: "simple-features", score: 949 },
] as const;

const SETS = [
  "all-features",
  "simple-features",
  "demographic-focused",
  "family-focused",
  "industry-focused",
];

interface Run {
  readonly epsilonTarget: number;
  readonly arm: string;
  readonly seconds: number;
  readonly exit: number;
  readonly error?: string;
  readonly mechanism?: string;
  readonly model?: string;
  readonly epsilon?: number;
  readonly guarantee?: string;
  readonly fits?: number;
  readonly sweeps?: number;
  readonly flagged?: boolean;
  readonly kMarginal?: Record<string, number>;
  readonly worstRule?: { rule: string; rate: number };
  readonly weightTotal?: { confidential: number; synthetic: number };
}

async function runArm(
  args: { data: string; schema: string; seed: number },
  epsilon: number,
  arm: string,
  dir: string,
): Promise<Run> {
  const out = `${dir}/eps${epsilon}-${arm}`;
  const started = performance.now();
  const command = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-sys",
      "--allow-env=XDG_RUNTIME_DIR",
      `${ROOT}src/cli/synth.ts`,
      `--data=${args.data}`,
      `--schema=${args.schema}`,
      "--y=all",
      `--mechanism=${arm === "auto" ? "auto" : arm}`,
      `--epsilon=${epsilon}`,
      "--m=1",
      `--seed=${args.seed}`,
      "--allow-flagged",
      `--out=${out}`,
    ],
    stdout: "piped",
    stderr: "piped",
  });
  const result = await command.output();
  const seconds = (performance.now() - started) / 1000;
  const stderr = new TextDecoder().decode(result.stderr);
  if (result.code !== 0) {
    const error = stderr.trim().split("\n").at(-1) ?? "";
    return { epsilonTarget: epsilon, arm, seconds, exit: result.code, error };
  }
  const read = async (name: string) => JSON.parse(await Deno.readTextFile(`${out}/${name}`));
  const report = await read("report.json");
  const diagnostics = await read("diagnostics.json");
  const [utility] = await read("utility.json");
  const n = report.n as number;
  const worst = (utility.rules as { rule: string; synthetic: number }[])
    .reduce((a, b) => (b.synthetic > a.synthetic ? b : a), { rule: "none", synthetic: 0 });
  const person = (utility.weights as { column: string; total: Run["weightTotal"] }[])[0];
  return {
    epsilonTarget: epsilon,
    arm,
    seconds,
    exit: 0,
    mechanism: report.mechanism,
    model: report.model,
    epsilon: report.epsilon,
    guarantee: report.guarantee,
    fits: diagnostics.refits.length,
    sweeps: diagnostics.refits.reduce(
      (sum: number, refit: { gradientEvaluations?: number }) =>
        sum + (refit.gradientEvaluations ?? 0),
      0,
    ),
    flagged: diagnostics.fit.flagged,
    kMarginal: utility.crcKMarginal,
    worstRule: { rule: worst.rule, rate: worst.synthetic / n },
    weightTotal: person?.total,
  };
}

function markdown(runs: readonly Run[]): string {
  const lines = [
    "| system | ε target | guarantee | ε | " + SETS.join(" | ") +
    " | worst rule | Σ PWGTP syn / conf | fits | sweeps or draws | flagged | wall s |",
    "|---|---|---|---|" + SETS.map(() => "---|").join("") + "---|---|---|---|---|---|",
  ];
  for (const run of runs) {
    const label = `ppsynth ${run.arm === "auto" ? "auto" : run.arm} (${run.model ?? "?"}, ${
      run.mechanism ?? "?"
    })`;
    if (run.exit !== 0) {
      lines.push(
        `| ${label} | ${run.epsilonTarget} | — | — | ${
          SETS.map(() => "—").join(" | ")
        } | exit ${run.exit}: ${run.error} | | | | | ${run.seconds.toFixed(0)} |`,
      );
      continue;
    }
    const ratio = run.weightTotal === undefined
      ? "—"
      : (run.weightTotal.synthetic / run.weightTotal.confidential).toFixed(3);
    lines.push(
      `| ${label} | ${run.epsilonTarget} | ${run.guarantee} | ${run.epsilon?.toFixed(3)} | ${
        SETS.map((set) => run.kMarginal?.[set] ?? "—").join(" | ")
      } | ${run.worstRule!.rule}: ${
        (100 * run.worstRule!.rate).toFixed(1)
      } % | ${ratio} | ${run.fits} | ${run.sweeps} | ${run.flagged} | ${run.seconds.toFixed(0)} |`,
    );
  }
  for (const peer of PEER_SCORES) {
    lines.push(
      `| ${peer.peer} (published) | ${peer.epsilon ?? "—"} | ${peer.guarantee} | ${
        peer.epsilon ?? "—"
      } | ${SETS.map((set) => (set === peer.set ? peer.score : "")).join(" | ")} | | | | | | |`,
    );
  }
  return lines.join("\n") + "\n";
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      epsilons: { type: "string", default: "1,5,10" },
      arms: { type: "string", default: "auto,censored" },
      seed: { type: "string", default: "1" },
      out: { type: "string" },
      data: { type: "string", default: `${ROOT}examples/crc/ma2019.csv` },
      schema: { type: "string", default: `${ROOT}examples/crc/ma2019.schema.json` },
    },
  });
  const dir = values.out ?? await Deno.makeTempDir({ prefix: "ppsynth_bench_crc_" });
  const runs: Run[] = [];
  for (const epsilon of values.epsilons.split(",").map(Number)) {
    for (const arm of values.arms.split(",")) {
      console.error(`bench:crc: ε = ${epsilon}, ${arm} …`);
      const run = await runArm(
        { data: values.data, schema: values.schema, seed: Number(values.seed) },
        epsilon,
        arm,
        dir,
      );
      console.error(`bench:crc: ε = ${epsilon}, ${arm}: ${JSON.stringify(run)}`);
      runs.push(run);
    }
  }
  if (values.out !== undefined) {
    await Deno.writeTextFile(`${dir}/crc.json`, JSON.stringify(runs, null, 2) + "\n");
  } else {
    await Deno.remove(dir, { recursive: true });
  }
  console.log(`bench:crc on ${Deno.hostname()}, ${new Date().toISOString().slice(0, 10)}\n`);
  console.log(markdown(runs));
}
