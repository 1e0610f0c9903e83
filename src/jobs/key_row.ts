/**
 * An API key's row as both stores write and read it (SQLite and PostgreSQL bind the same values
 * in the same order; only their placeholders, and how they keep scopes and times, differ).
 *
 * @module
 */
import type { ApiKey, Scope } from "./store.ts";

/** A result row as a store returns it. */
type StoreRow = Readonly<Record<string, unknown>>;

/** A store's time value as ISO 8601. */
type TimeOf = (value: unknown) => string;

/** The columns of a new key's row, in the order of {@linkcode apiKeyRow}. */
export const API_KEY_COLUMNS = "id, hash, name, tenant, scopes, created_at, revoked_at";

/**
 * A key's values in the order of {@linkcode API_KEY_COLUMNS}.
 *
 * @param key The key.
 * @param hash The SHA-256 of its secret.
 * @param scopes Its scopes as the store keeps them.
 * @returns The 7 values.
 */
export function apiKeyRow<S>(key: ApiKey, hash: string, scopes: S): (string | null | S)[] {
  return [key.id, hash, key.name, key.tenant, scopes, key.createdAt, key.revokedAt];
}

/**
 * The key an `api_keys` row holds.
 *
 * @param row The row.
 * @param scopes Its scopes, as the store read them.
 * @param timeOf A store's time value as ISO 8601.
 * @returns The key.
 */
export function apiKeyOf(row: StoreRow, scopes: readonly string[], timeOf: TimeOf): ApiKey {
  return {
    id: String(row.id),
    name: String(row.name),
    tenant: String(row.tenant),
    scopes: [...scopes] as Scope[],
    createdAt: timeOf(row.created_at),
    revokedAt: row.revoked_at === null || row.revoked_at === undefined
      ? null
      : timeOf(row.revoked_at),
  };
}
