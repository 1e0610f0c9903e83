import assert from "node:assert/strict";
import { study } from "../../src/studies/contraction.ts";
import { studyJson } from "../../src/studies/study_runner.ts";
import { runStudyOnQueue } from "../../src/scale/study_fanout.ts";
import {
  IGNORE_REDIS,
  startRedis,
  startWorker,
  stopWorker,
  until,
  type WorkerProcess,
} from "./_redis.ts";
import { recorded, RERECORD, RUNS } from "./_study_fanout.ts";

/**
 * One redis-server and three workers for the file (issue 36; one set per test before): the quick
 * run takes all three, then the SIGKILL run the same three, on its own run id (a fresh key space
 * in Redis), so each test's lines are told apart by `run`. Their start (a Deno process, its study
 * thread, about 0.8 CPU s each) was the same in both tests; the kill run's workers now also show
 * that a thread that ran earlier replicates gives the same records. Started at the top level so
 * that no test's sanitizer sees the processes; the last test stops them, and a filtered run kills
 * them on exit.
 */
const shared = IGNORE_REDIS ? null : await (async () => {
  const redis = await startRedis();
  // An idle slot fetches every 500 ms, not 100 (a busy one fetches its next job at once): three
  // idle workers' polling was about 1 CPU s per 20 s of the file's wall time.
  const workers = [0, 1, 2].map(() => startWorker(redis.url, { PPSYNTH_POLL_MS: "500" }));
  const kill = () => {
    for (const worker of workers) {
      try {
        worker.child.kill("SIGKILL");
      } catch {
        // already exited
      }
    }
    redis.kill();
  };
  globalThis.addEventListener("unload", kill);
  return {
    redis,
    workers,
    async stop() {
      globalThis.removeEventListener("unload", kill);
      await Promise.all(workers.map(stopWorker));
      await redis.stop();
    },
  };
})();

/** The replicates a worker logged `event` for in run `run`. */
function replicates(worker: WorkerProcess, event: string, run: string): unknown[] {
  return worker.lines.filter((line) => line.event === event && line.run === run)
    .map((line) => line.r);
}

Deno.test({
  name: "three workers run the quick contraction study byte-identical to the single-process run",
  ignore: IGNORE_REDIS,
  async fn() {
    const { redis, workers } = shared!;
    const run = "quick";
    const local = await recorded(run);
    // The recording is this code's: replicate 0 recomputed in this thread equals its record.
    const { seed, settings } = RUNS.quick;
    const first = await study.replicate(0, seed, settings, () => {});
    assert.deepEqual(
      JSON.parse(JSON.stringify(first)),
      JSON.parse(local).records[0],
      `replicate 0 in this thread differs from the recording's (${RERECORD})`,
    );
    const seen: number[] = [];
    const queued = await runStudyOnQueue(study, {
      url: redis.url,
      run,
      ...RUNS.quick,
      pollMs: 100,
      onProgress: ({ done }) => seen.push(done),
    });
    assert.equal(
      studyJson(queued),
      local,
      `the queue's result differs from this thread's, recorded (${RERECORD})`,
    );
    assert.equal(seen.at(-1), 6);
    // Every replicate ran once, and the work was shared.
    const started = workers.flatMap((w) => replicates(w, "replicate_started", run));
    assert.deepEqual(started.toSorted(), [0, 1, 2, 3, 4, 5]);
  },
});

Deno.test({
  name: "a worker SIGKILLed mid-replicate loses nothing: the study completes with the same result",
  ignore: IGNORE_REDIS,
  async fn() {
    const { redis, workers } = shared!;
    const run = "kill";
    try {
      // Two replicates (issue 36; three before): one killed mid-way and run again elsewhere is
      // the claim, and the third replicate only added a replicate of work here and locally.
      const queued = runStudyOnQueue(study, {
        url: redis.url,
        run,
        ...RUNS.kill,
        pollMs: 100,
      });
      const victim = await until(
        "a replicate to start",
        () => workers.find((w) => replicates(w, "replicate_started", run).length > 0),
      );
      const r = replicates(victim, "replicate_started", run)[0];
      victim.child.kill("SIGKILL");
      await victim.done;
      assert.equal((await victim.child.status).signal, "SIGKILL");
      assert.deepEqual(replicates(victim, "replicate_finished", run), []);
      const result = await queued;
      // The killed worker's replicate ran again on another worker once its lock expired.
      const rerun = workers.filter((w) => w !== victim).some((w) =>
        replicates(w, "replicate_finished", run).includes(r)
      );
      assert.ok(rerun, `replicate ${r} was run again`);
      assert.equal(
        studyJson(result),
        await recorded(run),
        `the result differs from this thread's, recorded (${RERECORD})`,
      );
    } finally {
      await shared!.stop();
    }
  },
});
