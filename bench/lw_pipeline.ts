/**
 * End-to-end LW pipeline on both backends (issue 4): the NB model of the vector-weighted paper
 * on the SPEC §9.2 mixture, LW calibrated to ε = 8 with m = 3, S = 4000 draws, run three ways in
 * one process: CPU NUTS + CPU Lipschitz, CPU NUTS + GPU Lipschitz (the same draws, so the same
 * ε), and GPU many-chain HMC + GPU Lipschitz. Prints a markdown table of wall time and ε.
 *
 *     deno run -A bench/lw_pipeline.ts [--sizes 1000,10000]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { parseCsv } from "../src/data/csv.ts";
import { acquireGpu } from "../src/gpu/device.ts";
import { Rng } from "../src/random/rng.ts";
import { simulateNbMixture } from "../src/studies/nb_mixture.ts";
import { SynthesisSpec } from "../src/synthesis/spec.ts";
import { synthesize } from "../src/synthesis/synthesize.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { sizes: { type: "string", default: "1000,10000" } },
});
const gpu = await acquireGpu();
console.log(`GPU adapter: ${gpu?.description ?? "none"}`);
console.log("| n | sampler | Lipschitz | wall (s) | fits | Δ | ε |");
console.log("|---:|---|---|---:|---:|---:|---:|");
for (const n of values.sizes.split(",").map(Number)) {
  const y = simulateNbMixture(new Rng(7).split(n), n);
  const data = parseCsv("y\n" + Array.from(y).join("\n") + "\n", `nb_mixture_n${n}.csv`);
  for (
    const [sampler, backend] of [["nuts", "cpu"], ["nuts", "gpu"], ["gpu-hmc", "gpu"]] as const
  ) {
    const spec = SynthesisSpec.parse({
      y: "y",
      model: "negbin",
      mechanism: "lw",
      epsilon: 8,
      m: 3,
      seed: 11,
      draws: 4000,
      backend,
      sampler,
    });
    const started = performance.now();
    const result = await synthesize(data, spec);
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `| ${n} | ${sampler} | ${result.report.backend} | ${seconds.toFixed(1)} | ` +
        `${result.diagnostics.refits.length} | ${result.report.lipschitz!.toFixed(4)} | ` +
        `${result.report.epsilon.toFixed(4)} |`,
    );
  }
}
