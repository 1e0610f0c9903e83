// The charging rule (`src/jobs/charging.ts`) once, against an in-memory fake of its small
// transaction interface; the store contract (`test/api/_store_contract.ts`) checks that both
// stores give it their reads and writes.
import assert from "node:assert/strict";
import {
  type ChargingTransaction,
  type Io,
  type NewJob,
  recordAnsweredRule,
  releaseCheckRule,
  type Rule,
  runAsync,
  runSync,
  submitRule,
} from "../../src/jobs/charging.ts";
import { DATA_REJECTED, IdempotencyConflictError } from "../../src/jobs/domain_errors.ts";
import { BudgetExceededError } from "../../src/jobs/ledger.ts";
import type {
  AnsweredTable,
  JobFailure,
  JobView,
  Submission,
  Submitted,
} from "../../src/jobs/store.ts";

const TENANT = "t1";

/** An in-memory store: datasets, jobs, the ledger, idempotency keys, and the calls made. */
class FakeStore {
  readonly datasets = new Map<string, { total: number; tenant: string }>();
  readonly jobs = new Map<string, NewJob>();
  readonly ledger: { jobId: string; datasetId: string; epsilon: number }[] = [];
  readonly keys = new Map<string, { requestHash: string; jobId: string }>();
  readonly failures = new Map<string, JobFailure>();
  readonly calls: string[] = [];

  /** The transaction; `later` answers every call with a promise, as the server store does. */
  tx(later = false): ChargingTransaction {
    const answer = <T>(name: string, value: () => T): Io<T> => {
      this.calls.push(name);
      return later ? Promise.resolve().then(value) : value();
    };
    return {
      now: () => "2025-01-01T00:00:00.000Z",
      previous: (keyId, key) =>
        answer("previous", () => this.keys.get(JSON.stringify([keyId, key])) ?? null),
      remember: (keyId, key, requestHash, jobId) =>
        answer("remember", () => {
          this.keys.set(JSON.stringify([keyId, key]), { requestHash, jobId });
        }),
      ledger: (datasetId, tenant) =>
        answer("ledger", () => {
          const dataset = this.datasets.get(datasetId);
          if (dataset === undefined || (tenant !== null && dataset.tenant !== tenant)) return null;
          const charges = this.ledger.filter((c) => c.datasetId === datasetId);
          return { total: dataset.total, charges: charges.map((c) => c.epsilon) };
        }),
      charged: (jobId) =>
        answer("charged", () => this.ledger.find((c) => c.jobId === jobId)?.epsilon ?? null),
      insertJob: (job) =>
        answer("insertJob", () => {
          assert.ok(!this.jobs.has(job.id), "a job id is inserted once");
          this.jobs.set(job.id, job);
        }),
      insertCharge: (jobId, datasetId, epsilon) =>
        answer("insertCharge", () => {
          assert.ok(!this.ledger.some((c) => c.jobId === jobId), "the ledger's job id is unique");
          this.ledger.push({ jobId, datasetId, epsilon });
        }),
      jobView: (id) => answer("jobView", () => ({ id } as unknown as JobView)),
      failJob: (jobId, failure) => answer("failJob", () => void this.failures.set(jobId, failure)),
    };
  }

  spent(datasetId: string): number[] {
    return this.ledger.filter((c) => c.datasetId === datasetId).map((c) => c.epsilon);
  }
}

/** A store with one dataset "d" of budget `total` (tenant {@linkcode TENANT}). */
function storeWith(total: number): FakeStore {
  const store = new FakeStore();
  store.datasets.set("d", { total, tenant: TENANT });
  return store;
}

let counter = 0;

/** A submission on dataset "d" (null: inline data) requesting ε. */
function submission(
  epsilon: number | undefined,
  over: Partial<Submission> = {},
): Submission {
  return {
    id: `job-${++counter}`,
    keyId: "key-1",
    tenant: TENANT,
    idempotencyKey: null,
    requestHash: "hash-1",
    datasetId: "d",
    csv: null,
    spec: { epsilon } as unknown as Submission["spec"],
    ...over,
  };
}

/** The rules run both ways: at once (the embedded store) and through promises (the server). */
const RUNS: [
  string,
  (store: FakeStore, rule: (tx: ChargingTransaction) => Rule<unknown>) => Promise<unknown>,
][] = [
  ["at once", (store, rule) => Promise.resolve().then(() => runSync(rule(store.tx(false))))],
  ["through promises", (store, rule) => runAsync(rule(store.tx(true)))],
];

for (const [how, run] of RUNS) {
  const submit = (store: FakeStore, s: Submission) =>
    run(store, (tx) => submitRule(tx, s)) as Promise<Submitted>;
  const recordAnswered = (store: FakeStore, s: Submission, r: AnsweredTable) =>
    run(store, (tx) => recordAnsweredRule(tx, s, r)) as Promise<Submitted>;
  const check = (store: FakeStore, jobId: string, epsilon: number) =>
    run(store, (tx) => releaseCheckRule(tx, jobId, "d", epsilon));

  Deno.test(`charging (${how}): a submission is charged its ε, checked before the job is written`, async () => {
    const store = storeWith(1);
    const s = submission(0.25);
    const { created, job } = await submit(store, s);
    assert.equal(created, true);
    assert.equal(job.id, s.id);
    assert.deepEqual(store.spent("d"), [0.25]);
    assert.equal(store.jobs.get(s.id)!.status, "queued");
    assert.deepEqual(store.calls, ["ledger", "insertJob", "insertCharge", "jobView"]);
    // Inline data is not charged, and needs no ε.
    const inline = submission(undefined, { datasetId: null, csv: "y\n1\n" });
    await submit(store, inline);
    assert.equal(store.jobs.get(inline.id)!.inlineCsv, "y\n1\n");
    assert.deepEqual(store.spent("d"), [0.25]);
  });

  Deno.test(`charging (${how}): a charge over the budget is refused and nothing is written`, async () => {
    const store = storeWith(1);
    const refused = submission(1.5);
    await assert.rejects(submit(store, refused), (error: unknown) => {
      assert.ok(error instanceof BudgetExceededError);
      assert.equal(error.charge, 1.5);
      assert.equal(error.remaining, 1);
      return true;
    });
    assert.equal(store.jobs.size, 0);
    assert.deepEqual(store.spent("d"), []);
  });

  Deno.test(`charging (${how}): charges that sum to the budget exactly fit; rounding only refuses`, async () => {
    const store = storeWith(1);
    await submit(store, submission(0.5));
    await submit(store, submission(0.5));
    assert.deepEqual(store.spent("d"), [0.5, 0.5], "0.5 ⊕ 0.5 = 1 fits");
    await assert.rejects(submit(store, submission(Number.MIN_VALUE)), BudgetExceededError);
    assert.equal((await submit(store, submission(0))).created, true, "a zero charge still fits");
    // 0.1 ⊕ 0.2 rounds up above 0.3: refused, never admitted by rounding.
    const tight = storeWith(0.3);
    await submit(tight, submission(0.1));
    await assert.rejects(submit(tight, submission(0.2)), BudgetExceededError);
    assert.deepEqual(tight.spent("d"), [0.1]);
  });

  Deno.test(`charging (${how}): a submission is refused without ε, with a bad ε, or on another tenant's dataset`, async () => {
    const store = storeWith(10);
    await assert.rejects(
      submit(store, submission(undefined)),
      /Invalid epsilon: a job on a registered/,
    );
    await assert.rejects(submit(store, submission(-1)), /Invalid charge/);
    await assert.rejects(submit(store, submission(NaN)), /Invalid charge/);
    await assert.rejects(submit(store, submission(1, { tenant: "other" })), /no such dataset/);
    await assert.rejects(submit(store, submission(1, { datasetId: "none" })), /no such dataset/);
    assert.equal(store.jobs.size, 0);
    assert.deepEqual(store.spent("d"), []);
  });

  Deno.test(`charging (${how}): a resubmission under one idempotency key is the same job, charged once`, async () => {
    const store = storeWith(10);
    const first = await submit(store, submission(3, { idempotencyKey: "k" }));
    const again = await submit(store, submission(3, { idempotencyKey: "k" }));
    assert.equal(again.created, false);
    assert.equal(again.job.id, first.job.id);
    assert.deepEqual(store.spent("d"), [3], "charged once");
    await assert.rejects(
      submit(store, submission(3, { idempotencyKey: "k", requestHash: "other" })),
      IdempotencyConflictError,
    );
    const otherKey = await submit(store, submission(3, { idempotencyKey: "k", keyId: "key-2" }));
    assert.notEqual(otherKey.job.id, first.job.id, "idempotency keys are per API key");
    // Even a resubmission that would no longer fit returns the job: it was charged already.
    await submit(store, submission(4));
    assert.equal((await submit(store, submission(3, { idempotencyKey: "k" }))).created, false);
    assert.deepEqual(store.spent("d"), [3, 3, 4]);
  });

  Deno.test(`charging (${how}): an immediate release is stored finished and charged its ε`, async () => {
    const store = storeWith(2);
    const ok = submission(undefined);
    await recordAnswered(store, ok, { epsilon: 0.5, result: { rows: [] } as never });
    assert.equal(store.jobs.get(ok.id)!.status, "succeeded");
    assert.deepEqual(store.jobs.get(ok.id)!.progress, { stage: "done", fraction: 1 });
    const reason = { code: "invalid_data", message: "row 2" };
    const failed = submission(undefined);
    await recordAnswered(store, failed, { epsilon: 0.5, failure: reason });
    const row = store.jobs.get(failed.id)!;
    assert.equal(row.status, "failed");
    assert.deepEqual(row.error, DATA_REJECTED, "every key sees data_rejected");
    assert.deepEqual(row.failureDetail, reason, "the owner sees the reason");
    assert.deepEqual(store.spent("d"), [0.5, 0.5], "a failure is charged too");
    await assert.rejects(
      recordAnswered(store, submission(undefined), { epsilon: 1.5, failure: reason }),
      BudgetExceededError,
    );
    // Inline data: the failure is public, nothing is charged, but ε must still be valid.
    const inline = submission(undefined, { datasetId: null });
    await recordAnswered(store, inline, { epsilon: 5, failure: reason });
    assert.deepEqual(store.jobs.get(inline.id)!.error, reason);
    assert.equal(store.jobs.get(inline.id)!.failureDetail, null);
    await assert.rejects(
      recordAnswered(
        store,
        submission(undefined, { datasetId: null }),
        { epsilon: Infinity } as never,
      ),
      /Invalid charge/,
    );
    assert.deepEqual(store.spent("d"), [0.5, 0.5]);
  });

  Deno.test(`charging (${how}): a release within its cap passes; above it, or invalid, fails the job`, async () => {
    const store = storeWith(10);
    const { job } = await submit(store, submission(3));
    assert.equal(await check(store, job.id, 3), null, "ε = cap passes");
    assert.equal(await check(store, job.id, 1), null, "below the cap passes");
    assert.deepEqual(store.spent("d"), [3], "no second charge");
    assert.equal(await check(store, job.id, 3.5), "budget_exceeded");
    assert.deepEqual(store.failures.get(job.id), {
      code: "budget_exceeded",
      message: "the release's epsilon exceeds the cap charged when the job was accepted",
    });
    assert.equal(await check(store, "other-job", NaN), "invalid_charge");
    assert.equal(store.failures.get("other-job")!.code, "invalid_charge");
  });

  Deno.test(`charging (${how}): a job accepted uncharged is charged at release if it fits`, async () => {
    const store = storeWith(1);
    assert.equal(await check(store, "old-1", 0.75), null);
    assert.deepEqual(store.spent("d"), [0.75]);
    assert.equal(await check(store, "old-2", 0.25), null, "an exact fit passes");
    assert.equal(await check(store, "old-3", 0.25), "budget_exceeded");
    assert.deepEqual(store.failures.get("old-3"), {
      code: "budget_exceeded",
      message: "the release's epsilon exceeds the dataset's remaining privacy budget; " +
        "nothing was released",
    });
    assert.deepEqual(store.spent("d"), [0.75, 0.25]);
  });
}

Deno.test("runSync refuses a transaction that answers with a promise", () => {
  const tx = storeWith(1).tx(true);
  assert.throws(() => runSync(submitRule(tx, submission(0.5))), TypeError);
});

Deno.test("runAsync passes a rejected answer back into the rule", async () => {
  const store = storeWith(1);
  const tx = { ...store.tx(true), insertJob: () => Promise.reject(new Error("disk full")) };
  await assert.rejects(runAsync(submitRule(tx, submission(0.5))), /disk full/);
  assert.deepEqual(store.spent("d"), [], "nothing after the failed write");
});
