/**
 * The charging rule of the privacy budget, written once for both stores: what a submission is
 * charged, when it is refused (an ε that is not finite and non-negative, an unknown or another
 * tenant's dataset, a charge that does not fit the budget: `ledger.ts`), idempotency (a key's
 * earlier job is returned, never charged again; the ledger's unique job id charges a job once),
 * and the check a release passes before it is made visible ({@linkcode releaseCheckRule}).
 *
 * A rule reads and writes only through a {@linkcode ChargingTransaction}, the few primitive
 * reads and writes it needs, which each store implements in its dialect inside its own
 * transaction (the SQLite store's `BEGIN IMMEDIATE`; the PostgreSQL store's transaction, where
 * reading a dataset's ledger for a charge locks its row `FOR NO KEY UPDATE` and looking up an
 * idempotency key takes that key's advisory lock). The embedded store's transaction is
 * synchronous (`node:sqlite`) and the server store's asynchronous, so a rule is a generator that
 * yields each answer it waits for: {@linkcode runSync} runs it inside a synchronous transaction,
 * {@linkcode runAsync} inside an asynchronous one, in the same order of reads and writes.
 *
 * @module
 */
import { DATA_REJECTED, IdempotencyConflictError } from "./domain_errors.ts";
import { balance, BudgetExceededError, checkCharge, fits } from "./ledger.ts";
import type {
  AnsweredTable,
  Budget,
  CompleteOutcome,
  JobFailure,
  JobKind,
  JobProgress,
  JobView,
  OwnerDiagnostics,
  Submission,
  Submitted,
} from "./store.ts";
import type { TableResult } from "./table_request.ts";

/** An answer a store has now (the embedded store) or will have (the server store). */
export type Io<T> = T | PromiseLike<T>;

/** A rule: a generator that yields what it waits for and returns its result. */
export type Rule<T> = Generator<unknown, T, unknown>;

/** A dataset's total budget and its charges in ledger order. */
export interface ChargingLedger {
  readonly total: number;
  readonly charges: readonly number[];
}

/** A ledger row as both stores select it: `job_id, epsilon, released_at`. */
export type LedgerRow = Readonly<Record<string, unknown>>;

/** An earlier submission under an idempotency key: its request hash and job. */
export interface PreviousSubmission {
  readonly requestHash: string;
  readonly jobId: string;
}

/** The earlier submission an `idempotency` row (`request_hash, job_id`) records, or null. */
export function previousSubmission(row: LedgerRow | undefined): PreviousSubmission | null {
  return row === undefined
    ? null
    : { requestHash: String(row.request_hash), jobId: String(row.job_id) };
}

/** A {@linkcode ChargingLedger} with the rows it was read from. */
export interface ReadLedger extends ChargingLedger {
  readonly rows: readonly LedgerRow[];
}

/**
 * A dataset's ledger from its `epsilon_total` and its ledger rows in order.
 *
 * @param total The dataset row's `epsilon_total`.
 * @param rows Its ledger rows (`job_id, epsilon, released_at`), in `seq` order.
 * @returns The total, each charge's ε and the rows.
 */
export function readLedger(total: unknown, rows: readonly LedgerRow[]): ReadLedger {
  return { total: Number(total), charges: rows.map((row) => Number(row.epsilon)), rows };
}

/**
 * A dataset's budget from its ledger: spent and remaining (composition rounds up, `ledger.ts`)
 * and every release's charge.
 *
 * @param datasetId The dataset.
 * @param ledger Its ledger.
 * @param timeOf A store's `released_at` value as ISO 8601.
 * @returns The budget the API shows.
 */
export function budgetOf(
  datasetId: string,
  ledger: ReadLedger,
  timeOf: (value: unknown) => string,
): Budget {
  const { spent, remaining } = balance(ledger.total, ledger.charges);
  return {
    datasetId,
    epsilonTotal: ledger.total,
    spent,
    remaining,
    releases: ledger.rows.map((row) => ({
      jobId: String(row.job_id),
      epsilon: Number(row.epsilon),
      chargedAt: timeOf(row.released_at),
    })),
  };
}

/** A job row to insert: queued (a submission) or already finished (an immediate release). */
export interface NewJob {
  readonly id: string;
  readonly kind: JobKind;
  readonly status: "queued" | "succeeded" | "failed";
  readonly spec: Submission["spec"];
  readonly datasetId: string | null;
  /** Inline data (only while queued). */
  readonly inlineCsv: string | null;
  /** The submitting API key. */
  readonly submittedBy: string;
  readonly tenant: string;
  readonly progress: JobProgress | null;
  readonly result: TableResult | null;
  readonly diagnostics: OwnerDiagnostics | null;
  /** The public failure (what every key sees). */
  readonly error: JobFailure | null;
  /** The owner's failure behind {@linkcode DATA_REJECTED}, on a registered dataset. */
  readonly failureDetail: JobFailure | null;
  /** Its created and updated time. */
  readonly time: string;
}

/**
 * The reads and writes the charging rule needs, inside one store transaction. Each answers at
 * once or with a promise; a store answers either always at once ({@linkcode runSync}) or
 * through promises ({@linkcode runAsync}).
 */
export interface ChargingTransaction {
  /** The store's current time (its timestamps). */
  now(): string;
  /**
   * The request hash and job of an earlier submission under this key's idempotency key, or
   * null. A store with concurrent writers locks the key first, until the transaction ends.
   */
  previous(
    keyId: string,
    idempotencyKey: string,
  ): Io<PreviousSubmission | null>;
  /** Records the idempotency key of a new job. */
  remember(keyId: string, idempotencyKey: string, requestHash: string, jobId: string): Io<void>;
  /**
   * The dataset's ledger, or null when there is no such dataset or (with a tenant) it is
   * another tenant's. A store with concurrent writers locks the dataset's row until the
   * transaction ends, so no other charge to it interleaves.
   */
  ledger(datasetId: string, tenant: string | null): Io<ChargingLedger | null>;
  /** The ε charged to a job (its cap), or null when it was never charged. */
  charged(jobId: string): Io<number | null>;
  /** Inserts a job row. */
  insertJob(job: NewJob): Io<void>;
  /** Inserts one charge of the ledger (unique per job id). */
  insertCharge(jobId: string, datasetId: string, epsilon: number, time: string): Io<void>;
  /** The job with this id (it exists). */
  jobView(id: string): Io<JobView>;
  /** Fails a job, as the store's `finish` does. */
  failJob(jobId: string, failure: JobFailure): Io<void>;
}

/**
 * A value as the text of a JSON column, or null for null and undefined (how both stores write a
 * {@linkcode NewJob}'s JSON columns).
 *
 * @param value A JSON value.
 * @returns Its JSON text, or null.
 */
export function jsonColumn(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** The `jobs` columns a {@linkcode NewJob} fills, in the order of {@linkcode newJobRow}. */
export const NEW_JOB_COLUMNS = "id, kind, status, spec, dataset_id, inline_csv, submitted_by, " +
  "tenant, progress, result, diagnostics, error, failure_detail, created_at, updated_at";

/**
 * A {@linkcode NewJob}'s values in the order of {@linkcode NEW_JOB_COLUMNS}, as both stores bind
 * them (JSON columns as text).
 *
 * @param job The job row.
 * @returns The 15 values.
 */
export function newJobRow(job: NewJob): (string | null)[] {
  return [
    job.id,
    job.kind,
    job.status,
    JSON.stringify(job.spec),
    job.datasetId,
    job.inlineCsv,
    job.submittedBy,
    job.tenant,
    jsonColumn(job.progress),
    jsonColumn(job.result),
    jsonColumn(job.diagnostics),
    jsonColumn(job.error),
    jsonColumn(job.failureDetail),
    job.time,
    job.time,
  ];
}

/** Waits for one answer of the transaction. */
function* ask<T>(answer: Io<T>): Generator<unknown, T, unknown> {
  return (yield answer) as T;
}

/**
 * What a failed job shows: on a registered dataset every key sees {@linkcode DATA_REJECTED} and
 * the failure itself is kept for the owner (`detail`); otherwise the failure is public.
 *
 * @param registered Whether the job is on a registered dataset.
 * @param failure Why it failed.
 * @returns The public failure and the owner's detail.
 */
export function shownFailure(
  registered: boolean,
  failure: JobFailure,
): { error: JobFailure; detail: JobFailure | null } {
  return registered ? { error: DATA_REJECTED, detail: failure } : { error: failure, detail: null };
}

/**
 * The values a failed job's row is set to, in the order `error, failure_detail, updated_at`
 * (JSON as text; the failure is shown as {@linkcode shownFailure} says).
 *
 * @param datasetId The job's `dataset_id` (null or undefined: no registered dataset).
 * @param failure Why it failed.
 * @param time The update time.
 * @returns The 3 values.
 */
export function failedJobValues(
  datasetId: unknown,
  failure: JobFailure,
  time: string,
): (string | null)[] {
  const shown = shownFailure(datasetId !== null && datasetId !== undefined, failure);
  return [JSON.stringify(shown.error), jsonColumn(shown.detail), time];
}

/** The job an earlier submission under the same idempotency key made, or null. */
function* previousJob(tx: ChargingTransaction, submission: Submission): Rule<Submitted | null> {
  if (submission.idempotencyKey === null) return null;
  const previous = yield* ask(tx.previous(submission.keyId, submission.idempotencyKey));
  if (previous === null) return null;
  if (previous.requestHash !== submission.requestHash) throw new IdempotencyConflictError();
  return { job: yield* ask(tx.jobView(previous.jobId)), created: false };
}

/**
 * Refuses a charge of `epsilon` to the tenant's dataset that is not finite and non-negative, on
 * an unknown (or another tenant's) dataset, or that does not fit its budget; reads (and, in a
 * store with concurrent writers, locks) the ledger before the job is written, so a job on
 * another tenant's dataset is refused as unknown rather than by a foreign key.
 */
function* refuseUnfit(
  tx: ChargingTransaction,
  datasetId: string,
  tenant: string,
  epsilon: number,
): Rule<void> {
  checkCharge(epsilon);
  const ledger = yield* ask(tx.ledger(datasetId, tenant));
  if (ledger === null) throw new RangeError("Invalid datasetId: no such dataset");
  if (!fits(ledger.total, ledger.charges, epsilon)) {
    throw new BudgetExceededError(epsilon, balance(ledger.total, ledger.charges).remaining);
  }
}

/** Writes a new job, its charge (null: none) and its idempotency key; returns it as created. */
function* persist(
  tx: ChargingTransaction,
  submission: Submission,
  job: NewJob,
  charge: number | null,
): Rule<Submitted> {
  yield* ask(tx.insertJob(job));
  if (charge !== null) {
    yield* ask(tx.insertCharge(job.id, submission.datasetId!, charge, job.time));
  }
  if (submission.idempotencyKey !== null) {
    yield* ask(
      tx.remember(submission.keyId, submission.idempotencyKey, submission.requestHash, job.id),
    );
  }
  return { job: yield* ask(tx.jobView(job.id)), created: true };
}

/** The columns a submission's job has whatever its outcome. */
function jobOf(submission: Submission, time: string) {
  return {
    id: submission.id,
    kind: submission.kind ?? "synthesis",
    spec: submission.spec,
    datasetId: submission.datasetId,
    submittedBy: submission.keyId,
    tenant: submission.tenant,
    time,
  };
}

/**
 * The rule of `JobStore.submit`: returns the job of an earlier submission under the same
 * idempotency key (throwing `IdempotencyConflictError` for a different request); otherwise
 * persists the job, queued, and on a registered dataset charges its requested ε (required),
 * refused with a RangeError (no ε, an invalid ε, an unknown dataset) or `BudgetExceededError`
 * (it does not fit) before the job exists.
 *
 * @param tx The store's transaction.
 * @param submission The request.
 * @returns The rule, to run with {@linkcode runSync} or {@linkcode runAsync}.
 */
export function* submitRule(tx: ChargingTransaction, submission: Submission): Rule<Submitted> {
  const previous = yield* previousJob(tx, submission);
  if (previous !== null) return previous;
  const epsilon = submission.spec.epsilon;
  const registered = submission.datasetId !== null;
  if (registered && epsilon === undefined) {
    throw new RangeError("Invalid epsilon: a job on a registered dataset is charged it");
  }
  const time = tx.now();
  if (registered) yield* refuseUnfit(tx, submission.datasetId!, submission.tenant, epsilon!);
  const job: NewJob = {
    ...jobOf(submission, time),
    status: "queued",
    inlineCsv: submission.csv,
    progress: null,
    result: null,
    diagnostics: null,
    error: null,
    failureDetail: null,
  };
  return yield* persist(tx, submission, job, registered ? epsilon! : null);
}

/**
 * The rule of `JobStore.recordAnswered`: as {@linkcode submitRule}, but the job is stored finished
 * (succeeded with its result, or failed), and its charge is `release.epsilon`, refused with a
 * RangeError when it is not finite and non-negative even on inline data.
 *
 * @param tx The store's transaction.
 * @param submission The request.
 * @param release The answer and its ε.
 * @returns The rule, to run with {@linkcode runSync} or {@linkcode runAsync}.
 */
export function* recordAnsweredRule(
  tx: ChargingTransaction,
  submission: Submission,
  release: AnsweredTable,
): Rule<Submitted> {
  const previous = yield* previousJob(tx, submission);
  if (previous !== null) return previous;
  checkCharge(release.epsilon);
  const time = tx.now();
  const registered = submission.datasetId !== null;
  if (registered) {
    yield* refuseUnfit(tx, submission.datasetId!, submission.tenant, release.epsilon);
  }
  const failure = "failure" in release ? shownFailure(registered, release.failure) : null;
  const job: NewJob = {
    ...jobOf(submission, time),
    status: failure === null ? "succeeded" : "failed",
    inlineCsv: null,
    progress: { stage: "done", fraction: 1 },
    result: "result" in release ? release.result : null,
    diagnostics: release.diagnostics ?? null,
    error: failure?.error ?? null,
    failureDetail: failure?.detail ?? null,
  };
  return yield* persist(tx, submission, job, registered ? release.epsilon : null);
}

/**
 * The rule of completing a registered dataset's job: whether it may release at ε. Within the
 * cap charged at acceptance it may; a job accepted uncharged (by an older version) is charged
 * now if ε fits the budget. Otherwise the job is failed and why is returned
 * ("invalid_charge", "budget_exceeded"); null when it may release.
 *
 * @param tx The store's transaction (the one that then makes the release visible).
 * @param jobId The job.
 * @param datasetId Its registered dataset.
 * @param epsilon The release's ε.
 * @returns The rule, to run with {@linkcode runSync} or {@linkcode runAsync}.
 */
export function* releaseCheckRule(
  tx: ChargingTransaction,
  jobId: string,
  datasetId: string,
  epsilon: number,
): Rule<CompleteOutcome | null> {
  try {
    checkCharge(epsilon);
  } catch {
    yield* ask(tx.failJob(jobId, {
      code: "invalid_charge",
      message: "the release's epsilon is not finite, so it cannot be charged to the budget",
    }));
    return "invalid_charge";
  }
  const cap = yield* ask(tx.charged(jobId));
  if (cap !== null) {
    if (epsilon <= cap) return null;
    yield* ask(tx.failJob(jobId, {
      code: "budget_exceeded",
      message: "the release's epsilon exceeds the cap charged when the job was accepted",
    }));
    return "budget_exceeded";
  }
  const ledger = (yield* ask(tx.ledger(datasetId, null)))!;
  if (!fits(ledger.total, ledger.charges, epsilon)) {
    yield* ask(tx.failJob(jobId, {
      code: "budget_exceeded",
      message: "the release's epsilon exceeds the dataset's remaining privacy budget; " +
        "nothing was released",
    }));
    return "budget_exceeded";
  }
  yield* ask(tx.insertCharge(jobId, datasetId, epsilon, tx.now()));
  return null;
}

/** Whether a value is a promise (or another thenable). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}

/**
 * Runs a rule whose transaction answers at once (inside a synchronous transaction).
 *
 * @param rule The rule.
 * @returns Its result; throws what it throws, and a TypeError when an answer is a promise.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runSync } from "./charging.ts";
 * function* rule() {
 *   return (yield 20) as number + 1;
 * }
 * assert.equal(runSync(rule()), 21);
 * ```
 */
export function runSync<T>(rule: Rule<T>): T {
  let step = rule.next();
  while (!step.done) {
    if (isThenable(step.value)) {
      step = rule.throw(new TypeError("a synchronous store transaction answered with a promise"));
    } else {
      step = rule.next(step.value);
    }
  }
  return step.value;
}

/**
 * Runs a rule whose transaction answers with promises (inside an asynchronous transaction),
 * one answer after the other.
 *
 * @param rule The rule.
 * @returns Its result; rejects with what it throws, or with a rejected answer it does not catch.
 */
export async function runAsync<T>(rule: Rule<T>): Promise<T> {
  let step = rule.next();
  while (!step.done) {
    let answer: unknown;
    try {
      answer = await step.value;
    } catch (error) {
      step = rule.throw(error);
      continue;
    }
    step = rule.next(answer);
  }
  return step.value;
}
