/**
 * The NUTS recordings that the GPU checks compare with must still be what the CPU's NUTS gives:
 * the study sampler's first replicate (`test/reference/study_sampler_nuts.json`) and one HMC case's
 * fit (`gpu_nuts_expected.json`, the normal regression) recomputed here, on every run and without
 * a GPU, so that a change to study 3's synthesizers, the models or the sampler fails at once
 * instead of leaving the GPU checks against a stale recording (then re-record with the scripts
 * beside them in `test/reference/`).
 *
 * @module
 */
import assert from "node:assert/strict";
import { study } from "../../src/studies/five.ts";
import { fitModel } from "../../src/mcmc/fit.ts";
import { meansOf } from "../gpu/_check_means.ts";
import { fingerprint, NUTS_CASES, NUTS_REFERENCE } from "../gpu/_nuts_cases.ts";
import { type Measured, measured, SMALL, STUDY_SEED } from "../gpu/_study_sampler.ts";

const RECORDING = new URL("../reference/study_sampler_nuts.json", import.meta.url);

Deno.test("the GPU study sampler check's NUTS recording is what NUTS gives now (replicate 0)", async () => {
  const recorded = JSON.parse(await Deno.readTextFile(RECORDING)) as {
    seed: number;
    settings: unknown;
    replicates: Measured[];
  };
  assert.equal(recorded.seed, STUDY_SEED);
  assert.deepEqual(recorded.settings, JSON.parse(JSON.stringify(SMALL)));
  const record = await study.replicate(0, STUDY_SEED, SMALL, () => {});
  assert.deepEqual(JSON.parse(JSON.stringify(measured(record))), recorded.replicates[0]);
});

const GPU_NUTS = new URL("../reference/gpu_nuts_expected.json", import.meta.url);

Deno.test("the GPU HMC checks' NUTS recording is what NUTS gives now (the normal case)", async () => {
  const recorded = JSON.parse(await Deno.readTextFile(GPU_NUTS)) as {
    settings: unknown;
    cases: Record<string, { means: unknown }>;
  };
  assert.deepEqual(recorded.settings, JSON.parse(JSON.stringify(NUTS_REFERENCE)));
  const problem = NUTS_CASES.normal();
  const fit = fitModel(problem.model, problem.weighting, NUTS_REFERENCE);
  assert.deepEqual(JSON.parse(JSON.stringify(meansOf(fit))), recorded.cases.normal.means);
});

Deno.test("every GPU HMC case's posterior is the one recorded (its fingerprint)", async () => {
  const recorded = JSON.parse(await Deno.readTextFile(GPU_NUTS)) as {
    cases: Record<string, { fingerprint: unknown }>;
  };
  assert.deepEqual(Object.keys(recorded.cases).sort(), Object.keys(NUTS_CASES).sort());
  for (const [name, make] of Object.entries(NUTS_CASES)) {
    assert.deepEqual(
      JSON.parse(JSON.stringify(fingerprint(make()))),
      recorded.cases[name].fingerprint,
      name,
    );
  }
});
