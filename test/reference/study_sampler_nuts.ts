/**
 * Records the NUTS side of the GPU study sampler check (`test/gpu/study_sampler_test.ts`): study
 * 3 at the reduced size of `test/gpu/_study_sampler.ts` on the CPU's NUTS, 16 replicates, each
 * replicate's data summary and per ε and synthesizer its max-ECDF and Δ, in
 * `study_sampler_nuts.json`.
 *
 * Run from the repository root:
 * `npx -y deno@2.9.6 run --allow-read --allow-write test/reference/study_sampler_nuts.ts`
 *
 * @module
 */
import { study } from "../../src/studies/five.ts";
import { runStudy } from "../../src/studies/study_runner.ts";
import { measured, SMALL, STUDY_SEED } from "../gpu/_study_sampler.ts";

const replicates = 16;
const result = await runStudy(study, { seed: STUDY_SEED, replicates, settings: SMALL, workers: 0 });
await Deno.writeTextFile(
  new URL("study_sampler_nuts.json", import.meta.url),
  JSON.stringify(
    { seed: STUDY_SEED, settings: SMALL, replicates: result.records.map(measured) },
    null,
    2,
  ) + "\n",
);
