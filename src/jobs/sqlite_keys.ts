/**
 * The API keys of the embedded store, by the SHA-256 of their secret (the first layer of
 * `SqliteJobStore`, over the connection every layer shares).
 *
 * @module
 */
import { now, type Row, settle, type SqliteDb } from "./sqlite_schema.ts";
import type { ApiKey, Scope } from "./store.ts";

/** The keys part of the store. */
export class SqliteKeys {
  /** @param db The store's connection. */
  constructor(protected readonly db: SqliteDb) {}

  createKey(key: ApiKey, hash: string): Promise<void> {
    return settle(() => {
      this.db.run(
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
