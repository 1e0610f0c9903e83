/**
 * A whole-file job's progress (issue 37): the worker's stages, and within each fit its Gibbs
 * sweeps (the latent class model) or exact draws (the network) as a synthesis's `fits` entry (one,
 * no conditional), counted to the fit's total.
 */
import assert from "node:assert/strict";
import { parseCsv } from "../../src/data/csv.ts";
import { parseFileSchema } from "../../src/data/file_schema.ts";
import { runFileSynthesisJob } from "../../src/jobs/file_job.ts";
import type { JobProgress } from "../../src/jobs/store.ts";
import { FileSynthesisSpec } from "../../src/synthesis/file_spec.ts";
import { fileCsv, SCHEMA } from "../synthesis/_file_fixture.ts";

Deno.test("runFileSynthesisJob() reports its stages and each fit's sweeps of its total", async () => {
  const data = parseCsv(fileCsv(200), "file.csv");
  const schema = parseFileSchema(SCHEMA, "schema.json");
  const spec = FileSynthesisSpec.parse({
    y: "all",
    model: "latent-class",
    mechanism: "sw",
    epsilon: 20,
    classes: 2,
    chains: 2,
    warmup: 40,
    draws: 60,
    seed: 3,
    allowFlagged: true,
  });
  const seen: JobProgress[] = [];
  await runFileSynthesisJob(data, spec, schema, (progress) => seen.push(progress));
  const stages = seen.map((progress) => progress.stage);
  assert.equal(stages[0], "encode");
  assert.equal(stages.at(-1), "simulate");
  const sweeps = seen.flatMap((progress) => progress.fits ?? []);
  assert.ok(sweeps.length > 10, `${sweeps.length} sweep updates`);
  const total = 2 * (40 + 60);
  for (const fit of sweeps) {
    assert.equal(fit.stage, "fit");
    assert.equal(fit.conditional, null);
    assert.equal(fit.total, total);
    assert.ok(fit.iteration >= 1 && fit.iteration <= total);
  }
  assert.ok(sweeps.some((fit) => fit.iteration === total), "a fit reported its last sweep");
});

Deno.test("runFileSynthesisJob() reports the network's exact draws of each fit's total", async () => {
  const data = parseCsv(fileCsv(200), "file.csv");
  const schema = parseFileSchema(SCHEMA, "schema.json");
  const spec = FileSynthesisSpec.parse({
    y: "all",
    model: "bayes-net",
    mechanism: "sw",
    epsilon: 20,
    chains: 2,
    draws: 300,
    seed: 3,
  });
  const seen: JobProgress[] = [];
  await runFileSynthesisJob(data, spec, schema, (progress) => seen.push(progress));
  const draws = seen.flatMap((progress) => progress.fits ?? []);
  assert.ok(draws.length > 10, `${draws.length} draw updates`);
  for (const fit of draws) assert.equal(fit.total, 2 * 300);
  assert.ok(draws.some((fit) => fit.iteration === 2 * 300), "a fit reported its last draw");
});
