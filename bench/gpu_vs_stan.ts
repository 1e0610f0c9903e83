/**
 * GPU many-chain HMC beside rstan (issue 27): the default logistic model (`student-t` prior) on
 * CPS1988's parttime (examples/cps1988.csv, n = 28,155), the fit the recorded rstan reference of
 * `test/models/cps1988_stan_test.ts` holds (test/reference/cps1988_expected.json, from
 * test/reference/cps1988_stan.R), sampled by `sampleGpuHmc` on whatever WebGPU adapter there is,
 *
 *     deno run -A bench/gpu_vs_stan.ts [--chains 64] [--warmup 500] [--draws 250] [--seed 1]
 *
 * Per coefficient: both posterior means, the difference in combined MCSE √(sd₁²/ESS₁ + sd₂²/ESS₂)
 * (bulk ESS), and both bulk ESS; then wall time, R̂ max, divergences and the smallest ESS per
 * second both ways (rstan's as recorded, on its own machine and date). A markdown table to stdout.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { acquireGpu } from "../src/gpu/device.ts";
import { sampleGpuHmc } from "../src/gpu/hmc.ts";
import { summarizeFit } from "../src/mcmc/fit.ts";
import { CPS1988_DESIGN, CPS1988_MODEL, CPS1988_REFERENCE } from "../test/models/_cps1988.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    chains: { type: "string", default: "64" },
    warmup: { type: "string", default: "500" },
    draws: { type: "string", default: "250" },
    seed: { type: "string", default: "1" },
  },
});
const [reference, design, model] = [CPS1988_REFERENCE, CPS1988_DESIGN, CPS1988_MODEL];
const gpu = await acquireGpu();
if (gpu === null) throw new Error("No WebGPU adapter");
const [chains, warmup, draws, seed] = [values.chains, values.warmup, values.draws, values.seed]
  .map(Number);
const started = performance.now();
const fit = summarizeFit(
  model,
  await sampleGpuHmc(gpu, model, { alpha: null }, { seed, chains, warmup, draws }),
  undefined,
  warmup,
);
const wall = (performance.now() - started) / 1000;
console.log(`GPU adapter: ${gpu.description}; ${chains} chains × (${warmup} + ${draws})`);
console.log("");
console.log(
  "| coefficient | GPU HMC mean | rstan mean | difference (combined MCSE) | ESS GPU | ESS rstan |",
);
console.log("|---|---:|---:|---:|---:|---:|");
let worst = 0;
for (const [j, name] of design.coefficientNames.entries()) {
  const ours = fit.summary[model.paramNames[j]];
  const theirs = reference.fit[`beta[${j + 1}]`];
  const mcse = Math.hypot(
    ours.sd / Math.sqrt(ours.essBulk),
    theirs.sd / Math.sqrt(theirs.ess_bulk),
  );
  const z = (ours.mean - theirs.mean) / mcse;
  worst = Math.max(worst, Math.abs(z));
  console.log(
    `| ${name} | ${ours.mean.toPrecision(6)} | ${theirs.mean.toPrecision(6)} | ${z.toFixed(2)} | ` +
      `${ours.essBulk.toFixed(0)} | ${theirs.ess_bulk.toFixed(0)} |`,
  );
}
const essMin = Math.min(
  ...design.coefficientNames.map((_, j) => fit.summary[model.paramNames[j]].essBulk),
);
console.log("");
console.log(
  `Largest difference ${worst.toFixed(2)} combined MCSE; GPU wall ${wall.toFixed(1)} s, R̂ max ` +
    `${fit.rhatMax.toFixed(4)}, ${fit.divergences} divergences, smallest coefficient ESS per ` +
    `second ${(essMin / wall).toFixed(1)}; rstan's recorded (4 × (1000 + 1000), 2 cores): ` +
    `${reference.sampler.sampling_wall_seconds} s, ${reference.sampler.divergences} divergences, ` +
    `smallest ESS per second ${reference.sampler.ess_bulk_per_second_min.toFixed(1)}.`,
);
