/**
 * Issue 22's limits below the API: the sampler-work cap (`checkWork`), and the per-job time
 * limit of `runLeasedJob` (the handler's signal is aborted, the job failed with `time_limit`,
 * the slot freed) down to the fits it stops (`fitModelParallel`, `runSynthesisJob`).
 */
import assert from "node:assert/strict";
import { parseCsv } from "../../src/data/csv.ts";
import { PolicyError } from "../../src/jobs/domain_errors.ts";
import { type JobHandler, runLeasedJob } from "../../src/jobs/leased_job.ts";
import type {
  Claim,
  JobFailure,
  JobOutput,
  JobProgress,
  JobQueue,
  Lease,
} from "../../src/jobs/store.ts";
import { runSynthesisJob } from "../../src/jobs/synthesis_job.ts";
import {
  checkWork,
  JobTimeLimitError,
  samplerWork,
  TIME_LIMIT_CODE,
} from "../../src/jobs/work_limits.ts";
import { WorkerPool } from "../../src/jobs/worker_pool.ts";
import { fitModelParallel, type ParallelFitOptions } from "../../src/mcmc/parallel_fit.ts";
import { synthesisPlan } from "../../src/synthesis/plan.ts";
import { SynthesisSpec } from "../../src/synthesis/spec.ts";
import { confidentialCsv, QUICK } from "../api/_helpers.ts";
import { twoRecordPoisson } from "../models/_helpers.ts";
import { QueueStub, RELEASE } from "./_queue_stub.ts";

const LIMITS = { maxIterations: 400_000 };

Deno.test("`checkWork()`: chains·warmup + draws within the limit, else 422 too_much_work", () => {
  assert.equal(samplerWork({}).iterations, 4 * 1000 + 4000);
  assert.equal(samplerWork({ sampler: "gpu-hmc" }).iterations, 64 * 1000 + 4000);
  // What the README, the examples and the tests ask for passes.
  checkWork({}, LIMITS);
  checkWork({ sampler: "gpu-hmc" }, LIMITS);
  checkWork({ draws: 8000, chains: 4, warmup: 1000 }, LIMITS);
  checkWork({ draws: 400_000 - 4000, chains: 4, warmup: 1000 }, LIMITS);
  const refused = (request: Parameters<typeof checkWork>[0]) => {
    try {
      checkWork(request, LIMITS);
    } catch (error) {
      assert.ok(error instanceof PolicyError);
      assert.equal(error.status, 422);
      assert.equal(error.code, "too_much_work");
      assert.match(error.message, /400000/);
      assert.match(error.message, /PPSYNTH_MAX_ITERATIONS/);
      return error.field;
    }
    assert.fail(`accepted ${JSON.stringify(request)}`);
  };
  assert.equal(refused({ draws: 1_000_000, chains: 64 }), "draws");
  assert.equal(refused({ draws: 400_000 - 4000 + 1, chains: 4, warmup: 1000 }), "draws");
  assert.equal(refused({ draws: 4000, chains: 64, warmup: 100_000 }), "warmup");
  assert.equal(refused({ draws: 4000, chains: 65535, sampler: "gpu-hmc", warmup: 1000 }), "chains");
  assert.equal(refused({ draws: 4000, chains: 64, warmup: 10_000 }), "chains");
});

/** A queue of jobs j1, j2, … claimed in order, recording what is done to them. */
class Jobs extends QueueStub implements JobQueue {
  #next = 0;
  constructor(readonly count: number) {
    super();
  }
  claim(): Promise<Lease | null> {
    if (this.#next >= this.count) return Promise.resolve(null);
    const id = `j${++this.#next}`;
    return Promise.resolve({ jobId: id, token: `t-${id}` });
  }
  claimById(): Promise<Claim | null> {
    return Promise.resolve(null);
  }
  /** `runLeasedJob`'s claim. */
  readonly next = async () => {
    const lease = await this.claim();
    return lease === null ? null : { lease };
  };
  renew(): Promise<boolean> {
    return Promise.resolve(true);
  }
  progress(lease: Lease, _progress: JobProgress): Promise<void> {
    this.calls.push(`progress:${lease.jobId}`);
    return Promise.resolve();
  }
  complete(lease: Lease): Promise<"released"> {
    this.calls.push(`complete:${lease.jobId}`);
    return Promise.resolve("released");
  }
  fail(lease: Lease, failure: JobFailure): Promise<boolean> {
    this.calls.push(`fail:${lease.jobId}:${failure.code}`);
    return Promise.resolve(true);
  }
}

function options(lines: string[], timeLimitMs?: number) {
  return {
    leaseMs: 60_000,
    progressIntervalMs: 0,
    timeLimitMs,
    failureOf: (): JobFailure => ({ code: "internal", message: "internal error" }),
    log: (event: string, fields?: Record<string, string | number | boolean>) =>
      lines.push(JSON.stringify({ event, ...fields })),
  };
}

Deno.test("`runLeasedJob()`: a job past its time limit is aborted and failed with time_limit", async () => {
  const queue = new Jobs(1);
  const lines: string[] = [];
  let aborted: unknown = null;
  let ticks = 0;
  // Runs until its signal is aborted, reporting progress every 5 ms.
  const forever: JobHandler = (_lease, onProgress, signal) =>
    new Promise((_, reject) => {
      const tick = setInterval(() => {
        ticks++;
        onProgress({ stage: "fit", fraction: 0 });
      }, 5);
      signal.addEventListener("abort", () => {
        aborted = signal.reason;
        clearInterval(tick);
        reject(signal.reason);
      });
    });
  const started = performance.now();
  const outcome = await runLeasedJob(queue, queue.next, forever, options(lines, 150));
  const elapsed = performance.now() - started;
  assert.equal(outcome, TIME_LIMIT_CODE);
  assert.ok(elapsed >= 140 && elapsed < 5000, `failed after ${elapsed} ms`);
  assert.ok(aborted instanceof JobTimeLimitError, "the abort reached the handler");
  assert.equal(aborted.limitMs, 150);
  assert.ok(ticks > 0);
  assert.equal(queue.calls.at(-1), "fail:j1:time_limit");
  assert.ok(!lines.some((line) => line.includes("job_error")), "not an internal error");
  assert.deepEqual(JSON.parse(lines.at(-1)!), {
    event: "job_finished",
    job: "j1",
    outcome: "time_limit",
  });
});

Deno.test("`runLeasedJob()`: a handler that ignores its signal is still failed at the limit", async () => {
  const queue = new Jobs(1);
  const lines: string[] = [];
  let late: ((release: JobOutput) => void) | null = null;
  let progress: ((progress: JobProgress) => void) | null = null;
  const deaf: JobHandler = (_lease, onProgress) =>
    new Promise((resolve) => {
      late = resolve;
      progress = onProgress;
    });
  const outcome = await runLeasedJob(queue, queue.next, deaf, options(lines, 100));
  assert.equal(outcome, "time_limit");
  // What it does afterwards is ignored: no progress written, no release.
  progress!({ stage: "fit", fraction: 0.5 });
  late!(RELEASE);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(queue.calls, ["fail:j1:time_limit"]);
});

Deno.test("`runLeasedJob()`: a job within its limit completes, and the timer is cleared", async () => {
  const queue = new Jobs(1);
  const lines: string[] = [];
  let signalled: AbortSignal | null = null;
  const quick: JobHandler = (_lease, _onProgress, signal) => {
    signalled = signal;
    return Promise.resolve(RELEASE);
  };
  // A leaked 60 s timer would fail the test's resource sanitizer.
  assert.equal(
    await runLeasedJob(queue, queue.next, quick, options(lines, 60_000)),
    "released",
  );
  assert.equal(signalled!.aborted, false);
  const unlimited = new Jobs(1);
  assert.equal(
    await runLeasedJob(unlimited, unlimited.next, quick, options(lines)),
    "released",
    "no limit",
  );
});

Deno.test("`WorkerPool`: a job past its time limit frees the only worker for the next job", async () => {
  const queue = new Jobs(2);
  const lines: string[] = [];
  const seen: string[] = [];
  const handler: JobHandler = (lease, _onProgress, signal) => {
    seen.push(lease.jobId);
    if (lease.jobId === "j2") return Promise.resolve(RELEASE);
    return new Promise((_, reject) =>
      signal.addEventListener("abort", () => reject(signal.reason))
    );
  };
  const pool = new WorkerPool(queue, handler, {
    workers: 1,
    leaseMs: 60_000,
    pollMs: 10,
    progressIntervalMs: 0,
    maxAttempts: 3,
    recoverAllOnStart: false,
    timeLimitMs: 200,
    failureOf: () => ({ code: "internal", message: "internal error" }),
    log: (event, fields) => lines.push(JSON.stringify({ event, ...fields })),
  });
  await pool.start();
  const deadline = Date.now() + 10_000;
  while (!queue.calls.includes("complete:j2") && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await pool.stop();
  assert.deepEqual(seen, ["j1", "j2"]);
  assert.deepEqual(queue.calls, ["fail:j1:time_limit", "complete:j2"]);
});

Deno.test("`fitModelParallel()`: an abort terminates the chain workers and rejects with its reason", async () => {
  const controller = new AbortController();
  const reason = new JobTimeLimitError(1);
  const started = performance.now();
  let progressed = 0;
  const fit = (draws: number, options: Partial<ParallelFitOptions>) =>
    fitModelParallel(twoRecordPoisson(), { alpha: null }, {
      seed: 1,
      chains: 2,
      warmup: 10,
      draws,
      ...options,
    });
  await assert.rejects(
    fit(50_000_000, {
      threads: 2,
      signal: controller.signal,
      onProgress: () => {
        if (++progressed === 1) controller.abort(reason);
      },
    }),
    (error) => error === reason,
  );
  assert.ok(performance.now() - started < 30_000);
  await assert.rejects(
    fit(10, { signal: AbortSignal.abort(reason) }),
    (error) => error === reason,
    "an aborted signal starts no workers",
  );
});

Deno.test("`runSynthesisJob()`: the job's signal stops the synthesis's fits", async () => {
  const data = parseCsv(confidentialCsv(40), "inline data");
  // Hours of sampling: only the abort ends it.
  const spec = SynthesisSpec.parse({ ...QUICK, draws: 1_000_000, warmup: 100_000 });
  const controller = new AbortController();
  const reason = new JobTimeLimitError(1);
  const started = performance.now();
  await assert.rejects(
    runSynthesisJob(data, synthesisPlan(spec), () => {
      if (!controller.signal.aborted) controller.abort(reason);
    }, controller.signal),
    (error) => error === reason,
  );
  assert.ok(performance.now() - started < 60_000);
});
