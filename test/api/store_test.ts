import assert from "node:assert/strict";
import { BudgetExceededError } from "../../src/jobs/ledger.ts";
import { SqliteJobStore } from "../../src/jobs/sqlite_store.ts";
import { IdempotencyConflictError, type Release, type Submission } from "../../src/jobs/store.ts";
import type { ReleaseReport } from "../../src/synthesis/synthesize.ts";
import { SynthesisSpec } from "../../src/synthesis/spec.ts";

const SPEC = SynthesisSpec.parse({ y: "y", model: "normal", mechanism: "unweighted" });

function release(epsilon: number): Release {
  return {
    report: { epsilon } as unknown as ReleaseReport,
    diagnostics: { seed: 1 } as unknown as Release["diagnostics"],
    datasets: ["y\n1\n", "y\n2\n"],
  };
}

async function withStore(body: (store: SqliteJobStore, dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "ppsynth_store_" });
  const store = await SqliteJobStore.open(dir);
  try {
    await body(store, dir);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function registered(store: SqliteJobStore, epsilonTotal: number): Promise<string> {
  const { id } = await store.createDataset({
    id: crypto.randomUUID(),
    name: "d",
    csv: "y\n1\n2\n",
    n: 2,
    columns: ["y"],
    epsilonTotal,
    ownerKeyId: "k",
  });
  return id;
}

function submission(datasetId: string | null, extra: Partial<Submission> = {}): Submission {
  return {
    id: crypto.randomUUID(),
    keyId: "key-1",
    idempotencyKey: null,
    requestHash: "h",
    datasetId,
    csv: datasetId === null ? "y\n1\n" : null,
    spec: SPEC,
    ...extra,
  };
}

Deno.test("the store charges a job once, in the transaction that releases it", async () => {
  await withStore(async (store) => {
    const datasetId = await registered(store, 10);
    const { job } = await store.submit(submission(datasetId));
    assert.equal(await store.claim("w", 60_000), null, "not claimable before it is enqueued");
    await store.enqueue(job.id);
    const lease = (await store.claim("w", 60_000))!;
    assert.equal(lease.jobId, job.id);
    assert.equal(await store.jobDataset(job.id, 1), null, "nothing visible while running");
    assert.equal(await store.complete(lease, release(3)), "released");
    assert.equal(await store.complete(lease, release(3)), "lease_lost", "a second completion");
    const budget = (await store.budget(datasetId))!;
    assert.equal(budget.spent, 3);
    assert.equal(budget.remaining, 7);
    assert.deepEqual(budget.releases.map((r) => r.jobId), [job.id]);
    assert.equal(await store.jobDataset(job.id, 2), "y\n2\n");
    assert.equal(await store.jobDataset(job.id, 3), null);
    assert.deepEqual(await store.jobDiagnostics(job.id), { seed: 1 });
    const view = (await store.job(job.id))!;
    assert.equal(view.status, "succeeded");
    assert.equal(view.datasetCount, 2);
  });
});

Deno.test("an expired lease is requeued, and only the new lease can complete the job", async () => {
  await withStore(async (store) => {
    const datasetId = await registered(store, 10);
    const { job } = await store.submit(submission(datasetId));
    await store.enqueue(job.id);
    const first = (await store.claim("a", 1))!;
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(await store.recoverStale(Date.now(), 3), [job.id]);
    const second = (await store.claim("b", 60_000))!;
    assert.equal(second.jobId, job.id);
    assert.equal(await store.renew(first, 60_000), false);
    assert.equal(await store.complete(first, release(1)), "lease_lost");
    assert.equal(await store.fail(first, { code: "x", message: "x" }), false);
    assert.equal(await store.complete(second, release(1)), "released");
    assert.equal((await store.job(job.id))!.attempts, 2);
    assert.equal((await store.budget(datasetId))!.releases.length, 1);
  });
});

Deno.test("a release over the remaining budget fails the job and releases nothing", async () => {
  await withStore(async (store) => {
    const datasetId = await registered(store, 1);
    for (
      const [epsilon, outcome] of [[2, "budget_exceeded"], [Infinity, "invalid_charge"]] as const
    ) {
      const { job } = await store.submit(submission(datasetId));
      await store.enqueue(job.id);
      const lease = (await store.claim("w", 60_000))!;
      assert.equal(await store.complete(lease, release(epsilon)), outcome);
      const view = (await store.job(job.id))!;
      assert.equal(view.status, "failed");
      assert.equal(view.error!.code, outcome);
      assert.equal(await store.jobDataset(job.id, 1), null);
      assert.equal(await store.jobDiagnostics(job.id), null);
    }
    assert.deepEqual((await store.budget(datasetId))!.releases, []);
    // Inline data has no ledger: its release is not charged anywhere.
    const { job } = await store.submit(submission(null));
    await store.enqueue(job.id);
    const lease = (await store.claim("w", 60_000))!;
    assert.equal(await store.complete(lease, release(50)), "released");
    assert.equal(await store.jobInput(job.id), null, "inline data is dropped once released");
  });
});

Deno.test("idempotency keys return the same job and refuse a different request", async () => {
  await withStore(async (store) => {
    const datasetId = await registered(store, 10);
    const first = await store.submit(submission(datasetId, { idempotencyKey: "k1" }));
    assert.equal(first.created, true);
    const again = await store.submit(submission(datasetId, { idempotencyKey: "k1" }));
    assert.equal(again.created, false);
    assert.equal(again.job.id, first.job.id);
    await assert.rejects(
      store.submit(submission(datasetId, { idempotencyKey: "k1", requestHash: "other" })),
      IdempotencyConflictError,
    );
    const otherKey = await store.submit(
      submission(datasetId, { idempotencyKey: "k1", keyId: "key-2" }),
    );
    assert.notEqual(otherKey.job.id, first.job.id, "idempotency keys are per API key");
  });
});

Deno.test("a requested epsilon over the remaining budget is refused before the job exists", async () => {
  await withStore(async (store) => {
    const datasetId = await registered(store, 1);
    const spec = SynthesisSpec.parse({ ...SPEC, epsilon: 1.5 });
    const id = crypto.randomUUID();
    await assert.rejects(store.submit(submission(datasetId, { id, spec })), BudgetExceededError);
    assert.equal(await store.job(id), null);
    const fitting = SynthesisSpec.parse({ ...SPEC, epsilon: 1 });
    assert.equal((await store.submit(submission(datasetId, { spec: fitting }))).created, true);
  });
});

Deno.test("jobs survive a reopen; running ones are requeued, then failed after maxAttempts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ppsynth_store_" });
  try {
    let store = await SqliteJobStore.open(dir);
    const { job } = await store.submit(submission(null));
    const unqueued = await store.submit(submission(null));
    await store.enqueue(job.id);
    await store.claim("w", 60_000);
    store.close(); // as if killed: the job is "running" under a lease nobody renews

    store = await SqliteJobStore.open(dir);
    assert.equal((await store.job(job.id))!.status, "running");
    const recovered = await store.recoverStale(Infinity, 2);
    assert.deepEqual(recovered.sort(), [job.id, unqueued.job.id].sort());
    assert.equal((await store.job(job.id))!.status, "queued");
    const claims = [(await store.claim("w", 60_000))!, (await store.claim("w", 60_000))!];
    assert.deepEqual(claims.map((l) => l.jobId), [job.id, unqueued.job.id], "oldest first");
    assert.deepEqual(await store.recoverStale(Infinity, 2), [unqueued.job.id]);
    const failed = (await store.job(job.id))!;
    assert.equal(failed.status, "failed");
    assert.equal(failed.error!.code, "too_many_attempts");
    store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
