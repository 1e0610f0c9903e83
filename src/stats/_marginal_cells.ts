/**
 * Shared by the marginal metrics: binned columns of two files coded as integers over their joint
 * levels, and a walk over the cells of a joint table with each file's density count/n.
 *
 * @module
 */
import type { BinnedColumn } from "./sdnist_binning.ts";

/** Columns of two files coded 0..L−1 over the levels they share; −1 where a record has no cell. */
export interface CodedColumns {
  readonly confidential: Int32Array[];
  readonly synthetic: Int32Array[];
  /** Each column's levels, sorted; the code is the index. */
  readonly levels: string[][];
  readonly nConfidential: number;
  readonly nSynthetic: number;
}

/** Codes the named binned columns of both files (see {@linkcode CodedColumns}). */
export function codeColumns(
  confidential: ReadonlyMap<string, BinnedColumn>,
  synthetic: ReadonlyMap<string, BinnedColumn>,
  columns: readonly string[],
): CodedColumns {
  const conf: Int32Array[] = [];
  const syn: Int32Array[] = [];
  const levels: string[][] = [];
  let nConfidential = -1;
  let nSynthetic = -1;
  for (const column of columns) {
    const c = confidential.get(column);
    const s = synthetic.get(column);
    if (c === undefined) throw new RangeError(`The confidential file has no column ${column}`);
    if (s === undefined) throw new RangeError(`The synthetic file has no column ${column}`);
    if (nConfidential >= 0 && c.length !== nConfidential) {
      throw new RangeError(
        `Column ${column} of the confidential file has ${c.length} cells, not ${nConfidential}`,
      );
    }
    if (nSynthetic >= 0 && s.length !== nSynthetic) {
      throw new RangeError(
        `Column ${column} of the synthetic file has ${s.length} cells, not ${nSynthetic}`,
      );
    }
    nConfidential = c.length;
    nSynthetic = s.length;
    const set = new Set<string>();
    for (const v of c) if (v !== null) set.add(v);
    for (const v of s) if (v !== null) set.add(v);
    const sorted = [...set].sort();
    const index = new Map(sorted.map((v, i) => [v, i]));
    conf.push(Int32Array.from(c, (v) => (v === null ? -1 : index.get(v)!)));
    syn.push(Int32Array.from(s, (v) => (v === null ? -1 : index.get(v)!)));
    levels.push(sorted);
  }
  if (nConfidential === 0 || nSynthetic === 0) {
    throw new RangeError("Cannot compare marginals of an empty file");
  }
  return { confidential: conf, synthetic: syn, levels, nConfidential, nSynthetic };
}

const DENSE_LIMIT = 1 << 22;

/**
 * Visits every cell of the joint table of columns `which` that either file occupies, with the
 * cell's key (mixed radix, the first column most significant) and the densities t = count/n of
 * the confidential file and s = count/n of the synthetic one. Records with no cell in a column
 * count in n but in no cell (pandas' `groupby(...).size() / len(df)`).
 */
export function visitCells(
  coded: CodedColumns,
  which: readonly number[],
  visit: (key: number, t: number, s: number) => void,
): void {
  let size = 1;
  for (const j of which) size *= Math.max(1, coded.levels[j].length);
  if (size <= DENSE_LIMIT) {
    const t = new Float64Array(size);
    const s = new Float64Array(size);
    count(coded.confidential, which, coded, (key) => t[key]++);
    count(coded.synthetic, which, coded, (key) => s[key]++);
    for (let key = 0; key < size; key++) {
      if (t[key] !== 0 || s[key] !== 0) {
        visit(key, t[key] / coded.nConfidential, s[key] / coded.nSynthetic);
      }
    }
    return;
  }
  const t = new Map<number, number>();
  const s = new Map<number, number>();
  count(coded.confidential, which, coded, (key) => t.set(key, (t.get(key) ?? 0) + 1));
  count(coded.synthetic, which, coded, (key) => s.set(key, (s.get(key) ?? 0) + 1));
  for (const [key, ct] of t) {
    visit(key, ct / coded.nConfidential, (s.get(key) ?? 0) / coded.nSynthetic);
  }
  for (const [key, cs] of s) if (!t.has(key)) visit(key, 0, cs / coded.nSynthetic);
}

function count(
  columns: readonly Int32Array[],
  which: readonly number[],
  coded: CodedColumns,
  add: (key: number) => void,
): void {
  const n = columns[which[0]].length;
  rows: for (let i = 0; i < n; i++) {
    let key = 0;
    for (const j of which) {
      const code = columns[j][i];
      if (code < 0) continue rows;
      key = key * coded.levels[j].length + code;
    }
    add(key);
  }
}
