/**
 * The embedded {@linkcode JobStore}: one SQLite file (`node:sqlite`, no server), in WAL mode with
 * `synchronous=FULL`, so a committed transaction survives a killed process. Every state change
 * is one `BEGIN IMMEDIATE` transaction; the ledger's unique job id charges a job at most once,
 * and the charge, the release's files and the job's "succeeded" status commit together.
 *
 * @module
 */
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import type { SynthesisSpec } from "../synthesis/spec.ts";
import type { TableSpec } from "./table_spec.ts";
import { DATABASE_FILE, markStore, prepareDataDir, secureStoreFiles } from "./data_dir.ts";
import { DATA_REJECTED } from "./domain_errors.ts";
import { balance, BudgetExceededError, checkBudget, checkCharge, fits } from "./ledger.ts";
import type { ReleasePolicy } from "./release_policy.ts";
import {
  type ApiKey,
  type Budget,
  type CompleteOutcome,
  type DatasetInfo,
  IdempotencyConflictError,
  type ImmediateRelease,
  type JobFailure,
  type JobInput,
  type JobKind,
  type JobProgress,
  type JobStatus,
  type JobStore,
  type JobView,
  type Lease,
  type NewDataset,
  type OwnerDiagnostics,
  type Release,
  type Scope,
  type Submission,
  type Submitted,
} from "./store.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  scopes TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE TABLE IF NOT EXISTS datasets (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  csv TEXT NOT NULL,
  n INTEGER NOT NULL,
  columns TEXT NOT NULL,
  epsilon_total REAL NOT NULL CHECK (epsilon_total > 0 AND epsilon_total <= 1.7976931348623157e308),
  owner_key_id TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  spec TEXT NOT NULL,
  dataset_id TEXT REFERENCES datasets (id),
  inline_csv TEXT,
  submitted_by TEXT NOT NULL,
  enqueued INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_token TEXT,
  lease_expires INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  progress TEXT,
  report TEXT,
  diagnostics TEXT,
  dataset_count INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_claimable ON jobs (status, enqueued);
CREATE TABLE IF NOT EXISTS job_datasets (
  job_id TEXT NOT NULL REFERENCES jobs (id),
  k INTEGER NOT NULL,
  csv TEXT NOT NULL,
  PRIMARY KEY (job_id, k)
);
CREATE TABLE IF NOT EXISTS ledger (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL UNIQUE REFERENCES jobs (id),
  dataset_id TEXT NOT NULL REFERENCES datasets (id),
  epsilon REAL NOT NULL CHECK (epsilon >= 0 AND epsilon <= 1.7976931348623157e308),
  released_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ledger_dataset ON ledger (dataset_id, seq);
CREATE TABLE IF NOT EXISTS idempotency (
  key_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  job_id TEXT NOT NULL REFERENCES jobs (id),
  PRIMARY KEY (key_id, idempotency_key)
);
`;

/**
 * Columns added after the first release, as (table, `ADD COLUMN` clause): applied to a store
 * that lacks them, so an older store opens with its rows intact (an older dataset has no
 * policy, and is read as one whose every column is confidential).
 */
const ADDED_COLUMNS: readonly (readonly [string, string, string])[] = [
  ["jobs", "kind", "kind TEXT NOT NULL DEFAULT 'synthesis' CHECK (kind IN ('synthesis', 'table'))"],
  ["jobs", "result", "result TEXT"],
  ["jobs", "tenant", "tenant TEXT NOT NULL DEFAULT 'default'"],
  ["jobs", "failure_detail", "failure_detail TEXT"],
  ["api_keys", "tenant", "tenant TEXT NOT NULL DEFAULT 'default'"],
  ["datasets", "tenant", "tenant TEXT NOT NULL DEFAULT 'default'"],
  ["datasets", "policy", "policy TEXT"],
];

/** The policy of a dataset registered before policies existed: every column confidential. */
const LEGACY_POLICY: ReleasePolicy = {
  publicColumns: [],
  bounds: {},
  stratumSizes: {},
  levels: {},
  sizePublic: true,
  neighbours: "add-remove",
};

type Row = Record<string, SQLInputValue>;

/** Runs a synchronous store operation as a promise (a throw becomes a rejection). */
function settle<T>(body: () => T): Promise<T> {
  try {
    return Promise.resolve(body());
  } catch (error) {
    return Promise.reject(error);
  }
}

function now(): string {
  return new Date().toISOString();
}

/**
 * The SQLite {@linkcode JobStore}. Open it with {@linkcode SqliteJobStore.open}; several
 * processes may share the file (SQLite serialises writers, `busy_timeout` waits for the lock).
 */
export class SqliteJobStore implements JobStore {
  readonly #db: DatabaseSync;

  private constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /**
   * Opens (creating if needed) the store in `dir/ppsynth.sqlite`: the directory is made 0700 and
   * the store's files 0600, and a store whose marker exists but whose database is missing is
   * refused (see `data_dir.ts`).
   *
   * @param dir The data directory (created if missing).
   */
  static async open(dir: string): Promise<SqliteJobStore> {
    await prepareDataDir(dir);
    const db = new DatabaseSync(`${dir}/${DATABASE_FILE}`);
    try {
      db.exec("PRAGMA busy_timeout = 10000");
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = FULL");
      db.exec("PRAGMA foreign_keys = ON");
      db.exec(SCHEMA);
      const store = new SqliteJobStore(db);
      store.#migrate();
      await markStore(dir);
      await secureStoreFiles(dir);
      return store;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Adds the columns of {@linkcode ADDED_COLUMNS} that the store lacks (one transaction). */
  #migrate(): void {
    this.#tx(() => {
      for (const [table, name, definition] of ADDED_COLUMNS) {
        const present = this.#all(`PRAGMA table_info(${table})`).some((row) => row.name === name);
        if (!present) this.#db.exec(`ALTER TABLE ${table} ADD COLUMN ${definition}`);
      }
    });
  }

  #tx<T>(body: () => T): T {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const result = body();
      this.#db.exec("COMMIT");
      return result;
    } catch (error) {
      this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  #get(sql: string, ...params: SQLInputValue[]): Row | undefined {
    return this.#db.prepare(sql).get(...params) as Row | undefined;
  }

  #all(sql: string, ...params: SQLInputValue[]): Row[] {
    return this.#db.prepare(sql).all(...params) as Row[];
  }

  #run(sql: string, ...params: SQLInputValue[]): number {
    return Number(this.#db.prepare(sql).run(...params).changes);
  }

  createKey(key: ApiKey, hash: string): Promise<void> {
    return settle(() => {
      this.#run(
        `INSERT INTO api_keys (id, hash, name, tenant, scopes, created_at, revoked_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        key.id,
        hash,
        key.name,
        key.tenant,
        key.scopes.join(","),
        key.createdAt,
        key.revokedAt,
      );
    });
  }

  findKey(hash: string): Promise<ApiKey | null> {
    return settle(() => {
      const row = this.#get("SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL", hash);
      return row === undefined ? null : keyOf(row);
    });
  }

  listKeys(): Promise<ApiKey[]> {
    return settle(() => this.#all("SELECT * FROM api_keys ORDER BY created_at").map(keyOf));
  }

  revokeKey(id: string): Promise<boolean> {
    return settle(() => {
      const changes = this.#run(
        "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
        now(),
        id,
      );
      return changes === 1;
    });
  }

  createDataset(dataset: NewDataset): Promise<DatasetInfo> {
    return settle(() => {
      checkBudget(dataset.epsilonTotal);
      const createdAt = now();
      this.#run(
        `INSERT INTO datasets (id, name, csv, n, columns, epsilon_total, owner_key_id, tenant,
         policy, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        dataset.id,
        dataset.name,
        dataset.csv,
        dataset.n,
        JSON.stringify(dataset.columns),
        dataset.epsilonTotal,
        dataset.ownerKeyId,
        dataset.tenant,
        JSON.stringify(dataset.policy),
        createdAt,
      );
      const { id, name, n, columns, epsilonTotal, policy } = dataset;
      return { id, name, n, columns: [...columns], epsilonTotal, createdAt, policy };
    });
  }

  dataset(id: string, tenant: string): Promise<DatasetInfo | null> {
    return settle(() => {
      const row = this.#get(
        `SELECT id, name, n, columns, epsilon_total, created_at, policy FROM datasets
         WHERE id = ? AND tenant = ?`,
        id,
        tenant,
      );
      if (row === undefined) return null;
      return {
        id: String(row.id),
        name: String(row.name),
        n: Number(row.n),
        columns: JSON.parse(String(row.columns)),
        epsilonTotal: Number(row.epsilon_total),
        createdAt: String(row.created_at),
        policy: row.policy === null ? LEGACY_POLICY : JSON.parse(String(row.policy)),
      };
    });
  }

  #ledger(
    datasetId: string,
    tenant: string | null,
  ): { total: number; charges: number[]; rows: Row[] } | null {
    const dataset = this.#get(
      "SELECT epsilon_total, tenant FROM datasets WHERE id = ?",
      datasetId,
    );
    if (dataset === undefined || (tenant !== null && dataset.tenant !== tenant)) return null;
    const rows = this.#all(
      "SELECT job_id, epsilon, released_at FROM ledger WHERE dataset_id = ? ORDER BY seq",
      datasetId,
    );
    return {
      total: Number(dataset.epsilon_total),
      charges: rows.map((row) => Number(row.epsilon)),
      rows,
    };
  }

  budget(datasetId: string, tenant: string): Promise<Budget | null> {
    return settle(() => {
      const ledger = this.#ledger(datasetId, tenant);
      if (ledger === null) return null;
      const { spent, remaining } = balance(ledger.total, ledger.charges);
      return {
        datasetId,
        epsilonTotal: ledger.total,
        spent,
        remaining,
        releases: ledger.rows.map((row) => ({
          jobId: String(row.job_id),
          epsilon: Number(row.epsilon),
          chargedAt: String(row.released_at),
        })),
      };
    });
  }

  /** The job an earlier submission under the same idempotency key made, or null. */
  #previous(submission: Submission): Submitted | null {
    if (submission.idempotencyKey === null) return null;
    const previous = this.#get(
      "SELECT request_hash, job_id FROM idempotency WHERE key_id = ? AND idempotency_key = ?",
      submission.keyId,
      submission.idempotencyKey,
    );
    if (previous === undefined) return null;
    if (previous.request_hash !== submission.requestHash) throw new IdempotencyConflictError();
    return { job: this.#jobView(String(previous.job_id))!, created: false };
  }

  #rememberIdempotency(submission: Submission): void {
    if (submission.idempotencyKey === null) return;
    this.#run(
      "INSERT INTO idempotency (key_id, idempotency_key, request_hash, job_id) VALUES (?, ?, ?, ?)",
      submission.keyId,
      submission.idempotencyKey,
      submission.requestHash,
      submission.id,
    );
  }

  submit(submission: Submission): Promise<Submitted> {
    return settle(() =>
      this.#tx(() => {
        const previous = this.#previous(submission);
        if (previous !== null) return previous;
        const epsilon = submission.spec.epsilon;
        if (submission.datasetId !== null && epsilon === undefined) {
          throw new RangeError("Invalid epsilon: a job on a registered dataset is charged it");
        }
        const time = now();
        this.#run(
          `INSERT INTO jobs (id, kind, status, spec, dataset_id, inline_csv, submitted_by, tenant,
           created_at, updated_at) VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?)`,
          submission.id,
          submission.kind ?? "synthesis",
          JSON.stringify(submission.spec),
          submission.datasetId,
          submission.csv,
          submission.keyId,
          submission.tenant,
          time,
          time,
        );
        if (submission.datasetId !== null) {
          this.#charge(submission.datasetId, submission.tenant, submission.id, epsilon!, time);
        }
        this.#rememberIdempotency(submission);
        return { job: this.#jobView(submission.id)!, created: true };
      })
    );
  }

  releaseNow(submission: Submission, release: ImmediateRelease): Promise<Submitted> {
    return settle(() =>
      this.#tx(() => {
        const previous = this.#previous(submission);
        if (previous !== null) return previous;
        checkCharge(release.epsilon);
        const time = now();
        const failed = "failure" in release;
        const registered = submission.datasetId !== null;
        this.#run(
          `INSERT INTO jobs (id, kind, status, spec, dataset_id, submitted_by, tenant, progress,
           result, diagnostics, error, failure_detail, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          submission.id,
          submission.kind ?? "synthesis",
          failed ? "failed" : "succeeded",
          JSON.stringify(submission.spec),
          submission.datasetId,
          submission.keyId,
          submission.tenant,
          JSON.stringify({ stage: "done", fraction: 1 }),
          failed ? null : JSON.stringify(release.result),
          release.diagnostics === undefined ? null : JSON.stringify(release.diagnostics),
          failed ? JSON.stringify(registered ? DATA_REJECTED : release.failure) : null,
          failed && registered ? JSON.stringify(release.failure) : null,
          time,
          time,
        );
        if (registered) {
          this.#charge(
            submission.datasetId!,
            submission.tenant,
            submission.id,
            release.epsilon,
            time,
          );
        }
        this.#rememberIdempotency(submission);
        return { job: this.#jobView(submission.id)!, created: true };
      })
    );
  }

  /**
   * Charges `epsilon` for a job to the tenant's dataset (inside the caller's transaction),
   * refusing a charge that does not fit; the ledger's unique job id charges a job once.
   */
  #charge(datasetId: string, tenant: string, jobId: string, epsilon: number, time: string): void {
    checkCharge(epsilon);
    const ledger = this.#ledger(datasetId, tenant);
    if (ledger === null) throw new RangeError("Invalid datasetId: no such dataset");
    if (!fits(ledger.total, ledger.charges, epsilon)) {
      throw new BudgetExceededError(epsilon, balance(ledger.total, ledger.charges).remaining);
    }
    this.#run(
      "INSERT INTO ledger (job_id, dataset_id, epsilon, released_at) VALUES (?, ?, ?, ?)",
      jobId,
      datasetId,
      epsilon,
      time,
    );
  }

  #jobView(id: string): JobView | null {
    const row = this.#get(
      `SELECT id, kind, status, dataset_id, progress, attempts, created_at, updated_at, report,
              dataset_count, result, error FROM jobs WHERE id = ?`,
      id,
    );
    if (row === undefined) return null;
    return {
      id: String(row.id),
      kind: String(row.kind) as JobKind,
      status: String(row.status) as JobStatus,
      datasetId: row.dataset_id === null ? null : String(row.dataset_id),
      progress: row.progress === null ? null : JSON.parse(String(row.progress)),
      attempts: Number(row.attempts),
      createdAt: String(row.created_at),
      updatedAt: String(row.updated_at),
      report: row.report === null ? null : JSON.parse(String(row.report)),
      datasetCount: Number(row.dataset_count),
      result: row.result === null ? null : JSON.parse(String(row.result)),
      error: row.error === null ? null : JSON.parse(String(row.error)),
    };
  }

  job(id: string, tenant: string): Promise<JobView | null> {
    return settle(() => {
      const owned = this.#get("SELECT 1 FROM jobs WHERE id = ? AND tenant = ?", id, tenant);
      return owned === undefined ? null : this.#jobView(id);
    });
  }

  jobInput(id: string): Promise<JobInput | null> {
    return settle(() => {
      const row = this.#get(
        `SELECT jobs.kind, jobs.spec, jobs.dataset_id, datasets.policy,
                COALESCE(jobs.inline_csv, datasets.csv) AS csv
         FROM jobs LEFT JOIN datasets ON datasets.id = jobs.dataset_id WHERE jobs.id = ?`,
        id,
      );
      if (row === undefined || row.csv === null) return null;
      const registered = row.dataset_id !== null;
      const common = {
        csv: String(row.csv),
        datasetId: registered ? String(row.dataset_id) : null,
        policy: !registered
          ? null
          : row.policy === null
          ? LEGACY_POLICY
          : JSON.parse(String(row.policy)) as ReleasePolicy,
      };
      const spec = JSON.parse(String(row.spec));
      return row.kind === "table"
        ? { ...common, kind: "table", spec: spec as TableSpec }
        : { ...common, kind: "synthesis", spec: spec as SynthesisSpec };
    });
  }

  datasetCsv(id: string): Promise<string | null> {
    return settle(() => {
      const row = this.#get("SELECT csv FROM datasets WHERE id = ?", id);
      return row === undefined ? null : String(row.csv);
    });
  }

  jobDataset(id: string, k: number, tenant: string): Promise<string | null> {
    return settle(() => {
      const row = this.#get(
        `SELECT job_datasets.csv FROM job_datasets JOIN jobs ON jobs.id = job_datasets.job_id
         WHERE job_datasets.job_id = ? AND job_datasets.k = ? AND jobs.status = 'succeeded'
         AND jobs.tenant = ?`,
        id,
        k,
        tenant,
      );
      return row === undefined ? null : String(row.csv);
    });
  }

  jobDiagnostics(id: string, tenant: string): Promise<OwnerDiagnostics | null> {
    return settle(() => {
      const row = this.#get(
        `SELECT status, diagnostics, failure_detail FROM jobs
         WHERE id = ? AND tenant = ? AND status IN ('succeeded', 'failed')`,
        id,
        tenant,
      );
      if (row === undefined) return null;
      const diagnostics = row.diagnostics === null ? null : JSON.parse(String(row.diagnostics));
      if (row.status === "succeeded") return diagnostics;
      if (row.failure_detail === null) return null;
      return { ...diagnostics, failure: JSON.parse(String(row.failure_detail)) };
    });
  }

  enqueue(jobId: string): Promise<void> {
    return settle(() => {
      this.#run("UPDATE jobs SET enqueued = 1 WHERE id = ? AND status = 'queued'", jobId);
    });
  }

  claim(workerId: string, leaseMs: number): Promise<Lease | null> {
    return settle(() =>
      this.#tx(() => {
        const row = this.#get(
          "SELECT id FROM jobs WHERE status = 'queued' AND enqueued = 1 ORDER BY rowid LIMIT 1",
        );
        if (row === undefined) return null;
        const token = crypto.randomUUID();
        this.#run(
          `UPDATE jobs SET status = 'running', lease_owner = ?, lease_token = ?, lease_expires = ?,
           attempts = attempts + 1, updated_at = ? WHERE id = ?`,
          workerId,
          token,
          Date.now() + leaseMs,
          now(),
          row.id,
        );
        return { jobId: String(row.id), token };
      })
    );
  }

  #holds(lease: Lease): boolean {
    const row = this.#get(
      "SELECT 1 FROM jobs WHERE id = ? AND status = 'running' AND lease_token = ?",
      lease.jobId,
      lease.token,
    );
    return row !== undefined;
  }

  renew(lease: Lease, leaseMs: number): Promise<boolean> {
    return settle(() => {
      const changes = this.#run(
        "UPDATE jobs SET lease_expires = ? WHERE id = ? AND status = 'running' AND lease_token = ?",
        Date.now() + leaseMs,
        lease.jobId,
        lease.token,
      );
      return changes === 1;
    });
  }

  progress(lease: Lease, progress: JobProgress): Promise<void> {
    return settle(() => {
      this.#run(
        `UPDATE jobs SET progress = ?, updated_at = ?
         WHERE id = ? AND status = 'running' AND lease_token = ?`,
        JSON.stringify(progress),
        now(),
        lease.jobId,
        lease.token,
      );
    });
  }

  /**
   * Fails a job. On a registered dataset every key sees {@linkcode DATA_REJECTED}, and the
   * failure itself is kept for the owner's diagnostics.
   */
  #finish(id: string, failure: JobFailure): void {
    const registered = this.#get("SELECT dataset_id FROM jobs WHERE id = ?", id)?.dataset_id;
    const onRegistered = registered !== null && registered !== undefined;
    this.#run(
      `UPDATE jobs SET status = 'failed', error = ?, failure_detail = ?, inline_csv = NULL,
         lease_owner = NULL, lease_token = NULL, lease_expires = NULL, updated_at = ? WHERE id = ?`,
      JSON.stringify(onRegistered ? DATA_REJECTED : failure),
      onRegistered ? JSON.stringify(failure) : null,
      now(),
      id,
    );
  }

  complete(lease: Lease, release: Release): Promise<CompleteOutcome> {
    return settle(() =>
      this.#tx((): CompleteOutcome => {
        if (!this.#holds(lease)) return "lease_lost";
        const job = this.#get("SELECT dataset_id FROM jobs WHERE id = ?", lease.jobId)!;
        const epsilon = release.report.epsilon;
        if (job.dataset_id !== null) {
          const refused = this.#checkRelease(lease.jobId, String(job.dataset_id), epsilon);
          if (refused !== null) return refused;
        }
        release.datasets.forEach((csv, j) => {
          this.#run(
            "INSERT INTO job_datasets (job_id, k, csv) VALUES (?, ?, ?)",
            lease.jobId,
            j + 1,
            csv,
          );
        });
        this.#run(
          `UPDATE jobs SET status = 'succeeded', report = ?, diagnostics = ?, dataset_count = ?,
           result = ?, progress = ?, inline_csv = NULL, lease_owner = NULL, lease_token = NULL,
           lease_expires = NULL, updated_at = ? WHERE id = ?`,
          JSON.stringify(release.report),
          release.diagnostics === null ? null : JSON.stringify(release.diagnostics),
          release.datasets.length,
          release.result === undefined ? null : JSON.stringify(release.result),
          JSON.stringify({ stage: "done", fraction: 1 }),
          now(),
          lease.jobId,
        );
        return "released";
      })
    );
  }

  /**
   * Whether a registered dataset's job may release at ε: within the cap charged at acceptance,
   * or (a job accepted uncharged by an older version) charged now if it fits. Fails the job and
   * returns why otherwise, or null when it may release.
   */
  #checkRelease(jobId: string, datasetId: string, epsilon: number): CompleteOutcome | null {
    try {
      checkCharge(epsilon);
    } catch {
      this.#finish(jobId, {
        code: "invalid_charge",
        message: "the release's epsilon is not finite, so it cannot be charged to the budget",
      });
      return "invalid_charge";
    }
    const cap = this.#get("SELECT epsilon FROM ledger WHERE job_id = ?", jobId);
    if (cap !== undefined) {
      if (epsilon <= Number(cap.epsilon)) return null;
      this.#finish(jobId, {
        code: "budget_exceeded",
        message: "the release's epsilon exceeds the cap charged when the job was accepted",
      });
      return "budget_exceeded";
    }
    const ledger = this.#ledger(datasetId, null)!;
    if (!fits(ledger.total, ledger.charges, epsilon)) {
      this.#finish(jobId, {
        code: "budget_exceeded",
        message: "the release's epsilon exceeds the dataset's remaining privacy budget; " +
          "nothing was released",
      });
      return "budget_exceeded";
    }
    this.#run(
      "INSERT INTO ledger (job_id, dataset_id, epsilon, released_at) VALUES (?, ?, ?, ?)",
      jobId,
      datasetId,
      epsilon,
      now(),
    );
    return null;
  }

  fail(lease: Lease, failure: JobFailure): Promise<boolean> {
    return settle(() =>
      this.#tx(() => {
        if (!this.#holds(lease)) return false;
        this.#finish(lease.jobId, failure);
        return true;
      })
    );
  }

  recoverStale(before: number, maxAttempts: number): Promise<string[]> {
    return settle(() =>
      this.#tx(() => {
        const stale = this.#all(
          "SELECT id, attempts FROM jobs WHERE status = 'running' AND lease_expires < ?",
          before,
        );
        const requeued: string[] = [];
        for (const row of stale) {
          const id = String(row.id);
          if (Number(row.attempts) >= maxAttempts) {
            this.#finish(id, {
              code: "too_many_attempts",
              message: `the job was interrupted ${row.attempts} times and is not retried again`,
            });
            continue;
          }
          this.#run(
            `UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_token = NULL,
             lease_expires = NULL, updated_at = ? WHERE id = ?`,
            now(),
            id,
          );
          requeued.push(id);
        }
        const unqueued = this.#all("SELECT id FROM jobs WHERE status = 'queued' AND enqueued = 0");
        for (const row of unqueued) {
          this.#run("UPDATE jobs SET enqueued = 1 WHERE id = ?", row.id);
          requeued.push(String(row.id));
        }
        return requeued;
      })
    );
  }

  /** Runs `PRAGMA quick_check`; rejects unless it answers the single row "ok". */
  ping(): Promise<void> {
    return settle(() => {
      const rows = this.#all("PRAGMA quick_check");
      if (rows.length !== 1 || Object.values(rows[0])[0] !== "ok") {
        throw new Error(`the store failed its integrity check (${rows.length} problems)`);
      }
    });
  }

  close(): void {
    this.#db.close();
  }
}

function keyOf(row: Row): ApiKey {
  return {
    id: String(row.id),
    name: String(row.name),
    tenant: String(row.tenant),
    scopes: String(row.scopes).split(",").filter((s) => s !== "") as Scope[],
    createdAt: String(row.created_at),
    revokedAt: row.revoked_at === null ? null : String(row.revoked_at),
  };
}
