/**
 * A registered dataset's row as both stores write it (SQLite and PostgreSQL bind the same values
 * in the same order; only their placeholders differ), and the info a registration returns.
 *
 * @module
 */
import type { DatasetPolicy } from "./release_policy.ts";
import type { DatasetInfo, NewDataset } from "./store.ts";

/** The columns of a new dataset's row, in the order of {@linkcode datasetRow}. */
export const DATASET_COLUMNS =
  "id, name, csv, n, columns, epsilon_total, owner_key_id, tenant, policy, created_at";

/**
 * A {@linkcode NewDataset}'s values in the order of {@linkcode DATASET_COLUMNS} (the columns and
 * the policy as JSON text).
 *
 * @param dataset The dataset.
 * @param createdAt Its registration time (ISO 8601).
 * @returns The 10 values.
 */
export function datasetRow(dataset: NewDataset, createdAt: string): (string | number)[] {
  return [
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
  ];
}

/** What registering `dataset` at `createdAt` returns (no data, no owner). */
export function registeredInfo(dataset: NewDataset, createdAt: string): DatasetInfo {
  const { id, name, n, columns, epsilonTotal, policy } = dataset;
  return { id, name, n, columns: [...columns], epsilonTotal, createdAt, policy };
}

/**
 * A dataset's info from its `id, name, n, columns, epsilon_total, created_at, policy`, given the store's readings of its
 * JSON columns and times.
 *
 * @param row The row.
 * @param timeOf A store's time value as ISO 8601.
 * @param columnsOf A store's reading of the `columns` column.
 * @param policyOf A store's reading of the `policy` column.
 * @returns The info (no data, no owner).
 */
export function datasetInfoOf(
  row: Readonly<Record<string, unknown>>,
  timeOf: (value: unknown) => string,
  columnsOf: (column: unknown) => string[],
  policyOf: (column: unknown) => DatasetPolicy,
): DatasetInfo {
  return {
    id: String(row.id),
    name: String(row.name),
    n: Number(row.n),
    columns: columnsOf(row.columns),
    epsilonTotal: Number(row.epsilon_total),
    createdAt: timeOf(row.created_at),
    policy: policyOf(row.policy),
  };
}
