import assert from "node:assert/strict";
import { parseCsv } from "../../src/data/csv.ts";
import { Rng } from "../../src/random/rng.ts";
import { sampleNegBinomial } from "../../src/random/distributions.ts";
import { SynthesisSpec } from "../../src/synthesis/spec.ts";
import { synthesize } from "../../src/synthesis/synthesize.ts";
import { announceGpu, GPU_HMC_RUN, gpuTest } from "./_helpers.ts";
import { assertSynthesisParity } from "./_synthesis_parity.ts";

announceGpu("pipeline GPU tests");

const seed = crypto.getRandomValues(new Uint32Array(1))[0];
const rng = new Rng(seed);
const rows = Array.from(
  { length: 300 },
  () => `${sampleNegBinomial(rng, 80, 10)},${rng.normal().toFixed(3)}`,
);
const DATA = parseCsv("y,z\n" + rows.join("\n") + "\n", "random.csv");

for (
  const [model, mechanism, extra] of [
    ["negbin", "lw", { epsilon: 12 }],
    // ε = 60: a third of the weights truncated (at ε = 12 the cascade zeroes all of them).
    ["poisson", "weighted-e", { epsilon: 60, g: 0.5 }],
    ["negbin", "censored", { epsilon: 4 }],
  ] as const
) {
  gpuTest(`--backend gpu gives the CPU's report and data for ${model}/${mechanism}`, async () => {
    // A truncation cascade may end above the target (docs/decisions.md): the same error.
    const spec = { y: "y", x: ["z"], model, mechanism, seed: 7, ...extra };
    const checks = { epsilon: false, recordLipschitz: false };
    await assertSynthesisParity(DATA, spec, `seed ${seed}`, checks);
  });
}

gpuTest(
  "--sampler gpu-hmc synthesises with many GPU chains and reports ε from its draws",
  async () => {
    const result = await synthesize(
      DATA,
      SynthesisSpec.parse({ y: "y", model: "negbin", mechanism: "lw", ...GPU_HMC_RUN }),
    );
    assert.ok(result.report.epsilon <= 12);
    assert.equal(result.report.epsilon, 2 * result.report.lipschitz! * 2);
    const recomputed = Math.max(...result.diagnostics.recordLipschitz!);
    assert.equal(recomputed, result.report.lipschitz);
  },
);
