/**
 * The PostgreSQL database of the server store: its versioned migrations ({@linkcode MIGRATIONS},
 * applied at start under an advisory lock, so two processes starting together apply each once),
 * the connection pool and the few query helpers the store's layers share,
 * {@linkcode PgDb.tx} among them: every state change that reads before it writes is one
 * transaction, retried whole when PostgreSQL aborts it for a deadlock or a serialization failure.
 *
 * The tables are the SQLite store's (`sqlite_schema.ts`) with PostgreSQL's types and more of the
 * guarantees in the schema: `CHECK` constraints on ε (finite, non-negative; a budget positive),
 * on statuses and kinds, on a lease held exactly while a job runs and on inline data dropped once
 * a job has finished; the ledger's unique job id (a job is charged at most once); foreign keys
 * that keep a job on its own tenant's dataset and a charge on its own job's dataset.
 *
 * @module
 */
// @ts-types="@types/pg"
import pg from "pg";

/** The largest finite float64, the upper bound of every stored ε. */
const MAX_DOUBLE = "'1.7976931348623157e308'::double precision";

/**
 * The schema's versions, in order: version k + 1 is `MIGRATIONS[k]`. A migration is never edited
 * once released; a change to the schema is a new entry.
 */
export const MIGRATIONS: readonly string[] = [
  `
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  tenant TEXT NOT NULL,
  scopes TEXT[] NOT NULL
    CHECK (scopes <@ ARRAY['submit', 'read', 'diagnostics', 'admin']::TEXT[]),
  created_at TIMESTAMPTZ NOT NULL,
  revoked_at TIMESTAMPTZ
);
CREATE TABLE datasets (
  id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  name TEXT NOT NULL,
  csv TEXT NOT NULL,
  n INTEGER NOT NULL CHECK (n >= 0),
  columns JSON NOT NULL,
  epsilon_total DOUBLE PRECISION NOT NULL
    CHECK (epsilon_total > 0 AND epsilon_total <= ${MAX_DOUBLE}),
  owner_key_id TEXT NOT NULL,
  policy JSON NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  UNIQUE (id, tenant)
);
CREATE TABLE jobs (
  seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('synthesis', 'table')),
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  tenant TEXT NOT NULL,
  spec JSON NOT NULL,
  dataset_id TEXT,
  inline_csv TEXT,
  submitted_by TEXT NOT NULL,
  enqueued BOOLEAN NOT NULL DEFAULT FALSE,
  lease_owner TEXT,
  lease_token TEXT,
  lease_expires BIGINT,
  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  progress JSON,
  report JSON,
  diagnostics JSON,
  result JSON,
  error JSON,
  failure_detail JSON,
  dataset_count INTEGER NOT NULL DEFAULT 0 CHECK (dataset_count >= 0),
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  UNIQUE (id, dataset_id),
  FOREIGN KEY (dataset_id, tenant) REFERENCES datasets (id, tenant),
  CHECK ((status = 'running') = (lease_token IS NOT NULL AND lease_expires IS NOT NULL)),
  CHECK (status IN ('queued', 'running') OR inline_csv IS NULL)
);
CREATE INDEX jobs_claimable ON jobs (seq) WHERE status = 'queued' AND enqueued;
CREATE INDEX jobs_unqueued ON jobs (seq) WHERE status = 'queued' AND NOT enqueued;
CREATE INDEX jobs_running ON jobs (lease_expires) WHERE status = 'running';
CREATE TABLE job_datasets (
  job_id TEXT NOT NULL REFERENCES jobs (id),
  k INTEGER NOT NULL CHECK (k >= 1),
  csv TEXT NOT NULL,
  PRIMARY KEY (job_id, k)
);
CREATE TABLE ledger (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job_id TEXT NOT NULL UNIQUE,
  dataset_id TEXT NOT NULL REFERENCES datasets (id),
  epsilon DOUBLE PRECISION NOT NULL CHECK (epsilon >= 0 AND epsilon <= ${MAX_DOUBLE}),
  released_at TIMESTAMPTZ NOT NULL,
  FOREIGN KEY (job_id, dataset_id) REFERENCES jobs (id, dataset_id)
);
CREATE INDEX ledger_dataset ON ledger (dataset_id, seq);
CREATE TABLE idempotency (
  key_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  job_id TEXT NOT NULL REFERENCES jobs (id),
  PRIMARY KEY (key_id, idempotency_key)
);
`,
];

/**
 * The first key of the store's advisory locks (the second names the lock): "ppsy" in ASCII, so
 * they are told apart from other applications' locks on the same database.
 */
const LOCK_CLASS = 0x70707379;
/** The second key of the migration lock. */
const MIGRATION_LOCK = 1;
/** The first key of the per-idempotency-key transaction locks (the second is a hash). */
const IDEMPOTENCY_LOCK_CLASS = 0x70707380;

/** A result row. */
export type Row = Record<string, unknown>;

/** A connection or the pool: what runs one statement. */
export interface Sql {
  query(text: string, params?: unknown[]): Promise<{ rows: Row[]; rowCount: number | null }>;
}

/**
 * Refuses a text parameter that holds a NUL character, which PostgreSQL's text cannot store (the
 * SQLite store can): a RangeError, answered 400, rather than the driver's error, answered 500.
 * The message names no value.
 */
function checkParams(params: unknown[]): unknown[] {
  for (const param of params) {
    const texts = Array.isArray(param) ? param : [param];
    if (texts.some((text) => typeof text === "string" && text.includes("\u0000"))) {
      throw new RangeError("Invalid text: the store cannot hold a NUL character (U+0000)");
    }
  }
  return params;
}

/** Every row of a statement. */
export async function rows(sql: Sql, text: string, ...params: unknown[]): Promise<Row[]> {
  return (await sql.query(text, checkParams(params))).rows;
}

/** The first row of a statement, or undefined. */
export async function row(sql: Sql, text: string, ...params: unknown[]): Promise<Row | undefined> {
  return (await sql.query(text, checkParams(params))).rows[0];
}

/** Runs a statement; returns the number of rows it changed. */
export async function run(sql: Sql, text: string, ...params: unknown[]): Promise<number> {
  return (await sql.query(text, checkParams(params))).rowCount ?? 0;
}

/**
 * Takes the transaction's lock on one idempotency key (released at commit or rollback), so two
 * submissions under the same key run one after the other and the second finds the first's job.
 */
export async function lockIdempotencyKey(sql: Sql, keyId: string, key: string): Promise<void> {
  await sql.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [
    IDEMPOTENCY_LOCK_CLASS,
    JSON.stringify([keyId, key]),
  ]);
}

/** The current time as an ISO 8601 string (the store's timestamps). */
export function now(): string {
  return new Date().toISOString();
}

/** A stored timestamp (a `Date` from the driver) as the store's ISO 8601 string. */
export function isoTime(value: unknown): string {
  return value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
}

/** A nullable stored timestamp as an ISO 8601 string or null. */
export function isoTimeOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : isoTime(value);
}

/** SQLSTATEs after which a transaction is retried whole: serialization failure, deadlock. */
const RETRIED = new Set(["40001", "40P01"]);

/** Transactions retried at most this many times. */
const MAX_RETRIES = 5;

/** Options of {@linkcode PgDb.connect}. */
export interface PgDbOptions {
  /** Connections in the pool (default 10). */
  readonly max?: number;
  /** How long to wait for a connection, in milliseconds (default 10 000). */
  readonly connectionTimeoutMs?: number;
}

/** The store's connection pool, with its schema migrated. */
export class PgDb {
  readonly #pool: pg.Pool;
  #closed: Promise<void> | null = null;

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /**
   * Connects, and migrates the schema to the newest version (see {@linkcode migrate}).
   *
   * @param url A postgres:// URL.
   * @param options Pool size and connection timeout.
   * @returns The pool; throws when the database cannot be reached or is newer than this program.
   */
  static async connect(url: string, options: PgDbOptions = {}): Promise<PgDb> {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.max ?? 10,
      connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
      application_name: "ppsynth",
    });
    // An idle connection's error (the server restarted, the network dropped) is reported by the
    // next statement on a fresh connection; unhandled, it would end the process.
    pool.on("error", () => {});
    const db = new PgDb(pool);
    try {
      await migrate(pool);
      return db;
    } catch (error) {
      await db.close();
      throw error;
    }
  }

  /** The pool, for statements that need no transaction. */
  get sql(): Sql {
    return this.#pool;
  }

  /**
   * Runs `body` in one transaction on one connection: committed when it returns, rolled back
   * when it throws, and run again (at most 5 times) when PostgreSQL aborts it for a deadlock or
   * a serialization failure.
   */
  async tx<T>(body: (sql: Sql) => Promise<T>): Promise<T> {
    for (let attempt = 0;; attempt++) {
      const client = await this.#pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        const result = await body(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        try {
          await client.query("ROLLBACK");
        } catch (rollback) {
          broken = rollback as Error; // the connection is unusable: drop it from the pool
        }
        const code = (error as { code?: unknown }).code;
        if (typeof code === "string" && RETRIED.has(code) && attempt < MAX_RETRIES) continue;
        throw error;
      } finally {
        client.release(broken);
      }
    }
  }

  /** Closes every connection (idempotent). */
  close(): Promise<void> {
    return this.#closed ??= this.#pool.end();
  }
}

/**
 * Brings the schema to the newest version: under a session advisory lock (a second process
 * starting at the same time waits, then finds the work done), creates `schema_migrations` if
 * needed and applies each missing version in its own transaction with its row. Idempotent.
 *
 * @param pool The database.
 * @returns The version now applied; throws when the database's version is newer than
 * {@linkcode MIGRATIONS} (a newer program migrated it).
 */
export async function migrate(pool: pg.Pool): Promise<number> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("SELECT pg_advisory_lock($1, $2)", [LOCK_CLASS, MIGRATION_LOCK]);
    try {
      await client.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
           version INTEGER PRIMARY KEY CHECK (version >= 1),
           applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
         )`,
      );
      const { rows: [{ version }] } = await client.query(
        "SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations",
      );
      const current = Number(version);
      if (current > MIGRATIONS.length) {
        throw new Error(
          `the store's schema is version ${current}, newer than this program's ` +
            `${MIGRATIONS.length}: run a newer ppsynth`,
        );
      }
      for (let v = current + 1; v <= MIGRATIONS.length; v++) {
        await client.query("BEGIN");
        try {
          await client.query(MIGRATIONS[v - 1]);
          await client.query("INSERT INTO schema_migrations (version) VALUES ($1)", [v]);
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK");
          throw error;
        }
      }
      return MIGRATIONS.length;
    } finally {
      await client.query("SELECT pg_advisory_unlock($1, $2)", [LOCK_CLASS, MIGRATION_LOCK]);
    }
  } catch (error) {
    broken = error as Error;
    throw error;
  } finally {
    client.release(broken);
  }
}
