/**
 * The {@linkcode JobStore} of a service whose jobs run on the Redis queue (PPSYNTH_QUEUE): the
 * store underneath (the embedded SQLite store, or PostgreSQL with PPSYNTH_STORE_URL) keeps keys,
 * datasets, the ledger, jobs and releases as before, and `enqueue` adds the job to BullMQ (after
 * which `deno task worker` processes on any machine that shares the store run it). Everything
 * else is the underlying store's.
 *
 * @module
 */
import type {
  AnsweredTable,
  ApiKey,
  Budget,
  Claim,
  CompleteOutcome,
  DatasetInfo,
  JobFailure,
  JobInput,
  JobOutput,
  JobProgress,
  JobStore,
  JobView,
  Lease,
  NewDataset,
  OwnerDiagnostics,
  Submission,
  Submitted,
} from "../jobs/store.ts";
import { apiJobKey } from "./scale_jobs.ts";
import type { ScaleQueues } from "./scale_queues.ts";

/** Whether a job's request asks for the GPU (`backend: "gpu"` or `sampler: "gpu-hmc"`). */
export function prefersGpu(input: JobInput): boolean {
  const spec = input.spec as { backend?: string; sampler?: string };
  return spec.backend === "gpu" || spec.sampler === "gpu-hmc";
}

/** A store with its queue on Redis. */
export class RedisQueuedStore implements JobStore {
  readonly #store: JobStore;
  readonly #queues: ScaleQueues;

  /**
   * @param store The store (datasets, ledger, jobs): SQLite or PostgreSQL.
   * @param queues Where jobs are enqueued.
   */
  constructor(store: JobStore, queues: ScaleQueues) {
    this.#store = store;
    this.#queues = queues;
  }

  /** Adds the job to BullMQ (id `api-<jobId>`, once), then marks it enqueued in the store. */
  async enqueue(jobId: string): Promise<void> {
    const input = await this.#store.jobInput(jobId);
    if (input === null) throw new RangeError(`Invalid jobId: no such job: jobId=${jobId}`);
    await this.#queues.add({ kind: "api", jobId }, apiJobKey(jobId), prefersGpu(input));
    await this.#store.enqueue(jobId);
  }

  /**
   * Adds to BullMQ the persisted jobs that were never enqueued (a process that died between
   * the two steps of a submission). Returns their ids.
   *
   * @param maxAttempts The store's attempt limit (no running job is touched here).
   */
  async enqueueUnqueued(maxAttempts: number): Promise<string[]> {
    const ids = await this.#store.recoverStale(-Infinity, maxAttempts);
    for (const id of ids) {
      const input = await this.#store.jobInput(id);
      await this.#queues.add(
        { kind: "api", jobId: id },
        apiJobKey(id),
        input !== null && prefersGpu(input),
      );
    }
    return ids;
  }

  claim(workerId: string, leaseMs: number): Promise<Lease | null> {
    return this.#store.claim(workerId, leaseMs);
  }
  claimById(jobId: string, workerId: string, leaseMs: number): Promise<Claim | null> {
    return this.#store.claimById(jobId, workerId, leaseMs);
  }
  renew(lease: Lease, leaseMs: number): Promise<boolean> {
    return this.#store.renew(lease, leaseMs);
  }
  progress(lease: Lease, progress: JobProgress): Promise<void> {
    return this.#store.progress(lease, progress);
  }
  complete(lease: Lease, release: JobOutput): Promise<CompleteOutcome> {
    return this.#store.complete(lease, release);
  }
  fail(lease: Lease, failure: JobFailure): Promise<boolean> {
    return this.#store.fail(lease, failure);
  }
  recoverStale(before: number, maxAttempts: number): Promise<string[]> {
    return this.#store.recoverStale(before, maxAttempts);
  }
  createKey(key: ApiKey, hash: string): Promise<void> {
    return this.#store.createKey(key, hash);
  }
  findKey(hash: string): Promise<ApiKey | null> {
    return this.#store.findKey(hash);
  }
  listKeys(): Promise<ApiKey[]> {
    return this.#store.listKeys();
  }
  revokeKey(id: string): Promise<boolean> {
    return this.#store.revokeKey(id);
  }
  createDataset(dataset: NewDataset): Promise<DatasetInfo> {
    return this.#store.createDataset(dataset);
  }
  dataset(id: string, tenant: string): Promise<DatasetInfo | null> {
    return this.#store.dataset(id, tenant);
  }
  budget(datasetId: string, tenant: string): Promise<Budget | null> {
    return this.#store.budget(datasetId, tenant);
  }
  submit(submission: Submission): Promise<Submitted> {
    return this.#store.submit(submission);
  }
  recordAnswered(submission: Submission, release: AnsweredTable): Promise<Submitted> {
    return this.#store.recordAnswered(submission, release);
  }
  job(id: string, tenant: string): Promise<JobView | null> {
    return this.#store.job(id, tenant);
  }
  jobInput(id: string): Promise<JobInput | null> {
    return this.#store.jobInput(id);
  }
  datasetCsv(id: string): Promise<string | null> {
    return this.#store.datasetCsv(id);
  }
  jobDataset(id: string, k: number, tenant: string): Promise<string | null> {
    return this.#store.jobDataset(id, k, tenant);
  }
  jobDiagnostics(id: string, tenant: string): Promise<OwnerDiagnostics | null> {
    return this.#store.jobDiagnostics(id, tenant);
  }
  ping(): Promise<void> {
    return this.#store.ping();
  }
  close(): Promise<void> {
    return this.#store.close();
  }
}
