/**
 * The SQLite database of the embedded store: its tables ({@linkcode SCHEMA}), the columns added
 * since the first release (migrated in place when an older store is opened), the connection's
 * settings (WAL, `synchronous=FULL`, foreign keys, a busy timeout) and the few statement helpers
 * the store's layers share, {@linkcode SqliteDb.tx} among them: every state change is one
 * `BEGIN IMMEDIATE` transaction on this one connection.
 *
 * @module
 */
import { DatabaseSync, type SQLInputValue } from "node:sqlite";

/** The store's tables. */
export const SCHEMA = `
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
 * Columns added after the first release, as (table, column, `ADD COLUMN` clause): applied to a
 * store that lacks them, so an older store opens with its rows intact (an older dataset has no
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

/** A result row. */
export type Row = Record<string, SQLInputValue>;

/** Runs a synchronous store operation as a promise (a throw becomes a rejection). */
export function settle<T>(body: () => T): Promise<T> {
  try {
    return Promise.resolve(body());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The current time as an ISO 8601 string (the store's timestamps). */
export function now(): string {
  return new Date().toISOString();
}

/** One connection to the store's database, with its schema migrated. */
export class SqliteDb {
  readonly #db: DatabaseSync;

  /**
   * Opens (creating if needed) the database file, sets the connection up, creates the tables
   * and adds the columns an older store lacks.
   *
   * @param path The database file.
   */
  constructor(path: string) {
    this.#db = new DatabaseSync(path);
    try {
      this.#db.exec("PRAGMA busy_timeout = 10000");
      this.#db.exec("PRAGMA journal_mode = WAL");
      this.#db.exec("PRAGMA synchronous = FULL");
      this.#db.exec("PRAGMA foreign_keys = ON");
      this.#db.exec(SCHEMA);
      this.#migrate();
    } catch (error) {
      this.#db.close();
      throw error;
    }
  }

  /** Adds the columns of {@linkcode ADDED_COLUMNS} that the store lacks (one transaction). */
  #migrate(): void {
    this.tx(() => {
      for (const [table, name, definition] of ADDED_COLUMNS) {
        const present = this.all(`PRAGMA table_info(${table})`).some((row) => row.name === name);
        if (!present) this.#db.exec(`ALTER TABLE ${table} ADD COLUMN ${definition}`);
      }
    });
  }

  /** Runs `body` in one `BEGIN IMMEDIATE` transaction (rolled back if it throws). */
  tx<T>(body: () => T): T {
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

  /** The first row of a query, or undefined. */
  get(sql: string, ...params: SQLInputValue[]): Row | undefined {
    return this.#db.prepare(sql).get(...params) as Row | undefined;
  }

  /** Every row of a query. */
  all(sql: string, ...params: SQLInputValue[]): Row[] {
    return this.#db.prepare(sql).all(...params) as Row[];
  }

  /** Runs a statement; returns the number of rows it changed. */
  run(sql: string, ...params: SQLInputValue[]): number {
    return Number(this.#db.prepare(sql).run(...params).changes);
  }

  close(): void {
    this.#db.close();
  }
}
