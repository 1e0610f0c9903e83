/**
 * The recording that the GPU study sampler check compares with
 * (`test/reference/study_sampler_nuts.json`) must still be what the CPU's NUTS gives: its first
 * replicate recomputed here, on every run and without a GPU, so that a change to study 3's
 * synthesizers, models or sampler fails at once instead of leaving the GPU check against a stale
 * recording (then re-record with `test/reference/study_sampler_nuts.ts`).
 *
 * @module
 */
import assert from "node:assert/strict";
import { study } from "../../src/studies/five.ts";
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
