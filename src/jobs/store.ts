/**
 * The durable state of the HTTP service behind two small interfaces: {@linkcode JobQueue} (the
 * job queue with leases, which a distributed queue such as BullMQ can replace) and
 * {@linkcode JobStore} (API keys, registered datasets, the privacy-budget ledger, jobs and their
 * releases, idempotency keys). The embedded default is `SqliteJobStore` (`sqlite_store.ts`);
 * `PostgresJobStore` (`postgres_store.ts`) is the server store that processes on several machines
 * share (`open_store.ts` picks one from PPSYNTH_STORE_URL).
 *
 * @module
 */
import type { FileSchema } from "../data/file_schema.ts";
import type { FileSynthesisSpec } from "../synthesis/file_spec.ts";
import type { FitStatus } from "../synthesis/fit_progress.ts";
import type { SynthesisSpec } from "../synthesis/spec.ts";
import type { ReleaseManifest } from "../synthesis/report.ts";
import type { SynthesisDiagnostics } from "../synthesis/synthesize.ts";
import type { DatasetPolicy } from "./release_policy.ts";
import type { TableResult, TableSpec } from "./table_request.ts";

/** What an API key may do. */
export const SCOPES = ["submit", "read", "diagnostics", "admin"] as const;

/** One of {@linkcode SCOPES}. */
export type Scope = typeof SCOPES[number];

/** The tenant of a key made without one. */
export const DEFAULT_TENANT = "default";

/**
 * An API key as stored: its id, tenant and scopes, never the key itself (only its hash is
 * kept). Everything a key creates belongs to its tenant; no other tenant can see it.
 */
export interface ApiKey {
  readonly id: string;
  readonly name: string;
  readonly tenant: string;
  readonly scopes: readonly Scope[];
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

/** A confidential dataset to register, as canonical CSV text. */
export interface NewDataset {
  readonly id: string;
  readonly name: string;
  readonly csv: string;
  readonly n: number;
  readonly columns: readonly string[];
  /** The total privacy budget ε_total (positive, finite). */
  readonly epsilonTotal: number;
  /** The API key that registered it. */
  readonly ownerKeyId: string;
  /** The tenant it belongs to (the registering key's). */
  readonly tenant: string;
  /** What the owner declared public. */
  readonly policy: DatasetPolicy;
}

/** A registered dataset's public description (no values). */
export interface DatasetInfo {
  readonly id: string;
  readonly name: string;
  readonly n: number;
  readonly columns: readonly string[];
  readonly epsilonTotal: number;
  readonly createdAt: string;
  readonly policy: DatasetPolicy;
}

/**
 * One charge of the ledger: a job's requested ε, charged when the job was accepted and never
 * refunded, whatever the job's outcome.
 */
export interface LedgerEntry {
  readonly jobId: string;
  readonly epsilon: number;
  readonly chargedAt: string;
}

/** A dataset's budget: total, spent (rounded up), remaining (rounded down) and the releases. */
export interface Budget {
  readonly datasetId: string;
  readonly epsilonTotal: number;
  readonly spent: number;
  readonly remaining: number;
  readonly releases: readonly LedgerEntry[];
}

/** The life of a job. */
export type JobStatus = "queued" | "running" | "succeeded" | "failed";

/**
 * One running fit of a job (issue 37): a {@linkcode FitStatus} whose stage is the public label
 * (`publicStage`) and whose seconds are rounded to tenths (`jobProgress`).
 */
export type JobFitProgress = FitStatus;

/**
 * How far a running job is: the stage (a public label) of the fit that last reported and the
 * fraction of the running fits done; with a synthesis's fits also each of them, one per
 * conditional (several outcomes are fitted at once).
 */
export interface JobProgress {
  readonly stage: string;
  readonly fraction: number;
  readonly fits?: JobFitProgress[];
}

/** Why a job failed: a stable code and a message free of confidential values. */
export interface JobFailure {
  readonly code: string;
  readonly message: string;
}

/** What a job computes: a synthesis, or a survey table (`POST /v1/tables`). */
export const JOB_KINDS = ["synthesis", "table"] as const;

/** One of {@linkcode JOB_KINDS}. */
export type JobKind = typeof JOB_KINDS[number];

/**
 * A whole-file synthesis's request as stored (`y: "all"`, issue 35): inline data carry their
 * schema; a registered dataset's is its release policy's.
 */
export type FileJobSpec = FileSynthesisSpec & { readonly fileSchema?: FileSchema };

/** A synthesis or table request to persist and enqueue. */
export interface Submission {
  readonly id: string;
  /** What the job computes (default "synthesis"); `spec` is a TableSpec for a table. */
  readonly kind?: JobKind;
  /** The API key that submitted it (scopes idempotency keys). */
  readonly keyId: string;
  /** The submitting key's tenant, which owns the job. */
  readonly tenant: string;
  readonly idempotencyKey: string | null;
  /** SHA-256 of the validated request, to tell a retry from a different request. */
  readonly requestHash: string;
  /**
   * A registered dataset (of the same tenant), or null for inline data. A job on a registered
   * dataset is charged `spec.epsilon` (required) when it is accepted.
   */
  readonly datasetId: string | null;
  /** Inline data as canonical CSV text (null with a registered dataset). */
  readonly csv: string | null;
  readonly spec: SynthesisSpec | FileJobSpec | TableSpec;
}

/** The owner's confidential diagnostics of a job (the reason of a failure, α, Δ_i, seed…). */
export type OwnerDiagnostics = Readonly<Record<string, unknown>>;

/** What a submission returned: the job, and whether this call created it. */
export interface Submitted {
  readonly job: JobView;
  readonly created: boolean;
}

/** The public view of a job. */
export interface JobView {
  readonly id: string;
  readonly kind: JobKind;
  readonly status: JobStatus;
  readonly datasetId: string | null;
  readonly progress: JobProgress | null;
  /** How many times a worker has claimed it (0: queued, or answered in its request). */
  readonly attempts: number;
  /** The sampler iterations of one fit its request asks for (`jobIterations`). */
  readonly iterations: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The public release manifest, once succeeded. */
  readonly report: ReleaseManifest | null;
  /** Number of synthetic datasets released (0 until succeeded). */
  readonly datasetCount: number;
  /** A table job's public table, once succeeded (null for a synthesis). */
  readonly result: TableResult | null;
  readonly error: JobFailure | null;
}

/**
 * What a worker needs to run a job: its kind, the request, the confidential data and, for a
 * registered dataset, its release policy.
 */
export type JobInput =
  & {
    readonly csv: string;
    readonly datasetId: string | null;
    readonly policy: DatasetPolicy | null;
  }
  & (
    | { readonly kind: "synthesis"; readonly spec: SynthesisSpec | FileJobSpec }
    | { readonly kind: "table"; readonly spec: TableSpec }
  );

/** A claim on a job: valid while its token is the job's current one and it has not expired. */
export interface Lease {
  readonly jobId: string;
  readonly token: string;
}

/** A lease just taken, with how many times the job has now been claimed (this claim included). */
export interface Claim {
  readonly lease: Lease;
  readonly attempts: number;
}

/** A finished job to release. */
export interface JobOutput {
  /** The public manifest; its ε is charged (a table job: the synthesis behind the table). */
  readonly report: ReleaseManifest;
  /** The owner's diagnostics (null: none kept). */
  readonly diagnostics: SynthesisDiagnostics | OwnerDiagnostics | null;
  /** The m synthetic datasets as CSV text (none for a table job). */
  readonly datasets: readonly string[];
  /** A table job's public table. */
  readonly result?: TableResult;
}

/**
 * A table answered at once (`laplace`): its ε and the table, or the failure (a job on a
 * registered dataset is charged either way), with the owner's diagnostics.
 */
export type AnsweredTable =
  & { readonly epsilon: number; readonly diagnostics?: OwnerDiagnostics }
  & ({ readonly result: TableResult } | { readonly failure: JobFailure });

/**
 * What completing a job did: released it, refused it because its ε exceeded the cap charged
 * at acceptance or (a job accepted uncharged by an older version) the budget (the job failed,
 * nothing released), or nothing because the lease was no longer this worker's (another worker
 * owns the job, or it already finished).
 */
export type CompleteOutcome = "released" | "budget_exceeded" | "invalid_charge" | "lease_lost";

/**
 * The queue part of the store: small, so that a distributed queue can replace it. Delivery is at
 * least once: a job whose lease expires is handed out again, and only the current lease can
 * complete it.
 */
export interface JobQueue {
  /** Makes a persisted, queued job claimable (idempotent). */
  enqueue(jobId: string): Promise<void>;
  /** Claims the oldest claimable job for `leaseMs` milliseconds, or null when there is none. */
  claim(workerId: string, leaseMs: number): Promise<Lease | null>;
  /**
   * Claims the job with this id for a worker that was handed the id by a distributed queue: a
   * fresh lease on a queued or running job (a running one's worker lost its lock), or null when
   * the job is finished or unknown.
   */
  claimById(jobId: string, workerId: string, leaseMs: number): Promise<Claim | null>;
  /** Extends a lease; false when it is no longer held. */
  renew(lease: Lease, leaseMs: number): Promise<boolean>;
  /** Records progress under a held lease. */
  progress(lease: Lease, progress: JobProgress): Promise<void>;
  /**
   * Completes a job: makes the release visible when its ε is within the cap charged at
   * acceptance (in one transaction), or fails it.
   */
  complete(lease: Lease, release: JobOutput): Promise<CompleteOutcome>;
  /**
   * Fails a job under a held lease; false when the lease was lost. A job on a registered
   * dataset shows every key the fixed `data_rejected` failure; `failure` goes to its owner's
   * diagnostics.
   */
  fail(lease: Lease, failure: JobFailure): Promise<boolean>;
  /**
   * Requeues running jobs whose lease expires before `before` (ms since the epoch; Infinity:
   * every running job, for a server that owns the store alone), failing those claimed
   * `maxAttempts` times already, and enqueues persisted jobs that were never enqueued (a
   * process that died between the two steps of a submission). Returns the ids made claimable.
   */
  recoverStale(before: number, maxAttempts: number): Promise<string[]>;
}

/** Everything else the service keeps. */
export interface JobStore extends JobQueue {
  /** Stores a new key by the SHA-256 of its secret. */
  createKey(key: ApiKey, hash: string): Promise<void>;
  /** The unrevoked key with this hash, or null. */
  findKey(hash: string): Promise<ApiKey | null>;
  listKeys(): Promise<ApiKey[]>;
  /** Revokes a key; false when there is no such key. */
  revokeKey(id: string): Promise<boolean>;

  createDataset(dataset: NewDataset): Promise<DatasetInfo>;
  /** The tenant's dataset with this id, or null (another tenant's is null too). */
  dataset(id: string, tenant: string): Promise<DatasetInfo | null>;
  budget(datasetId: string, tenant: string): Promise<Budget | null>;

  /**
   * Persists a job (queued) and, on a registered dataset, charges its requested ε in the same
   * transaction, unless the key already submitted one under the same idempotency key, which is
   * returned instead (never charged twice). Throws `IdempotencyConflictError` when that key was
   * used for a different request, and `BudgetExceededError` when the request's ε does not fit
   * the dataset's remaining budget.
   */
  submit(submission: Submission): Promise<Submitted>;
  /**
   * Persists a request answered at once as a succeeded (or failed) job: charges
   * `release.epsilon` to the dataset's ledger (once per job id, rounded up) and stores the
   * result in one transaction.
   * A retry under the same idempotency key returns the stored job (never a second charge);
   * throws `IdempotencyConflictError` for a reused key, `BudgetExceededError` when the charge
   * does not fit, and a RangeError for a charge that is not finite and non-negative.
   */
  recordAnswered(submission: Submission, release: AnsweredTable): Promise<Submitted>;
  /** The tenant's job with this id, or null. */
  job(id: string, tenant: string): Promise<JobView | null>;
  jobInput(id: string): Promise<JobInput | null>;
  /** A registered dataset's confidential CSV text, or null. */
  datasetCsv(id: string): Promise<string | null>;
  /** The k-th (1-based) synthetic CSV of the tenant's succeeded job, or null. */
  jobDataset(id: string, k: number, tenant: string): Promise<string | null>;
  /**
   * The confidential diagnostics of the tenant's finished job: a success's, or `{failure}` with
   * the reason of a job on a registered dataset that failed; null otherwise.
   */
  jobDiagnostics(id: string, tenant: string): Promise<OwnerDiagnostics | null>;

  /** Throws when the store cannot be read. */
  ping(): Promise<void>;
  /** Closes the store's file or connections; resolves once they are closed. */
  close(): Promise<void>;
}
