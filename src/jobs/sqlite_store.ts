/**
 * The embedded {@linkcode JobStore}: one SQLite file (`node:sqlite`, no server), in WAL mode with
 * `synchronous=FULL`, so a committed transaction survives a killed process. Every state change
 * is one `BEGIN IMMEDIATE` transaction; the ledger's unique job id charges a job at most once,
 * and the charge, the release's files and the job's "succeeded" status commit together.
 *
 * The class is built in layers over one connection, one file each: the database (schema,
 * migrations, statement helpers: `sqlite_schema.ts`), API keys (`sqlite_keys.ts`), datasets
 * (`sqlite_datasets.ts`), jobs and the ledger (`sqlite_jobs.ts`) and the job queue with its
 * leases (`sqlite_queue.ts`).
 *
 * @module
 */
import { DATABASE_FILE, markStore, prepareDataDir, secureStoreFiles } from "./data_dir.ts";
import { SqliteQueue } from "./sqlite_queue.ts";
import { settle, SqliteDb } from "./sqlite_schema.ts";
import type { JobStore } from "./store.ts";

/**
 * The SQLite {@linkcode JobStore}. Open it with {@linkcode SqliteJobStore.open}; several
 * processes may share the file (SQLite serialises writers, `busy_timeout` waits for the lock).
 */
export class SqliteJobStore extends SqliteQueue implements JobStore {
  private constructor(db: SqliteDb) {
    super(db);
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
    const db = new SqliteDb(`${dir}/${DATABASE_FILE}`);
    try {
      await markStore(dir);
      await secureStoreFiles(dir);
      return new SqliteJobStore(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Runs `PRAGMA quick_check`; rejects unless it answers the single row "ok". */
  ping(): Promise<void> {
    return settle(() => {
      const rows = this.db.all("PRAGMA quick_check");
      if (rows.length !== 1 || Object.values(rows[0])[0] !== "ok") {
        throw new Error(`the store failed its integrity check (${rows.length} problems)`);
      }
    });
  }

  close(): Promise<void> {
    return settle(() => this.db.close());
  }
}
