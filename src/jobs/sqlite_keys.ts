/**
 * The API keys of the embedded store, by the SHA-256 of their secret (the first layer of
 * `SqliteJobStore`, over the connection every layer shares).
 *
 * @module
 */
import { API_KEY_COLUMNS, apiKeyOf, apiKeyRow } from "./key_row.ts";
import { now, type Row, settle, type SqliteDb } from "./sqlite_schema.ts";
import type { ApiKey } from "./store.ts";

/** The keys part of the store. */
export class SqliteKeys {
  /** @param db The store's connection. */
  constructor(protected readonly db: SqliteDb) {}

  createKey(key: ApiKey, hash: string): Promise<void> {
    return settle(() => {
      const values = apiKeyRow(key, hash, key.scopes.join(","));
      const places = values.map(() => "?").join(", ");
      this.db.run(`INSERT INTO api_keys (${API_KEY_COLUMNS}) VALUES (${places})`, ...values);
    });
  }

  findKey(hash: string): Promise<ApiKey | null> {
    return settle(() => {
      const row = this.db.get("SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL", hash);
      return row === undefined ? null : keyOf(row);
    });
  }

  listKeys(): Promise<ApiKey[]> {
    return settle(() => this.db.all("SELECT * FROM api_keys ORDER BY created_at").map(keyOf));
  }

  revokeKey(id: string): Promise<boolean> {
    return settle(() => {
      const changes = this.db.run(
        "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
        now(),
        id,
      );
      return changes === 1;
    });
  }
}

/** The key a SQLite `api_keys` row holds (its scopes comma-separated). */
function keyOf(row: Row): ApiKey {
  return apiKeyOf(row, String(row.scopes).split(",").filter((s) => s !== ""), String);
}
