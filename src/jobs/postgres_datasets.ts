/**
 * The registered datasets of the PostgreSQL store: the confidential CSV, its budget ε_total and
 * the owner's release policy (the second layer of `PostgresJobStore`).
 *
 * @module
 */
import { checkBudget } from "./ledger.ts";
import type { ReleasePolicy } from "./release_policy.ts";
import { PostgresKeys } from "./postgres_keys.ts";
import { isoTime, now, row, run } from "./postgres_schema.ts";
import type { DatasetInfo, NewDataset } from "./store.ts";

/** The keys and datasets parts of the store. */
export class PostgresDatasets extends PostgresKeys {
  async createDataset(dataset: NewDataset): Promise<DatasetInfo> {
    checkBudget(dataset.epsilonTotal);
    const createdAt = now();
    await run(
      this.db.sql,
      `INSERT INTO datasets (id, name, csv, n, columns, epsilon_total, owner_key_id, tenant,
       policy, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      dataset.id,
      dataset.name,
      dataset.csv,
      dataset.n,
      JSON.stringify(dataset.columns),
      dataset.epsilonTotal,
      dataset.ownerKeyId,
      dataset.tenant,
      JSON.stringify(dataset.policy),
      createdAt,
    );
    const { id, name, n, columns, epsilonTotal, policy } = dataset;
    return { id, name, n, columns: [...columns], epsilonTotal, createdAt, policy };
  }

  async dataset(id: string, tenant: string): Promise<DatasetInfo | null> {
    const found = await row(
      this.db.sql,
      `SELECT id, name, n, columns, epsilon_total, created_at, policy FROM datasets
       WHERE id = $1 AND tenant = $2`,
      id,
      tenant,
    );
    if (found === undefined) return null;
    return {
      id: String(found.id),
      name: String(found.name),
      n: Number(found.n),
      columns: found.columns as string[],
      epsilonTotal: Number(found.epsilon_total),
      createdAt: isoTime(found.created_at),
      policy: found.policy as ReleasePolicy,
    };
  }

  async datasetCsv(id: string): Promise<string | null> {
    const found = await row(this.db.sql, "SELECT csv FROM datasets WHERE id = $1", id);
    return found === undefined ? null : String(found.csv);
  }
}
