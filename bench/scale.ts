/**
 * Agency-sized files (issue 13): LW_final calibrated to ε = 8 for m = 3 on the negative binomial
 * model with two covariates (a normal z and a binary b; NB-mixture outcomes), through the release
 * pipeline exactly as `deno task synth` runs it (NUTS in worker threads, the CPU Lipschitz pass on
 * every core). For each n it prints the wall time, the fits and what each cost: gradient
 * evaluations, leapfrog steps per iteration, seconds, and the ns per record per gradient of one
 * log density + gradient; then ε. The rstan side of the comparison is not written yet.
 *
 *     deno task bench:scale [--sizes 10000,100000] [--full] [--seed 7]
 *
 * `--full` adds n = 10⁶.
 *
 * @module
 */
import { parseCsv } from "../src/data/csv.ts";
import { parallelCpuLipschitz } from "../src/mechanisms/parallel_lipschitz.ts";
import { predictLipschitz } from "../src/mechanisms/predict_lipschitz.ts";
import { createModel, outcomeKind } from "../src/models/mod.ts";
import { buildDesign } from "../src/data/design.ts";
import { sampleNegBinomial } from "../src/random/distributions.ts";
import { Rng } from "../src/random/rng.ts";
import { fitter, runRelease } from "../src/synthesis/release.ts";
import { benchArgs } from "./_common.ts";

const full = Deno.args.includes("--full");
const values = benchArgs(
  { sizes: "10000,100000", seed: "7" },
  Deno.args.filter((a) => a !== "--full"),
);
const sizes = values.sizes.split(",").map(Number);
if (full) sizes.push(1_000_000);
const seed = Number(values.seed);
const CHAINS = 4;
const WARMUP = 1000;
const DRAWS = 1000;

/** NB-mixture outcomes with log μ = 4.6 + 0.3 z − 0.4 b (the vector-weighted paper's mixture). */
function dataset(n: number): string {
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

console.log(
  `bench:scale, ${navigator.hardwareConcurrency} logical cores; NUTS ${CHAINS} × ` +
    `(${WARMUP} + ${DRAWS}); LW_final, ε = 8, m = 3; seed ${seed}`,
);
console.log(
  "| n | wall (s) | fits | gradients per fit | leapfrog steps per iteration | s per fit | ns per record per gradient | Δ | ε |",
);
console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const n of sizes) {
  const data = parseCsv(dataset(n), `scale_n${n}.csv`);
  const design = buildDesign(data, { y: "y", x: ["z", "b"] }, outcomeKind("negbin"));
  const model = createModel("negbin", design);
  // One log density + gradient, timed over repeats, at a point where η differs between records
  // (at the initial point all coefficients but the intercept are 0 and the loop's η cache hits).
  const u = model.initialPoint();
  for (let j = 1; j < design.k; j++) u[j] = 0.1;
  const grad = new Float64Array(model.dim);
  const repeats = Math.max(3, Math.round(2e7 / n));
  let started = performance.now();
  for (let r = 0; r < repeats; r++) model.logDensity(u, grad, { alpha: null });
  const nsPerRecord = ((performance.now() - started) * 1e6) / (repeats * n);
  const fits: { gradients: number; iterations: number; seconds: number; note: string }[] = [];
  const fit = fitter(model, { seed, chains: CHAINS, warmup: WARMUP, drawsPerChain: DRAWS });
  started = performance.now();
  const outcome = await runRelease({
    mechanism: "lw-final",
    m: 3,
    epsilon: 8,
    radius: 0.1,
    relativeRadius: true,
  }, {
    model,
    lipschitz: parallelCpuLipschitz,
    predict: (draws, base, candidates) => predictLipschitz(model, draws, base, candidates),
    laplace: () => {
      throw new RangeError("lw-final draws no noise");
    },
    fit: async (weighting, label) => {
      const t = performance.now();
      const result = await fit(weighting, label);
      const { setup } = result;
      const note = setup.warmStartRejected !== undefined
        ? `cold after a rejected warm start: ${setup.warmStartRejected}`
        : setup.warmStart
        ? "warm start"
        : `precondition ${setup.precondition}`;
      fits.push({
        gradients: result.gradientEvaluations,
        iterations: result.chains * (result.warmup + result.drawsPerChain),
        seconds: (performance.now() - t) / 1000,
        note,
      });
      console.error(
        `[bench:scale] n = ${n}: ${label}: ${fits.at(-1)!.seconds.toFixed(1)} s, warmup ` +
          `${result.warmup}, ${result.gradientEvaluations} gradients, ${note}`,
      );
      return result;
    },
  });
  const wall = (performance.now() - started) / 1000;
  const gradients = fits.reduce((s, f) => s + f.gradients, 0) / fits.length;
  const steps = fits.reduce((s, f) => s + f.gradients, 0) /
    fits.reduce((s, f) => s + f.iterations, 0);
  const perFit = fits.reduce((s, f) => s + f.seconds, 0) / fits.length;
  console.log(
    `| ${n} | ${wall.toFixed(1)} | ${fits.length} | ${gradients.toFixed(0)} | ${
      steps.toFixed(1)
    } | ` +
      `${perFit.toFixed(1)} | ${nsPerRecord.toFixed(1)} | ${outcome.lipschitz.toFixed(4)} | ` +
      `${outcome.privacy.epsilon.toFixed(4)} |`,
  );
}
