/**
 * The API keys of the PostgreSQL store, by the SHA-256 of their secret (the first layer of
 * `PostgresJobStore`, over the pool every layer shares).
 *
 * @module
 */
import { isoTime, isoTimeOrNull, now, type PgDb, type Row, rows, run } from "./postgres_schema.ts";
import type { ApiKey, Scope } from "./store.ts";

/** The keys part of the store. */
export class PostgresKeys {
  /** @param db The store's pool. */
  constructor(protected readonly db: PgDb) {}

  async createKey(key: ApiKey, hash: string): Promise<void> {
    await run(
      this.db.sql,
      `INSERT INTO api_keys (id, hash, name, tenant, scopes, created_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      key.id,
      hash,
      key.name,
      key.tenant,
      [...key.scopes],
      key.createdAt,
      key.revokedAt,
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

function keyOf(row: Row): ApiKey {
  return {
    id: String(row.id),
    name: String(row.name),
    tenant: String(row.tenant),
    scopes: [...(row.scopes as string[])] as Scope[],
    createdAt: isoTime(row.created_at),
    revokedAt: isoTimeOrNull(row.revoked_at),
  };
}
