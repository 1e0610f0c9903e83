import assert from "node:assert/strict";
import {
  CONTRACTION_SETTINGS,
  type ContractionSettings,
  study,
} from "../../src/studies/contraction.ts";
import { runStudy, studyJson } from "../../src/studies/study_runner.ts";
import { runStudyOnQueue } from "../../src/scale/study_fanout.ts";
import {
  IGNORE_REDIS,
  startRedis,
  startWorker,
  stopWorker,
  until,
  type WorkerProcess,
} from "./_redis.ts";

/** Quick mode: two small databases, 2 × (100 + 100) draws (about 0.1 s a replicate). */
const QUICK: ContractionSettings = {
  ...CONTRACTION_SETTINGS,
  sizes: [40, 160],
  sampler: { chains: 2, warmup: 100, draws: 100 },
};

/**
 * Replicates of a second or two, so that a worker is killed in the middle of one (its
 * `replicate_started` line is seen within a poll of 50 ms). Two sizes, 40 and 600 (issue 36;
 * 40, 160 and 1,600 before): a replicate of 2 s at load 8, not 4.5 s, and the same claim.
 */
const SLOWER: ContractionSettings = {
  ...CONTRACTION_SETTINGS,
  sizes: [40, 600],
  sampler: { chains: 2, warmup: 150, draws: 150 },
};

Deno.test({
  name: "three workers run the quick contraction study byte-identical to the single-process run",
  ignore: IGNORE_REDIS,
  async fn() {
    const redis = await startRedis();
    const workers = [0, 1, 2].map(() => startWorker(redis.url));
    try {
      const local = await runStudy(study, { seed: 5, replicates: 6, settings: QUICK, workers: 0 });
      const seen: number[] = [];
      const queued = await runStudyOnQueue(study, {
        url: redis.url,
        seed: 5,
        replicates: 6,
        settings: QUICK,
        pollMs: 100,
        onProgress: ({ done }) => seen.push(done),
      });
      assert.equal(studyJson(queued), studyJson(local));
      assert.equal(seen.at(-1), 6);
      // Every replicate ran once, and the work was shared.
      const started = workers.flatMap((w) =>
        w.lines.filter((line) => line.event === "replicate_started").map((line) => line.r)
      );
      assert.deepEqual(started.toSorted(), [0, 1, 2, 3, 4, 5]);
    } finally {
      await Promise.all(workers.map(stopWorker));
      await redis.stop();
    }
  },
});

Deno.test({
  name: "a worker SIGKILLed mid-replicate loses nothing: the study completes with the same result",
  ignore: IGNORE_REDIS,
  async fn() {
    const redis = await startRedis();
    const workers: WorkerProcess[] = [0, 1, 2].map(() => startWorker(redis.url));
    try {
      // Two replicates (issue 36; three before): one killed mid-way and run again elsewhere is
      // the claim, and the third replicate only added a replicate of work here and locally.
      const queued = runStudyOnQueue(study, {
        url: redis.url,
        seed: 11,
        replicates: 2,
        settings: SLOWER,
        pollMs: 100,
      });
      const victim = await until(
        "a replicate to start",
        () => workers.find((w) => w.lines.some((line) => line.event === "replicate_started")),
      );
      const r = victim.lines.find((line) => line.event === "replicate_started")!.r;
      victim.child.kill("SIGKILL");
      await victim.done;
      assert.equal((await victim.child.status).signal, "SIGKILL");
      assert.ok(!victim.lines.some((line) => line.event === "replicate_finished"));
      const result = await queued;
      // The killed worker's replicate ran again on another worker once its lock expired.
      const rerun = workers.filter((w) => w !== victim).some((w) =>
        w.lines.some((line) => line.event === "replicate_finished" && line.r === r)
      );
      assert.ok(rerun, `replicate ${r} was run again`);
      const local = await runStudy(study, {
        seed: 11,
        replicates: 2,
        settings: SLOWER,
        workers: 0,
      });
      assert.equal(studyJson(result), studyJson(local));
    } finally {
      await Promise.all(workers.map(stopWorker));
      await redis.stop();
    }
  },
});
