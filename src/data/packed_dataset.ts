/**
 * A dataset in a few flat arrays, for a worker to post back: cloning a million small columns one
 * by one would block the receiving thread as long as the parse itself, while a few typed arrays
 * are transferred at no cost. {@linkcode unpackDataset} rebuilds the columns as views of them.
 *
 * @module
 */
import type { Column, Dataset } from "./dataset.ts";

/**
 * Numeric columns' values and categorical columns' codes one column after another, every level
 * in one list (`levelEnds[k]` ends the k-th categorical column's levels).
 */
export interface PackedDataset {
  readonly source: string;
  readonly n: number;
  readonly names: readonly string[];
  /** 1 for a numeric column, 0 for a categorical one. */
  readonly numeric: Uint8Array;
  readonly values: Float64Array;
  readonly codes: Int32Array;
  readonly levels: readonly string[];
  readonly levelEnds: Int32Array;
}

/** Packs a dataset into a {@linkcode PackedDataset}. */
export function packDataset(data: Dataset): PackedDataset {
  const columns = data.names.map((name) => data.columns.get(name)!);
  const numeric = Uint8Array.from(columns, (column) => column.kind === "numeric" ? 1 : 0);
  const count = numeric.reduce((sum, flag) => sum + flag, 0);
  const values = new Float64Array(count * data.n);
  const codes = new Int32Array((columns.length - count) * data.n);
  const levelEnds = new Int32Array(columns.length - count);
  const levels: string[] = [];
  let v = 0;
  let c = 0;
  for (const column of columns) {
    if (column.kind === "numeric") {
      values.set(column.values, v++ * data.n);
    } else {
      codes.set(column.codes, c * data.n);
      for (const level of column.levels) levels.push(level);
      levelEnds[c++] = levels.length;
    }
  }
  return {
    source: data.source,
    n: data.n,
    names: data.names,
    numeric,
    values,
    codes,
    levels,
    levelEnds,
  };
}

/** The buffers of a packed dataset, to transfer with `postMessage`. */
export function packedBuffers(packed: PackedDataset): ArrayBuffer[] {
  return [packed.values, packed.codes, packed.levelEnds, packed.numeric].map((array) =>
    array.buffer as ArrayBuffer
  );
}

/** Columns rebuilt between two yields to the event loop. */
const UNPACK_SLICE = 1 << 13;

/**
 * Rebuilds the dataset of {@linkcode packDataset} (its columns are views of the packed arrays),
 * yielding to the event loop every {@linkcode UNPACK_SLICE} columns.
 */
export async function unpackDataset(packed: PackedDataset): Promise<Dataset> {
  const { n, names, numeric, values, codes, levels, levelEnds } = packed;
  const columns = new Map<string, Column>();
  let v = 0;
  let c = 0;
  for (let j = 0; j < names.length; j++) {
    if (j > 0 && j % UNPACK_SLICE === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    if (numeric[j] === 1) {
      columns.set(names[j], { kind: "numeric", values: values.subarray(v * n, ++v * n) });
    } else {
      const start = c === 0 ? 0 : levelEnds[c - 1];
      columns.set(names[j], {
        kind: "categorical",
        codes: codes.subarray(c * n, (c + 1) * n),
        levels: levels.slice(start, levelEnds[c++]),
      });
    }
  }
  return { source: packed.source, n, names, columns };
}
