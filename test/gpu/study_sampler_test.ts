/**
 * Issue 27, GPU-backed batch simulation: a study whose fits run as the GPU's many-chain HMC
 * (`sampler: "gpu-hmc"`) agrees with the same study on the CPU's NUTS within Monte Carlo error.
 * Study 3 at a reduced size (n = 150, four databases), on the same databases (same seed): per ε
 * and synthesizer, the mean max-ECDF and the mean Δ over databases differ by at most 4 combined
 * standard errors, and every censored bound stays under ε/2 on both.
 */
import assert from "node:assert/strict";
import {
  FIVE_MECHANISMS,
  FIVE_SETTINGS,
  type FiveSettings,
  study,
} from "../../src/studies/five.ts";
import type { FiveRecord } from "../../src/studies/five_result.ts";
import { runStudy } from "../../src/studies/study_runner.ts";
import { announceGpu, GPU_TEST } from "./_helpers.ts";

announceGpu("the GPU study sampler test", true);

const SMALL: FiveSettings = {
  ...FIVE_SETTINGS,
  n: 150,
  epsilons: [5, 3],
  downscaling: null,
  sampler: { chains: 2, warmup: 150, draws: 150 },
};

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
    const run = (settings: FiveSettings) =>
      runStudy(study, { seed: 5, replicates: 4, settings, workers: 0 });
    const cpu = await run(SMALL);
    const gpu = await run({ ...SMALL, sampler: { ...SMALL.sampler, sampler: "gpu-hmc" } });
    assert.equal(gpu.settings.sampler.sampler, "gpu-hmc");
    for (const [e, epsilon] of SMALL.epsilons.entries()) {
      for (const mechanism of FIVE_MECHANISMS) {
        const values = (records: readonly FiveRecord[], key: "ecdfMax" | "lipschitz") =>
          records.flatMap((r) => {
            const v = r.epsilons[e].mechanisms[mechanism]?.[key];
            return v === null || v === undefined ? [] : [v];
          });
        for (const key of ["ecdfMax", "lipschitz"] as const) {
          const [a, b] = [values(cpu.records, key), values(gpu.records, key)];
          if (a.length < 2 || b.length < 2) continue;
          const [x, y] = [meanSe(a), meanSe(b)];
          const allowed = 4 * Math.hypot(x.se, y.se) + 1e-9;
          assert.ok(
            Math.abs(x.mean - y.mean) <= allowed,
            `ε = ${epsilon} ${mechanism} ${key}: NUTS ${x.mean} (${x.n}), GPU ${y.mean} (${y.n})`,
          );
        }
        for (const record of gpu.records) {
          const entry = record.epsilons[e].mechanisms[mechanism];
          if (mechanism.startsWith("censored") && entry !== null) {
            assert.ok(entry.lipschitz! <= epsilon / 2, `${mechanism} above ε/2 on the GPU`);
          }
        }
      }
    }
  },
});
