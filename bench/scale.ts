/**
 * Agency-sized files (issue 13): LW_final calibrated to ε = 8 for m = 3 on the negative binomial
 * model with two covariates (a normal z and a binary b; NB-mixture outcomes), through the release
 * pipeline exactly as `deno task synth` runs it (NUTS in worker threads, the CPU Lipschitz pass on
 * every core). For each n it prints the wall time, the fits and what each cost: gradient
 * evaluations, leapfrog steps per iteration, seconds, and the ns per record per gradient of one
 * log density + gradient, the Lipschitz and prediction passes; then ε, and every fit's start,
 * warmup, diagnostics, Δ and predicted Δ. At n = 10⁴, when R is installed, the unweighted fit is
 * set beside rstan's fit of the same model on the same data (bench/scale_stan.R): ESS per second
 * and posterior means.
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
import { fitter, runMechanismUnderCap } from "../src/synthesis/release.ts";
import type { Fit } from "../src/mcmc/fit.ts";
import type { LipschitzBackend } from "../src/mechanisms/lipschitz_backend.ts";
import { rstanSide } from "./scale_peer.ts";
import { benchArgs, scaleDataset } from "./_common.ts";

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

console.log(
  `bench:scale, ${navigator.hardwareConcurrency} logical cores; NUTS ${CHAINS} × ` +
    `(${WARMUP} + ${DRAWS}); LW_final, ε = 8, m = 3; seed ${seed}`,
);
const rows: string[] = [];
const details: string[] = [];
const peer: string[] = [];
for (const n of sizes) {
  const csv = scaleDataset(n, seed);
  const data = parseCsv(csv, `scale_n${n}.csv`);
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
  const fits: {
    label: string;
    fit: Fit;
    seconds: number;
    note: string;
  }[] = [];
  const spent = { lipschitz: 0, lipschitzPasses: 0, predict: 0, predictPasses: 0 };
  const fit = fitter(model, { seed, chains: CHAINS, warmup: WARMUP, drawsPerChain: DRAWS });
  const timedLipschitz: LipschitzBackend = {
    name: parallelCpuLipschitz.name,
    compute: async (m, draws, options) => {
      const t = performance.now();
      const result = await parallelCpuLipschitz.compute(m, draws, options);
      spent.lipschitz += (performance.now() - t) / 1000;
      spent.lipschitzPasses++;
      return result;
    },
  };
  started = performance.now();
  const outcome = await runMechanismUnderCap({
    mechanism: "lw-final",
    m: 3,
    epsilon: 8,
    radius: 0.1,
    relativeRadius: true,
  }, {
    model,
    lipschitz: timedLipschitz,
    predict: async (draws, base, candidates) => {
      const t = performance.now();
      const result = await predictLipschitz(model, draws, base, candidates);
      spent.predict += (performance.now() - t) / 1000;
      spent.predictPasses++;
      return result;
    },
    laplace: () => {
      throw new RangeError("lw-final draws no noise");
    },
    fit: async (weighting, label) => {
      const t = performance.now();
      const result = await fit(weighting, label);
      const { setup } = result;
      const note = setup.warmStartRejected !== undefined
        ? `cold (warm start rejected: ${setup.warmStartRejected})`
        : setup.warmStart
        ? "warm start"
        : `cold, precondition ${setup.precondition}`;
      fits.push({ label, fit: result, seconds: (performance.now() - t) / 1000, note });
      console.error(
        `[bench:scale] n = ${n}: ${label}: ${fits.at(-1)!.seconds.toFixed(1)} s, warmup ` +
          `${result.warmup}, ${result.gradientEvaluations} gradients, ${note}`,
      );
      return result;
    },
  });
  const wall = (performance.now() - started) / 1000;
  const total = (f: (x: (typeof fits)[number]) => number) => fits.reduce((s, x) => s + f(x), 0);
  const gradients = total((x) => x.fit.gradientEvaluations);
  const iterations = total((x) => x.fit.chains * (x.fit.warmup + x.fit.drawsPerChain));
  rows.push(
    `| ${n} | ${wall.toFixed(1)} | ${fits.length} | ${(gradients / fits.length).toFixed(0)} | ` +
      `${(gradients / iterations).toFixed(1)} | ${
        (total((x) => x.seconds) / fits.length).toFixed(1)
      } | ` +
      `${nsPerRecord.toFixed(1)} | ${spent.lipschitzPasses} × ${
        (spent.lipschitz / Math.max(1, spent.lipschitzPasses)).toFixed(1)
      } | ` +
      `${spent.predictPasses} × ${
        (spent.predict / Math.max(1, spent.predictPasses)).toFixed(1)
      } | ` +
      `${outcome.lipschitz.toFixed(4)} | ${outcome.privacy.epsilon.toFixed(4)} |`,
  );
  details.push(`n = ${n}, final fit: ${outcome.finalFit}`);
  outcome.refits.forEach((refit, j) => {
    const f = fits[j];
    const predicted = refit.predicted === undefined
      ? "–"
      : `${refit.predicted.lipschitz.toFixed(4)} (k̂ ${refit.predicted.paretoK.toFixed(2)})`;
    details.push(
      `| ${refit.label} | ${f.note} | ${f.fit.warmup} | ${f.fit.gradientEvaluations} | ` +
        `${f.seconds.toFixed(1)} | ${f.fit.rhatMax.toFixed(4)} | ${
          f.fit.essBulkMin.toFixed(0)
        } | ` +
        `${f.fit.divergences} | ${refit.lipschitz.toFixed(4)} | ${predicted} |`,
    );
  });
  if (n === 10_000) {
    const first = fits[0];
    const path = await Deno.makeTempFile({ suffix: ".csv" });
    await Deno.writeTextFile(path, csv);
    const stan = await rstanSide(path, { chains: CHAINS, warmup: WARMUP, draws: DRAWS, seed });
    await Deno.remove(path);
    const ppsynthEss = first.fit.essBulkMin / first.seconds;
    peer.push(
      `| ppsynth | ${first.seconds.toFixed(1)} | ${first.fit.gradientEvaluations} | ` +
        `${first.fit.essBulkMin.toFixed(0)} | ${ppsynthEss.toFixed(1)} | ` +
        `${model.paramNames.map((name) => first.fit.summary[name].mean.toFixed(4)).join(" | ")} |`,
    );
    peer.push(
      stan === null
        ? "| rstan | not run: Rscript is not installed | | | | |"
        : `| rstan | ${stan.samplingWallSeconds.toFixed(1)} | ${stan.gradientEvaluations} | ` +
          `${stan.essBulkMin.toFixed(0)} | ${
            (stan.essBulkMin / stan.samplingWallSeconds).toFixed(1)
          } | ` +
          `${model.paramNames.map((name) => stan.means[name].toFixed(4)).join(" | ")} |`,
    );
    if (stan !== null) {
      peer.push(
        `ESS/s ratio (wall): ${
          (ppsynthEss / (stan.essBulkMin / stan.samplingWallSeconds)).toFixed(1)
        }×; ` +
          `rstan compile ${stan.compileSeconds.toFixed(1)} s, whole process ${
            stan.seconds.toFixed(1)
          } s`,
      );
    }
  }
}

console.log(
  "| n | wall (s) | fits | gradients per fit | leapfrog steps per iteration | s per fit | " +
    "ns per record per gradient | Lipschitz passes × s | prediction passes × s | Δ | ε |",
);
console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
rows.forEach((row) => console.log(row));
console.log(
  "\nEvery fit (refit label, start, warmup per chain, gradients, seconds, R̂ max, bulk ESS min, divergences, Δ, predicted Δ):\n",
);
for (const line of details) {
  if (line.startsWith("n = ")) {
    console.log(`\n${line}\n`);
    console.log(
      "| refit | start | warmup | gradients | s | R̂ max | ESS min | div. | Δ | predicted Δ |",
    );
    console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
  } else {
    console.log(line);
  }
}
if (peer.length > 0) {
  console.log(
    "\nThe unweighted fit at n = 10⁴ beside rstan (bench/scale_stan.R, the same model and data, " +
      "2 cores), wall seconds of sampling:\n",
  );
  console.log(
    `| tool | sampling wall (s) | gradients | bulk ESS min | ESS/s | ${
      ["intercept", "z", "b", "σ_intercept", "σ_z", "σ_b", "φ"].join(" | ")
    } |`,
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  peer.forEach((line) => console.log(line));
}
