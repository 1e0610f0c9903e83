/**
 * The contract of a {@linkcode JobStore}, run on every implementation: `store_test.ts` runs it on
 * the embedded SQLite store, `store_postgres_test.ts` on PostgreSQL (a fresh database per test, on a
 * cluster the file shares).
 * Each test gets a fresh, empty store from the backend, and may open it again (a restart).
 *
 * @module
 */
import assert from "node:assert/strict";
import { BudgetExceededError } from "../../src/jobs/ledger.ts";
import { parseCsv } from "../../src/data/csv.ts";
import { DATA_REJECTED, IdempotencyConflictError } from "../../src/jobs/domain_errors.ts";
import { createPolicy } from "../../src/jobs/release_policy.ts";
import type { JobOutput, JobStore, JobView, Lease, Submission } from "../../src/jobs/store.ts";
import type { ReleaseManifest } from "../../src/synthesis/report.ts";
import { SynthesisSpec } from "../../src/synthesis/spec.ts";

/** A fresh, empty store's location: open it (again), and throw it away. */
export interface StoreInstance {
  open(): Promise<JobStore>;
  stop(): Promise<void>;
}

/** An implementation under test. */
export interface StoreBackend {
  /** Its name, the prefix of the tests' names. */
  readonly name: string;
  /** Skip its tests (its server is not installed, outside CI). */
  readonly ignore?: boolean;
  /** A fresh, empty store. */
  start(): Promise<StoreInstance>;
}

const SPEC = SynthesisSpec.parse({ y: "y", model: "normal", mechanism: "unweighted" });
/** A request on a registered dataset: charged its ε (3) when accepted. */
const CAPPED = SynthesisSpec.parse({ ...SPEC, epsilon: 3 });
const TENANT = "default";

function release(epsilon: number): JobOutput {
  return {
    report: { epsilon } as unknown as ReleaseManifest,
    diagnostics: { seed: 1 } as unknown as JobOutput["diagnostics"],
    datasets: ["y\n1\n", "y\n2\n"],
  };
}

/** A contract test: the store, and `reopen` (closes it and opens the same store again). */
type Body = (store: JobStore, reopen: () => Promise<JobStore>) => Promise<void>;

/** Runs `body` on a fresh store of the backend. */
async function withStore(backend: StoreBackend, body: Body): Promise<void> {
  const instance = await backend.start();
  let store: JobStore | null = null;
  try {
    store = await instance.open();
    const reopen = async () => {
      await store!.close();
      store = null;
      return store = await instance.open();
    };
    await body(store, reopen);
  } finally {
    await store?.close();
    await instance.stop();
  }
}

async function registered(store: JobStore, epsilonTotal: number): Promise<string> {
  const { id } = await store.createDataset({
    id: crypto.randomUUID(),
    name: "d",
    csv: "y\n1\n2\n",
    n: 2,
    columns: ["y"],
    epsilonTotal,
    ownerKeyId: "k",
    tenant: TENANT,
    policy: createPolicy({}, parseCsv("y\n1\n2\n", "d")),
  });
  return id;
}

/** Submits a job (on a registered dataset, or on inline data), enqueues it and claims it. */
async function running(
  store: JobStore,
  datasetId: string | null,
  leaseMs = 60_000,
): Promise<{ job: JobView; lease: Lease }> {
  const { job } = await store.submit(submission(datasetId));
  await store.enqueue(job.id);
  return { job, lease: (await store.claim("w", leaseMs))! };
}

function submission(datasetId: string | null, extra: Partial<Submission> = {}): Submission {
  return {
    id: crypto.randomUUID(),
    keyId: "key-1",
    tenant: TENANT,
    idempotencyKey: null,
    requestHash: "h",
    datasetId,
    csv: datasetId === null ? "y\n1\n" : null,
    spec: datasetId === null ? SPEC : CAPPED,
    ...extra,
  };
}

const CASES: readonly (readonly [string, Body])[] = [
  [
    "the store charges a job's cap once, when it accepts it",
    async (store) => {
      const datasetId = await registered(store, 10);
      const { job } = await store.submit(submission(datasetId));
      assert.equal((await store.budget(datasetId, TENANT))!.spent, 3, "charged at acceptance");
      assert.equal(await store.claim("w", 60_000), null, "not claimable before it is enqueued");
      await store.enqueue(job.id);
      const lease = (await store.claim("w", 60_000))!;
      assert.equal(lease.jobId, job.id);
      assert.equal(
        await store.jobDataset(job.id, 1, TENANT),
        null,
        "nothing visible while running",
      );
      assert.equal(await store.complete(lease, release(2.5)), "released");
      assert.equal(await store.complete(lease, release(2.5)), "lease_lost", "a second completion");
      const budget = (await store.budget(datasetId, TENANT))!;
      assert.equal(budget.spent, 3, "the cap stays charged, not the release's smaller epsilon");
      assert.equal(budget.remaining, 7);
      assert.deepEqual(budget.releases.map((r) => r.jobId), [job.id]);
      assert.equal(await store.jobDataset(job.id, 2, TENANT), "y\n2\n");
      assert.equal(await store.jobDataset(job.id, 3, TENANT), null);
      assert.deepEqual(await store.jobDiagnostics(job.id, TENANT), { seed: 1 });
      const view = (await store.job(job.id, TENANT))!;
      assert.equal(view.status, "succeeded");
      assert.equal(view.datasetCount, 2);
    },
  ],
  [
    "an expired lease is requeued, and only the new lease can complete the job",
    async (store) => {
      const datasetId = await registered(store, 10);
      const { job, lease: first } = await running(store, datasetId, 1);
      await new Promise((resolve) => setTimeout(resolve, 5));
      assert.deepEqual(await store.recoverStale(Date.now(), 3), [job.id]);
      const second = (await store.claim("b", 60_000))!;
      assert.equal(second.jobId, job.id);
      assert.equal(await store.renew(first, 60_000), false);
      assert.equal(await store.complete(first, release(1)), "lease_lost");
      assert.equal(await store.fail(first, { code: "x", message: "x" }), false);
      assert.equal(await store.complete(second, release(1)), "released");
      assert.equal((await store.job(job.id, TENANT))!.attempts, 2);
      assert.equal((await store.budget(datasetId, TENANT))!.releases.length, 1);
    },
  ],
  [
    "a release over its cap fails the job as data_rejected, keeps the charge, releases nothing",
    async (store) => {
      const datasetId = await registered(store, 10);
      for (
        const [epsilon, outcome] of [[4, "budget_exceeded"], [Infinity, "invalid_charge"]] as const
      ) {
        const { job, lease } = await running(store, datasetId);
        assert.equal(await store.complete(lease, release(epsilon)), outcome);
        const view = (await store.job(job.id, TENANT))!;
        assert.equal(view.status, "failed");
        assert.deepEqual(view.error, DATA_REJECTED, "one fixed failure for every key");
        assert.equal(await store.jobDataset(job.id, 1, TENANT), null);
        const owner = await store.jobDiagnostics(job.id, TENANT);
        assert.equal(
          (owner!.failure as { code: string }).code,
          outcome,
          "the reason, for the owner",
        );
      }
      assert.equal((await store.budget(datasetId, TENANT))!.spent, 6, "both caps stay charged");
      // Inline data has no ledger: its release is not charged anywhere.
      const { job, lease } = await running(store, null);
      assert.equal(await store.complete(lease, release(50)), "released");
      assert.equal(await store.jobInput(job.id), null, "inline data is dropped once released");
    },
  ],
  [
    "idempotency keys return the same job and refuse a different request",
    async (store) => {
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
    },
  ],
  [
    "a requested epsilon over the remaining budget is refused before the job exists",
    async (store) => {
      const datasetId = await registered(store, 1);
      const spec = SynthesisSpec.parse({ ...SPEC, epsilon: 1.5 });
      const id = crypto.randomUUID();
      await assert.rejects(store.submit(submission(datasetId, { id, spec })), BudgetExceededError);
      assert.equal(await store.job(id, TENANT), null);
      const fitting = SynthesisSpec.parse({ ...SPEC, epsilon: 1 });
      assert.equal((await store.submit(submission(datasetId, { spec: fitting }))).created, true);
    },
  ],
  [
    "jobs survive a reopen; running ones are requeued, then failed after maxAttempts",
    async (first, reopen) => {
      const { job } = await first.submit(submission(null));
      const unqueued = await first.submit(submission(null));
      await first.enqueue(job.id);
      await first.claim("w", 60_000);
      // As if killed: the job is "running" under a lease nobody renews.
      const store = await reopen();
      assert.equal((await store.job(job.id, TENANT))!.status, "running");
      const recovered = await store.recoverStale(Infinity, 2);
      assert.deepEqual(recovered.sort(), [job.id, unqueued.job.id].sort());
      assert.equal((await store.job(job.id, TENANT))!.status, "queued");
      const claims = [(await store.claim("w", 60_000))!, (await store.claim("w", 60_000))!];
      assert.deepEqual(claims.map((l) => l.jobId), [job.id, unqueued.job.id], "oldest first");
      assert.deepEqual(await store.recoverStale(Infinity, 2), [unqueued.job.id]);
      const failed = (await store.job(job.id, TENANT))!;
      assert.equal(failed.status, "failed");
      assert.equal(failed.error!.code, "too_many_attempts");
    },
  ],
  [
    "another tenant sees none of a tenant's datasets, budgets, jobs or results",
    async (store) => {
      const datasetId = await registered(store, 10);
      const { job, lease } = await running(store, datasetId);
      assert.equal(await store.complete(lease, release(1)), "released");
      assert.notEqual(await store.dataset(datasetId, TENANT), null);
      assert.equal(await store.dataset(datasetId, "other"), null);
      assert.equal(await store.budget(datasetId, "other"), null);
      assert.equal(await store.job(job.id, "other"), null);
      assert.equal(await store.jobDataset(job.id, 1, "other"), null);
      assert.equal(await store.jobDiagnostics(job.id, "other"), null);
      await assert.rejects(
        store.submit(submission(datasetId, { tenant: "other" })),
        /no such dataset/,
        "another tenant cannot charge the budget",
      );
      assert.equal((await store.budget(datasetId, TENANT))!.spent, 3);
    },
  ],
  [
    "a failed job on a registered dataset shows data_rejected; the reason is the owner's",
    async (store) => {
      const datasetId = await registered(store, 10);
      const { job, lease } = await running(store, datasetId);
      const reason = { code: "invalid_data", message: "dataset d, row 2 (line 3), column y: …" };
      assert.equal(await store.fail(lease, reason), true);
      assert.deepEqual((await store.job(job.id, TENANT))!.error, DATA_REJECTED);
      assert.deepEqual(await store.jobDiagnostics(job.id, TENANT), { failure: reason });
      assert.equal((await store.budget(datasetId, TENANT))!.spent, 3, "a failure is charged too");
    },
  ],
  [
    "`claimById()` leases a queued or running job by its id; a finished or unknown one gives null",
    async (store) => {
      const datasetId = await registered(store, 10);
      const { job } = await store.submit(submission(datasetId));
      const first = (await store.claimById(job.id, "a", 60_000))!;
      assert.equal(first.attempts, 1, "a queued job, even one not enqueued here");
      assert.equal((await store.job(job.id, TENANT))!.status, "running");
      const second = (await store.claimById(job.id, "b", 60_000))!;
      assert.equal(second.attempts, 2, "a running job whose worker lost its lock");
      assert.equal(await store.complete(first.lease, release(1)), "lease_lost");
      assert.equal(await store.complete(second.lease, release(1)), "released");
      assert.equal(await store.claimById(job.id, "c", 60_000), null, "finished");
      assert.equal(await store.claimById("no-such-job", "c", 60_000), null, "unknown");
      assert.equal((await store.budget(datasetId, TENANT))!.spent, 3, "charged once");
    },
  ],
  [
    "concurrent submissions never overspend a budget, and each accepted job is charged once",
    async (store) => {
      const datasetId = await registered(store, 10);
      const spec = SynthesisSpec.parse({ ...SPEC, epsilon: 1 });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, () => store.submit(submission(datasetId, { spec }))),
      );
      const accepted = outcomes.filter((o) => o.status === "fulfilled");
      assert.equal(accepted.length, 10, "exactly the budget's worth");
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") {
          assert.ok(outcome.reason instanceof BudgetExceededError, String(outcome.reason));
        }
      }
      const budget = (await store.budget(datasetId, TENANT))!;
      assert.equal(budget.spent, 10);
      assert.equal(budget.remaining, 0);
      assert.equal(new Set(budget.releases.map((r) => r.jobId)).size, 10);
    },
  ],
  [
    "concurrent retries under one idempotency key make one job, charged once",
    async (store) => {
      const datasetId = await registered(store, 3);
      const sent = await Promise.all(
        Array.from(
          { length: 10 },
          () => store.submit(submission(datasetId, { idempotencyKey: "retry" })),
        ),
      );
      assert.equal(new Set(sent.map((s) => s.job.id)).size, 1, "one job");
      assert.equal(sent.filter((s) => s.created).length, 1, "created once");
      const budget = (await store.budget(datasetId, TENANT))!;
      assert.equal(budget.spent, 3, "charged once, not refused as over the budget");
      assert.deepEqual(budget.releases.map((r) => r.jobId), [sent[0].job.id]);
    },
  ],
  [
    "concurrent claims hand each job to exactly one worker, oldest first",
    async (store) => {
      const ids: string[] = [];
      for (let k = 0; k < 5; k++) {
        const { job } = await store.submit(submission(null));
        await store.enqueue(job.id);
        ids.push(job.id);
      }
      const leases = await Promise.all(
        Array.from({ length: 12 }, (_, w) => store.claim(`w${w}`, 60_000)),
      );
      const taken = leases.filter((lease) => lease !== null).map((lease) => lease!.jobId);
      assert.deepEqual(taken.toSorted(), ids.toSorted(), "every job once");
      assert.equal(await store.claim("late", 60_000), null);
      for (const id of ids) assert.equal((await store.job(id, TENANT))!.attempts, 1);
    },
  ],
];

/**
 * Registers the contract's tests for one implementation, each on a fresh store.
 *
 * @param backend The implementation.
 */
export function storeContract(backend: StoreBackend): void {
  for (const [name, body] of CASES) {
    Deno.test({
      name: `${backend.name}: ${name}`,
      ignore: backend.ignore ?? false,
      fn: () => withStore(backend, body),
    });
  }
}
