import assert from "node:assert/strict";
import {
  inThisThread,
  inWorkerThreads,
  scheduleReplicates,
} from "../../src/studies/replicate_scheduler.ts";
import { studyJson } from "../../src/studies/study_runner.ts";
import { study } from "./_toy_study.ts";

const RUN = { seed: 4, replicates: 5, settings: { fail: -1 } };

Deno.test("one scheduler: this thread and 1 or 3 worker threads give the same result", async () => {
  const stages: string[] = [];
  const local = await scheduleReplicates(
    study,
    RUN,
    inThisThread,
    (r, stage) => stages.push(`${r}:${stage}`),
  );
  assert.deepEqual(local.records.map((record) => record.r), [0, 1, 2, 3, 4]);
  assert.equal(local.summary, local.records.reduce((s, record) => s + record.x, 0));
  assert.deepEqual(stages.slice(0, 4), ["0:half", "0:done", "1:half", "1:done"]);
  for (const workers of [1, 3]) {
    const threaded = await scheduleReplicates(study, RUN, inWorkerThreads(workers));
    assert.equal(studyJson(threaded), studyJson(local));
  }
});

Deno.test("one scheduler: a failed replicate rejects the run, naming it (1-based)", async () => {
  const failing = { ...RUN, settings: { fail: 2 } };
  await assert.rejects(scheduleReplicates(study, failing, inThisThread), /boom at 2/);
  await assert.rejects(
    scheduleReplicates(study, failing, inWorkerThreads(2)),
    /^Error: replicate 3: boom at 2$/,
  );
  await assert.rejects(scheduleReplicates(study, { ...RUN, seed: -1 }, inThisThread), /seed/);
  await assert.rejects(scheduleReplicates(study, RUN, inWorkerThreads(-1)), /workers/);
});
