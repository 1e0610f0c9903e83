/**
 * The one place that opens the service's store from its settings, for the server, the function
 * files, the workers and the keys command alike: PostgreSQL when a store URL is given
 * (PPSYNTH_STORE_URL=postgres://…), else the embedded SQLite store in the data directory.
 *
 * @module
 */
import type { PgDbOptions } from "./postgres_schema.ts";
import { PostgresJobStore } from "./postgres_store.ts";
import { SqliteJobStore } from "./sqlite_store.ts";
import type { JobStore } from "./store.ts";

/** Where the store is: a database URL, or (without one) the data directory. */
export interface StoreLocation {
  /** A postgres:// URL (PPSYNTH_STORE_URL), or undefined/null for the embedded store. */
  readonly storeUrl?: string | null;
  /** The embedded store's directory (PPSYNTH_DATA_DIR); unused with a URL. */
  readonly dataDir: string;
}

/**
 * Whether a text is a PostgreSQL URL (`postgres://` or `postgresql://`).
 *
 * @param url The text.
 * @returns True for a URL of either scheme.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isStoreUrl } from "./open_store.ts";
 * assert.equal(isStoreUrl("postgres://ppsynth@db:5432/ppsynth"), true);
 * assert.equal(isStoreUrl("mysql://db/ppsynth"), false);
 * ```
 */
export function isStoreUrl(url: string): boolean {
  try {
    return ["postgres:", "postgresql:"].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

/**
 * Opens the store: {@linkcode PostgresJobStore} (connected, its schema migrated) when
 * `location.storeUrl` is set, else {@linkcode SqliteJobStore} in `location.dataDir`. Errors never
 * repeat the URL, which may hold a password.
 *
 * @param location The URL or the data directory.
 * @param options The PostgreSQL pool's size and connection timeout.
 * @returns The store.
 */
export async function openStore(
  location: StoreLocation,
  options: PgDbOptions = {},
): Promise<JobStore> {
  const url = location.storeUrl;
  if (url === undefined || url === null || url === "") {
    return await SqliteJobStore.open(location.dataDir);
  }
  if (!isStoreUrl(url)) {
    throw new RangeError("Invalid PPSYNTH_STORE_URL: must be a postgres:// or postgresql:// URL");
  }
  return await PostgresJobStore.open(url, options);
}
