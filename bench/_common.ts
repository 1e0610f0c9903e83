/**
 * What the benchmarks share: `--name VALUE` flags with defaults (all strings), timed
 * subprocesses (the peers: Rscript, `deno task`), the agency-sized NB data and the in-process
 * cost of one log density + gradient.
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { Model } from "../src/models/model.ts";
import { sampleNegBinomial } from "../src/random/distributions.ts";
import { Rng } from "../src/random/rng.ts";

/**
 * Parses the benchmark's flags.
 *
 * @param defaults Every flag the benchmark takes, with its default value.
 * @param args The command line (default `Deno.args`).
 * @returns The values, by flag name.
 */
export function benchArgs<K extends string>(
  defaults: Record<K, string>,
  args: string[] = Deno.args,
): Record<K, string> {
  const options = Object.fromEntries(
    Object.entries(defaults).map(([name, value]) => [name, { type: "string", default: value }]),
  ) as Record<string, { type: "string"; default: string }>;
  return parseArgs({ args, options }).values as Record<K, string>;
}

/**
 * Runs a command and times it; a failure throws with its stderr.
 *
 * @param command The program.
 * @param args Its arguments.
 * @param cwd Its working directory (default: this process's).
 * @returns The wall time in seconds and the standard output.
 */
export async function timed(
  command: string,
  args: string[],
  cwd?: string,
): Promise<{ seconds: number; stdout: string }> {
  const started = performance.now();
  const result = await new Deno.Command(command, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  const seconds = (performance.now() - started) / 1000;
  const stdout = new TextDecoder().decode(result.stdout);
  if (!result.success) {
    throw new Error(
      `${command} ${args.join(" ")} failed:\n${new TextDecoder().decode(result.stderr)}`,
    );
  }
  return { seconds, stdout };
}

/**
 * The data of `bench:scale` and the record-loop benchmark: NB-mixture outcomes (φ = 5 with
 * probability 0.2, else 20) with log μ = 4.6 + 0.3·z − 0.4·b, z ~ N(0, 1), b ~ Bernoulli(0.4), as
 * CSV with columns y, z, b.
 *
 * @param n Records.
 * @param seed The stream's seed (split by n).
 */
export function scaleDataset(n: number, seed: number): string {
  const rng = new Rng(seed).split(n);
  const lines = ["y,z,b"];
  for (let i = 0; i < n; i++) {
    const z = rng.normal();
    const b = rng.uniform() < 0.4 ? 1 : 0;
    const phi = rng.uniform() < 0.2 ? 5 : 20;
    const y = sampleNegBinomial(rng, Math.exp(4.6 + 0.3 * z - 0.4 * b), phi);
    lines.push(`${y},${z.toFixed(6)},${b}`);
  }
  return lines.join("\n") + "\n";
}

/**
 * ns per log density + gradient of `model` at 64 points jittered around its start, with α = ¼
 * (as NUTS moves every parameter): about 0.2 s of warm-up, then about 1 s timed.
 *
 * @param model The model.
 * @returns Nanoseconds per call.
 */
export function nsPerGradient(model: Model): number {
  const weighting = { alpha: new Float64Array(model.design.n).fill(0.25) };
  const start = model.initialPoint();
  const points = Array.from(
    { length: 64 },
    (_, p) => start.map((v, j) => v + 0.05 * Math.sin(p * 7 + j)),
  );
  const grad = new Float64Array(model.dim);
  let calls = 0;
  let started = performance.now();
  while (performance.now() - started < 200) model.logDensity(points[calls++ % 64], grad, weighting);
  const timed = Math.max(10, Math.round(calls * 5));
  started = performance.now();
  for (let i = 0; i < timed; i++) model.logDensity(points[i % 64], grad, weighting);
  return ((performance.now() - started) / timed) * 1e6;
}

/**
 * The `synth` options of an LW_final release at ε with m synthetic datasets.
 *
 * @param epsilon The ε.
 * @param m The number of datasets.
 * @returns `--mechanism lw-final --epsilon ε --m m`.
 */
export function lwFinalArgs(epsilon: number, m: number): string[] {
  return ["--mechanism", "lw-final", "--epsilon", String(epsilon), "--m", String(m)];
}

/** The apistrat data of the acceptance run. */
export const APISTRAT_DATA = "examples/apistrat.csv";

/** The acceptance run's `synth` options: apistrat's three outcomes given stype, LW_final at ε = 20, m = 2. */
export const APISTRAT_ARGS: readonly string[] = [
  "--data",
  APISTRAT_DATA,
  "--y",
  "api00,enroll,awards",
  "--model",
  "normal,negbin,logistic",
  "--x",
  "stype",
  ...lwFinalArgs(20, 2),
];
