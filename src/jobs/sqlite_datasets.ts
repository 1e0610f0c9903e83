/**
 * The registered datasets of the embedded store: the confidential CSV, its budget ε_total and
 * the owner's release policy (the second layer of `SqliteJobStore`).
 *
 * @module
 */
import { DATASET_COLUMNS, datasetInfoOf, datasetRow, registeredInfo } from "./dataset_row.ts";
import { checkBudget } from "./ledger.ts";
import type { DatasetPolicy } from "./release_policy.ts";
import { SqliteKeys } from "./sqlite_keys.ts";
import { now, settle } from "./sqlite_schema.ts";
import type { DatasetInfo, NewDataset } from "./store.ts";

/** The policy of a dataset registered before policies existed: every column confidential. */
export const LEGACY_POLICY: DatasetPolicy = {
  publicColumns: [],
  bounds: {},
  stratumSizes: {},
  levels: {},
  sizePublic: true,
  neighbours: "add-remove",
};

/** A dataset's stored policy column as a policy ({@linkcode LEGACY_POLICY} when null). */
export function policyOf(column: unknown): DatasetPolicy {
  return column === null ? LEGACY_POLICY : JSON.parse(String(column));
}

/** The keys and datasets parts of the store. */
export class SqliteDatasets extends SqliteKeys {
  createDataset(dataset: NewDataset): Promise<DatasetInfo> {
    return settle(() => {
      checkBudget(dataset.epsilonTotal);
      const createdAt = now();
      const values = datasetRow(dataset, createdAt);
      const places = values.map(() => "?").join(", ");
      this.db.run(`INSERT INTO datasets (${DATASET_COLUMNS}) VALUES (${places})`, ...values);
      return registeredInfo(dataset, createdAt);
    });
  }

  dataset(id: string, tenant: string): Promise<DatasetInfo | null> {
    return settle(() => {
      const row = this.db.get(
        `SELECT id, name, n, columns, epsilon_total, created_at, policy FROM datasets
       WHERE id = ? AND tenant = ?`,
        id,
        tenant,
      );
      return row === undefined
        ? null
        : datasetInfoOf(row, String, (columns) => JSON.parse(String(columns)), policyOf);
    });
  }

  datasetCsv(id: string): Promise<string | null> {
    return settle(() => {
      const row = this.db.get("SELECT csv FROM datasets WHERE id = ?", id);
      return row === undefined ? null : String(row.csv);
    });
  }
}
