import assert from "node:assert/strict";
import { IdleWait, type JobHandler, runLeasedJob } from "../../src/jobs/leased_job.ts";
import type { Claim, JobFailure, JobProgress, JobQueue, Lease } from "../../src/jobs/store.ts";
import { QueueStub, RELEASE } from "./_queue_stub.ts";

/** A queue of one job that records what is done to it. */
class OneJob extends QueueStub implements JobQueue {
  readonly progressed: JobProgress[] = [];
  held = true;
  readonly lease: Lease = { jobId: "j1", token: "t1" };
  claim(): Promise<Lease | null> {
    return Promise.resolve(this.lease);
  }
  claimById(): Promise<Claim | null> {
    return Promise.resolve({ lease: this.lease, attempts: 1 });
  }
  renew(): Promise<boolean> {
    this.calls.push("renew");
    return Promise.resolve(this.held);
  }
  progress(_lease: Lease, progress: JobProgress): Promise<void> {
    this.progressed.push(progress);
    return Promise.resolve();
  }
  complete(): Promise<"released" | "lease_lost"> {
    this.calls.push("complete");
    return Promise.resolve(this.held ? "released" : "lease_lost");
  }
  fail(_lease: Lease, failure: JobFailure): Promise<boolean> {
    this.calls.push(`fail:${failure.code}`);
    return Promise.resolve(this.held);
  }
}

function options(lines: string[], extra: Record<string, unknown> = {}) {
  return {
    leaseMs: 60_000,
    progressIntervalMs: 60_000,
    failureOf: (error: unknown): JobFailure =>
      error instanceof RangeError
        ? { code: "invalid_request", message: "bad" }
        : { code: "internal", message: "internal error" },
    log: (event: string, fields?: Record<string, string | number | boolean>) =>
      lines.push(JSON.stringify({ event, ...fields })),
    ...extra,
  };
}

Deno.test("`runLeasedJob()` completes a job under its lease and throttles its progress", async () => {
  const queue = new OneJob();
  const lines: string[] = [];
  const handler: JobHandler = (_lease, onProgress) => {
    onProgress({ stage: "a", fraction: 0 });
    onProgress({ stage: "a", fraction: 0.5 }); // within the interval: not written
    return Promise.resolve(RELEASE);
  };
  const outcome = await runLeasedJob(
    queue,
    () => Promise.resolve({ lease: queue.lease, attempts: 1 }),
    handler,
    options(lines),
  );
  assert.equal(outcome, "released");
  assert.deepEqual(queue.calls, ["complete"]);
  assert.deepEqual(queue.progressed, [{ stage: "a", fraction: 0 }]);
  assert.deepEqual(lines.map((line) => JSON.parse(line)), [
    { event: "job_started", job: "j1", attempt: 1 },
    { event: "job_finished", job: "j1", outcome: "released" },
  ]);
});

Deno.test("`runLeasedJob()` fails a throwing job, and reports a lost lease", async () => {
  const queue = new OneJob();
  const lines: string[] = [];
  const throwing = (error: Error): JobHandler => () => Promise.reject(error);
  const claim = () => Promise.resolve({ lease: queue.lease });
  assert.equal(
    await runLeasedJob(queue, claim, throwing(new RangeError("x")), options(lines)),
    "invalid_request",
  );
  queue.held = false;
  assert.equal(
    await runLeasedJob(queue, claim, throwing(new Error("x")), options(lines)),
    "lease_lost",
  );
  assert.deepEqual(queue.calls, ["fail:invalid_request", "fail:internal"]);
  assert.ok(lines.some((line) => JSON.parse(line).event === "job_error"), "internal is logged");
  assert.ok(!lines.some((line) => line.includes("attempt")), "no attempt count when unknown");
});

Deno.test("`runLeasedJob()`: no claim, too many attempts, heartbeats and store errors", async () => {
  const queue = new OneJob();
  const lines: string[] = [];
  const never: JobHandler = () => Promise.reject(new Error("must not run"));
  assert.equal(await runLeasedJob(queue, () => Promise.resolve(null), never, options(lines)), null);
  const outcome = await runLeasedJob(
    queue,
    () => Promise.resolve({ lease: queue.lease, attempts: 4 }),
    never,
    options(lines, { maxAttempts: 3 }),
  );
  assert.equal(outcome, "too_many_attempts");
  assert.deepEqual(queue.calls, ["fail:too_many_attempts"]);

  queue.calls.length = 0;
  const slow: JobHandler = () => new Promise((resolve) => setTimeout(() => resolve(RELEASE), 100));
  queue.complete = () => Promise.reject(new Error("disk full"));
  const errors: string[] = [];
  const stored = await runLeasedJob(
    queue,
    () => Promise.resolve({ lease: queue.lease }),
    slow,
    options(lines, { leaseMs: 60, onStoreError: (job: string) => errors.push(job) }),
  );
  assert.equal(stored, "store_error");
  assert.deepEqual(errors, ["j1"]);
  assert.ok(queue.calls.filter((call) => call === "renew").length >= 2, "renewed every leaseMs/3");
  await assert.rejects(
    runLeasedJob(queue, () => Promise.resolve({ lease: queue.lease }), slow, options(lines)),
    /disk full/,
    "without onStoreError the store's error reaches the caller",
  );
});

Deno.test("`runLeasedJob()` on a slow store writes the latest progress, not a backlog of old reports", async () => {
  const queue = new OneJob();
  const lines: string[] = [];
  let written = 0;
  let started = 0;
  let inFlight = 0;
  // Each write takes 30 ms; the job reports every 1 ms for 60 ms (interval 0: none throttled).
  queue.progress = (_lease: Lease, progress: JobProgress) => {
    started++;
    inFlight++;
    return new Promise((resolve) =>
      setTimeout(() => {
        queue.progressed.push(progress);
        written = progress.fraction;
        inFlight--;
        resolve();
      }, 30)
    );
  };
  let reported = 0;
  let shownAtEnd = -1;
  let startedAfterLast = -1;
  let reportingMs = 0;
  const handler: JobHandler = async (_lease, onProgress) => {
    const start = performance.now();
    for (let i = 1; i <= 60; i++) {
      onProgress({ stage: "a", fraction: i / 60 });
      reported = i / 60;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    reportingMs = performance.now() - start;
    const startedAtLast = started;
    // What a client polling the store sees once its writes are done (a write waiting starts in
    // the same turn as the one before it ends, so none is pending when a timer sees none in
    // flight). Not a fixed wait: a process stalled past it fails a correct store (CI under load).
    while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    shownAtEnd = written;
    startedAfterLast = started - startedAtLast;
    return RELEASE;
  };
  const outcome = await runLeasedJob(
    queue,
    () => Promise.resolve({ lease: queue.lease }),
    handler,
    options(lines, { progressIntervalMs: 0 }),
  );
  assert.equal(outcome, "released");
  assert.equal(shownAtEnd, reported, "the store shows the last report, not one from the backlog");
  // After the last report only the one waiting then is written: no backlog to work through.
  assert.ok(startedAfterLast <= 1, `${startedAfterLast} writes started after the last report`);
  assert.equal(queue.progressed.at(-1)?.fraction, 1);
  // One write per 30 ms while reporting, and the one waiting at the end.
  const most = Math.ceil(reportingMs / 30) + 2;
  assert.ok(queue.progressed.length <= most, `${queue.progressed.length} writes of 60 reports`);
  const fractions = queue.progressed.map((progress) => progress.fraction);
  assert.deepEqual(fractions, [...fractions].sort((a, b) => a - b), "never an older one after");
});

Deno.test("`IdleWait`: a sleep ends at its time or at the next wake", async () => {
  const idle = new IdleWait();
  const started = performance.now();
  const sleeping = idle.sleep(60_000);
  idle.wake();
  await sleeping;
  assert.ok(performance.now() - started < 1000);
  await idle.sleep(1);
});

Deno.test("`runLeasedJob()` stops a job whose renewal finds its lease taken over (lease_lost)", async () => {
  const queue = new OneJob();
  queue.held = false; // another worker took the job over after the lease expired
  const lines: string[] = [];
  let aborted = false;
  // A handler that would run for a minute, unless its signal stops it.
  const handler: JobHandler = (_lease, _onProgress, signal) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve(RELEASE), 60_000);
      signal.addEventListener("abort", () => {
        aborted = true;
        clearTimeout(timer);
        reject(signal.reason);
      });
    });
  const start = performance.now();
  const outcome = await runLeasedJob(
    queue,
    () => Promise.resolve({ lease: queue.lease }),
    handler,
    options(lines, { leaseMs: 30 }),
  );
  assert.equal(outcome, "lease_lost");
  assert.ok(aborted, "the handler's signal was aborted");
  assert.ok(performance.now() - start < 5000, "the job was stopped at the first renewal");
  assert.ok(queue.calls.includes("renew"));
  assert.ok(!queue.calls.some((call) => call === "complete" || call.startsWith("fail")));
});
