/**
 * Issue 27, GPU-backed batch simulation: a study whose fits run as the GPU's many-chain HMC
 * (`sampler: "gpu-hmc"`) agrees with the same study on the CPU's NUTS within Monte Carlo error.
 * Study 3 at a reduced size (n = 150, `_study_sampler.ts`): the NUTS side is recorded
 * (`test/reference/study_sampler_nuts.ts`, 16 databases), the GPU side runs on the first three
 * of those databases (the same seed: their data summaries and the histogram synthesizer's
 * measures, which no fit touches, equal the recorded ones), its chains warmed up for 100
 * iterations. Per ε and synthesizer, the mean max-ECDF and the mean Δ over databases differ by
 * at most 4 combined standard errors, and every censored bound stays under ε/2 on the GPU.
 */
import assert from "node:assert/strict";
import { FIVE_MECHANISMS, study } from "../../src/studies/five.ts";
import { runStudy } from "../../src/studies/study_runner.ts";
import { announceGpu, GPU_TEST } from "./_helpers.ts";
import { type Measured, measured, SMALL, STUDY_SEED } from "./_study_sampler.ts";

announceGpu("the GPU study sampler test", true);

/** The recorded NUTS run. */
const NUTS = JSON.parse(
  await Deno.readTextFile(new URL("../reference/study_sampler_nuts.json", import.meta.url)),
) as { seed: number; settings: unknown; replicates: Measured[] };

/** mean ± standard error over the databases where it ran. */
function meanSe(values: readonly number[]): { mean: number; se: number; n: number } {
  const n = values.length;
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1);
  return { mean, se: Math.sqrt(variance / n), n };
}

Deno.test({
  name: "study 3 with every fit on the GPU's HMC agrees with NUTS within Monte Carlo error",
  ...GPU_TEST,
  fn: async () => {
    assert.deepEqual(
      { seed: NUTS.seed, settings: NUTS.settings },
      JSON.parse(JSON.stringify({ seed: STUDY_SEED, settings: SMALL })),
      "the recorded NUTS run's settings (rerun test/reference/study_sampler_nuts.ts)",
    );
    // The GPU's chains warm up 100 iterations (NUTS's 150): the tolerance is the databases'
    // standard error, which the warmup leaves as it is; a short warmup can only add bias.
    const sampler = { ...SMALL.sampler, warmup: 100, sampler: "gpu-hmc" as const };
    const settings = { ...SMALL, sampler };
    const run = await runStudy(study, { seed: STUDY_SEED, replicates: 3, settings, workers: 0 });
    assert.equal(run.settings.sampler.sampler, "gpu-hmc");
    const gpu = run.records.map(measured);
    for (const record of gpu) {
      const recorded = NUTS.replicates[record.r];
      assert.deepEqual(record.data, recorded.data, `replicate ${record.r}: another database`);
      assert.deepEqual(
        record.epsilons.map((e) => e.histogram),
        recorded.epsilons.map((e) => e.histogram),
        `replicate ${record.r}: the histogram synthesizer`,
      );
    }
    for (const [e, epsilon] of SMALL.epsilons.entries()) {
      for (const mechanism of FIVE_MECHANISMS) {
        const values = (records: readonly Measured[], key: "ecdfMax" | "lipschitz") =>
          records.flatMap((r) => {
            const v = r.epsilons[e][mechanism]?.[key];
            return v === null || v === undefined ? [] : [v];
          });
        for (const key of ["ecdfMax", "lipschitz"] as const) {
          const [a, b] = [values(NUTS.replicates, key), values(gpu, key)];
          if (a.length < 2 || b.length < 2) continue;
          const [x, y] = [meanSe(a), meanSe(b)];
          const allowed = 4 * Math.hypot(x.se, y.se) + 1e-9;
          console.log(
            `ε = ${epsilon} ${mechanism} ${key}: |GPU − NUTS| / combined SE ${
              (Math.abs(x.mean - y.mean) / Math.hypot(x.se, y.se)).toFixed(2)
            } (${y.n} and ${x.n} databases)`,
          );
          assert.ok(
            Math.abs(x.mean - y.mean) <= allowed,
            `ε = ${epsilon} ${mechanism} ${key}: NUTS ${x.mean} (${x.n}), GPU ${y.mean} (${y.n})`,
          );
        }
        for (const record of gpu) {
          const entry = record.epsilons[e][mechanism];
          if (mechanism.startsWith("censored") && entry !== null) {
            assert.ok(entry.lipschitz! <= epsilon / 2, `${mechanism} above ε/2 on the GPU`);
          }
        }
      }
    }
  },
});
