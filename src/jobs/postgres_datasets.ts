/**
 * The registered datasets of the PostgreSQL store: the confidential CSV, its budget ε_total and
 * the owner's release policy (the second layer of `PostgresJobStore`).
 *
 * @module
 */
import { DATASET_COLUMNS, datasetInfoOf, datasetRow, registeredInfo } from "./dataset_row.ts";
import { checkBudget } from "./ledger.ts";
import type { DatasetPolicy } from "./release_policy.ts";
import { PostgresKeys } from "./postgres_keys.ts";
import { isoTime, now, row, run } from "./postgres_schema.ts";
import type { DatasetInfo, NewDataset } from "./store.ts";

/** The keys and datasets parts of the store. */
export class PostgresDatasets extends PostgresKeys {
  async createDataset(dataset: NewDataset): Promise<DatasetInfo> {
    checkBudget(dataset.epsilonTotal);
    const createdAt = now();
    const values = datasetRow(dataset, createdAt);
    const places = values.map((_, k) => `$${k + 1}`).join(", ");
    await run(
      this.db.sql,
      `INSERT INTO datasets (${DATASET_COLUMNS}) VALUES (${places})`,
      ...values,
    );
    return registeredInfo(dataset, createdAt);
  }

  async dataset(id: string, tenant: string): Promise<DatasetInfo | null> {
    const found = await row(
      this.db.sql,
      `SELECT id, name, n, columns, epsilon_total, created_at, policy FROM datasets
       WHERE id = $1 AND tenant = $2`,
      id,
      tenant,
    );
    return found === undefined ? null : datasetInfoOf(
      found,
      isoTime,
      (columns) => columns as string[],
      (policy) => policy as DatasetPolicy,
    );
  }

  async datasetCsv(id: string): Promise<string | null> {
    const found = await row(this.db.sql, "SELECT csv FROM datasets WHERE id = $1", id);
    return found === undefined ? null : String(found.csv);
  }
}
