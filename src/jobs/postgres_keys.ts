/**
 * The API keys of the PostgreSQL store, by the SHA-256 of their secret (the first layer of
 * `PostgresJobStore`, over the pool every layer shares).
 *
 * @module
 */
import { API_KEY_COLUMNS, apiKeyOf, apiKeyRow } from "./key_row.ts";
import { isoTime, now, type PgDb, type Row, rows, run } from "./postgres_schema.ts";
import type { ApiKey } from "./store.ts";

/** The keys part of the store. */
export class PostgresKeys {
  /** @param db The store's pool. */
  constructor(protected readonly db: PgDb) {}

  async createKey(key: ApiKey, hash: string): Promise<void> {
    const values = apiKeyRow(key, hash, [...key.scopes]);
    const places = values.map((_, k) => `$${k + 1}`).join(", ");
    await run(
      this.db.sql,
      `INSERT INTO api_keys (${API_KEY_COLUMNS}) VALUES (${places})`,
      ...values,
    );
  }

  async findKey(hash: string): Promise<ApiKey | null> {
    const [found] = await rows(
      this.db.sql,
      "SELECT * FROM api_keys WHERE hash = $1 AND revoked_at IS NULL",
      hash,
    );
    return found === undefined ? null : keyOf(found);
  }

  async listKeys(): Promise<ApiKey[]> {
    return (await rows(this.db.sql, "SELECT * FROM api_keys ORDER BY created_at, id")).map(keyOf);
  }

  async revokeKey(id: string): Promise<boolean> {
    const changes = await run(
      this.db.sql,
      "UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL",
      now(),
      id,
    );
    return changes === 1;
  }
}

/** The key a PostgreSQL `api_keys` row holds. */
function keyOf(row: Row): ApiKey {
  return apiKeyOf(row, row.scopes as string[], isoTime);
}
