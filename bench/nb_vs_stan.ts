/**
 * Peer benchmark (issue 2): the negative binomial model of the vector-weighted paper on the
 * SPEC §9.2 mixture, 4 chains × 1000 draws after 1000 warmup, at n = 1000 and n = 10,000,
 * fitted by ppsynth (`deno task fit`, a fresh process) and by rstan (bench/nb_stan.R, compile
 * included) in the same run on the same CSV files. Writes docs/performance.md's NB section
 * to out/bench/nb_vs_stan.json and prints a markdown table.
 *
 *     deno task bench [--sizes 1000,10000] [--seed N]
 *
 * @module
 */
import { benchArgs, timed } from "./_common.ts";
import { formatCsv } from "../src/data/csv.ts";
import { Rng } from "../src/random/rng.ts";
import { simulateNbMixture } from "../src/studies/nb_mixture.ts";

interface Side {
  tool: string;
  n: number;
  totalSeconds: number;
  samplingSeconds: number;
  gradientEvaluations: number;
  essBulkBeta: number;
  essBulkPhi: number;
  meanBeta: number;
  meanPhi: number;
}

const OUT = "out/bench";

async function ppsynth(csv: string, n: number, seed: number): Promise<Side> {
  const dir = `${OUT}/ppsynth-n${n}`;
  const { seconds } = await timed(Deno.execPath(), [
    "run",
    "--allow-read",
    "--allow-write",
    "src/cli/fit.ts",
    `--data=${csv}`,
    "--y=y",
    "--model=negbin",
    // rstan runs the paper's Stan program (bench/nb_stan.R): the same prior.
    "--prior=paper",
    "--chains=4",
    "--warmup=1000",
    "--draws=1000",
    `--seed=${seed}`,
    `--out=${dir}`,
  ]);
  const fit = JSON.parse(await Deno.readTextFile(`${dir}/fit.json`));
  return {
    tool: "ppsynth",
    n,
    totalSeconds: seconds,
    samplingSeconds: fit.samplingSeconds,
    gradientEvaluations: fit.gradientEvaluations,
    essBulkBeta: fit.summary.intercept.essBulk,
    essBulkPhi: fit.summary.phi.essBulk,
    meanBeta: fit.summary.intercept.mean,
    meanPhi: fit.summary.phi.mean,
  };
}

async function rstan(csv: string, n: number, seed: number): Promise<Side> {
  const { seconds, stdout } = await timed("Rscript", ["bench/nb_stan.R", csv, String(seed)]);
  const line = stdout.trim().split("\n").at(-1)!;
  const stan = JSON.parse(line);
  return {
    tool: "rstan",
    n,
    totalSeconds: seconds,
    samplingSeconds: stan.samplingSeconds,
    gradientEvaluations: stan.gradientEvaluations,
    essBulkBeta: stan.essBulkBeta,
    essBulkPhi: stan.essBulkPhi,
    meanBeta: stan.meanBeta,
    meanPhi: stan.meanPhi,
  };
}

function table(sides: Side[]): string {
  const head = "| tool | n | end-to-end wall (s) | sampling (s) | gradients/s | bulk ESS/s β | " +
    "bulk ESS/s φ | mean β | mean φ |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|";
  const rows = sides.map((s) =>
    `| ${s.tool} | ${s.n} | ${s.totalSeconds.toFixed(1)} | ${s.samplingSeconds.toFixed(2)} | ` +
    `${Math.round(s.gradientEvaluations / s.samplingSeconds)} | ` +
    `${(s.essBulkBeta / s.samplingSeconds).toFixed(0)} | ` +
    `${(s.essBulkPhi / s.samplingSeconds).toFixed(0)} | ${s.meanBeta.toFixed(4)} | ` +
    `${s.meanPhi.toFixed(3)} |`
  );
  return [head, ...rows].join("\n");
}

async function main(): Promise<void> {
  const values = benchArgs({ sizes: "1000,10000", seed: "7" });
  const seed = Number(values.seed);
  await Deno.mkdir(OUT, { recursive: true });
  const sides: Side[] = [];
  for (const n of values.sizes.split(",").map(Number)) {
    const csv = `${OUT}/nb_mixture_n${n}.csv`;
    const y = simulateNbMixture(new Rng(seed).split(n), n);
    await Deno.writeTextFile(csv, formatCsv(new Map([["y", y]])));
    console.error(`[bench] n = ${n}: ppsynth`);
    sides.push(await ppsynth(csv, n, seed));
    console.error(`[bench] n = ${n}: rstan (compile included)`);
    sides.push(await rstan(csv, n, seed));
  }
  await Deno.writeTextFile(`${OUT}/nb_vs_stan.json`, JSON.stringify(sides, null, 2));
  console.log(table(sides));
}

if (import.meta.main) await main();
