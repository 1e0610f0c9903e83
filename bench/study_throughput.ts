/**
 * Study throughput on both samplers (issue 27, GPU-backed batch simulation): the first R
 * replicates of a registered study at its full-size settings, once with every fit on the CPU's
 * NUTS (replicates in worker threads, one per logical core) and once with every fit on the GPU's
 * many-chain HMC (`--sampler gpu-hmc`, replicates in this thread: one device), with the counts
 * that explain the times,
 *
 *     deno run -A bench/study_throughput.ts [--study five] [--replicates 2] [--seed 1]
 *       [--samplers nuts,gpu-hmc]
 *
 * Per sampler: wall time, replicates per hour, fits (the records' `fits` or `fitStats`: five and
 * survey; memoised repeats not counted), seconds per fit and the fits flagged (R̂, bulk ESS or a divergence). The replicates
 * are the same databases both ways (same seed), so the records can be compared as the study test
 * does (`test/gpu/study_sampler_test.ts`). Progress to stderr, a markdown table to stdout.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { acquireGpu } from "../src/gpu/device.ts";
import { STUDIES } from "../src/studies/registry.ts";
import { type FitStats, runStudy, type SamplerSettings } from "../src/studies/study_runner.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    study: { type: "string", default: "five" },
    replicates: { type: "string", default: "2" },
    seed: { type: "string", default: "1" },
    samplers: { type: "string", default: "nuts,gpu-hmc" },
  },
});
const entry = STUDIES[values.study];
if (entry === undefined) throw new Error(`Unknown study: ${values.study}`);
const replicates = Number(values.replicates);
const seed = Number(values.seed);
const gpu = await acquireGpu();
console.log(`GPU adapter: ${gpu?.description ?? "none"}; ${navigator.hardwareConcurrency} cores`);
console.log("");
console.log(
  "| study | R | sampler | wall (s) | replicates per hour | fits | s per fit | flagged fits |",
);
console.log("|---|---:|---|---:|---:|---:|---:|---:|");
for (const sampler of values.samplers.split(",")) {
  const base = entry.settings as { sampler: SamplerSettings };
  const settings = sampler === "gpu-hmc"
    ? { ...base, sampler: { ...base.sampler, sampler: "gpu-hmc" as const } }
    : base;
  const started = performance.now();
  const result = await runStudy(entry.study, {
    seed,
    replicates,
    settings,
    workers: sampler === "gpu-hmc" ? 0 : navigator.hardwareConcurrency,
    onStage: (r, stage) => console.error(`[${sampler}] replicate ${r + 1}: ${stage}`),
  });
  const wall = (performance.now() - started) / 1000;
  const stats = (result.records as { fits?: FitStats; fitStats?: FitStats }[]).map((r) => {
    const counts = r.fits ?? r.fitStats;
    if (counts === undefined) throw new Error(`${values.study}'s records carry no fit counts`);
    return counts;
  });
  const fits = stats.reduce((s, x) => s + x.fits, 0);
  const flagged = stats.reduce((s, x) => s + x.flagged, 0);
  console.log(
    `| ${values.study} | ${replicates} | ${sampler} | ${wall.toFixed(1)} | ` +
      `${(replicates / wall * 3600).toFixed(1)} | ${fits} | ${(wall / fits).toFixed(2)} | ` +
      `${flagged} |`,
  );
}
