/**
 * The server {@linkcode JobStore}: PostgreSQL, selected by `PPSYNTH_STORE_URL=postgres://…`, so
 * that API processes and workers on several machines share keys, datasets, the ledger, jobs and
 * releases with nothing but the URL. The guarantees are the SQLite store's: the charge, the
 * release's files and the job's "succeeded" status commit in one transaction; the ledger's unique
 * job id charges a job at most once; `CHECK` constraints refuse a non-finite or negative ε at the
 * storage layer too. Claims take the oldest claimable job with `FOR UPDATE SKIP LOCKED`; charges
 * to one dataset are serialised by a lock on its row. The schema is migrated at start, under an
 * advisory lock (`postgres_schema.ts`).
 *
 * The class is built in layers over one connection pool, one file each, as the SQLite store is:
 * the database (`postgres_schema.ts`), API keys (`postgres_keys.ts`), datasets
 * (`postgres_datasets.ts`), jobs and the ledger (`postgres_jobs.ts`) and the job queue with its
 * leases (`postgres_queue.ts`).
 *
 * @module
 */
import { PgDb, type PgDbOptions, row } from "./postgres_schema.ts";
import { PostgresQueue } from "./postgres_queue.ts";
import type { JobStore } from "./store.ts";

/**
 * The PostgreSQL {@linkcode JobStore}. Open it with {@linkcode PostgresJobStore.open}; any number
 * of processes on any machines may share the database.
 */
export class PostgresJobStore extends PostgresQueue implements JobStore {
  private constructor(db: PgDb) {
    super(db);
  }

  /**
   * Connects to the database and migrates its schema (idempotent; concurrent starts wait for
   * each other).
   *
   * @param url A postgres:// or postgresql:// URL (PPSYNTH_STORE_URL).
   * @param options Pool size and connection timeout.
   * @returns The store; throws when the database cannot be reached or migrated.
   */
  static async open(url: string, options: PgDbOptions = {}): Promise<PostgresJobStore> {
    return new PostgresJobStore(await PgDb.connect(url, options));
  }

  /** Rejects unless the database answers a query on the store's tables. */
  async ping(): Promise<void> {
    const answer = await row(this.db.sql, "SELECT count(*) AS n FROM schema_migrations");
    if (answer === undefined || !(Number(answer.n) >= 1)) {
      throw new Error("the store's schema is missing");
    }
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
