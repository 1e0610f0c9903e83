/**
 * SDNist v2.3.0's discretisation of a confidential ("target") file and a synthetic
 * ("deidentified") file before its k-marginal score, read from usnistgov/SDNist
 * `sdnist/report/dataset/binning.py` (commit 1a62b7e4a3fcc687bfd24b6ceb7d0f21ce2304e6) and
 * `sdnist/report/dataset/__init__.py` / `transform.py` (the version that CRC bundle 1.0 was
 * scored with):
 *
 * - **percentile** (AGEP, POVPIP, PINCP, PWGTP, WGTP there): the confidential cells other than
 *   the not-applicable marker and the column's own-bin codes (POVPIP's 501) are truncated to
 *   integers and ranked with ties averaged (pandas `rank(pct=True)`, r/n); a cell's bin is
 *   ⌊20·r/n⌋, or 19 when r/n = 1. Each bin's edge is the largest confidential value in it. A
 *   synthetic value v (truncated) goes, walking the confidential bins b in ascending order with
 *   `prev` the edge of the bin before (0 before the first), to b = 0 when v ≤ edge₀, to b when
 *   prev < v ≤ edge_b, and to the last bin when v > prev. As in SDNist, when the first bin is not
 *   0 a synthetic v ≤ 0 matches no bin and keeps its own value as its cell. An own-bin code is
 *   the bin numbered by its value (501), so it sorts last.
 * - **log-density** (DENSITY): cells below 0 become 0, above max + 500 become max + 400 (max from
 *   the codebook), then right-closed intervals on the edges [0, 150] + 10^(1 + i·s), i = 8..20,
 *   s = (log₁₀(max + 500) − 1)/20; a value outside every interval has no cell (pandas drops it).
 * - **category**: every other column; integer-like cells are read as integers ("1.0" is "1").
 *
 * The not-applicable marker is its own bin ("N") in every kind.
 *
 * @module
 */

/** How one column is discretised. */
export type ColumnBinning =
  | { readonly kind: "category" }
  | {
    readonly kind: "percentile";
    readonly ownBins?: readonly string[];
    /**
     * Where a synthetic value at or below the lowest bin's edge goes when that bin is not bin 0
     * (a mass of ties at the bottom, as a count's zeros): "sdnist" (default) keeps SDNist's rule,
     * no bin, the value is its own cell; "lowest" puts it in the lowest bin, as its confidential
     * ties are (the owner's measures of every numeric column, `file_utility.ts`).
     */
    readonly belowLowest?: "sdnist" | "lowest";
  }
  | { readonly kind: "log-density"; readonly max: number };

/** A binned column: one cell label per record, null where the record has no cell. */
export type BinnedColumn = (string | null)[];

/** Options of {@linkcode binFilePair}. */
export interface BinFilePairOptions {
  /** The not-applicable marker (default "N"); it is its own bin. */
  readonly na?: string;
}

/**
 * Bins the named columns of a confidential and a synthetic file the way SDNist v2.3.0 does,
 * each numeric column by the confidential file's percentiles.
 *
 * @param confidential Column → cells of the confidential file.
 * @param synthetic Column → cells of the synthetic file.
 * @param binnings Column → its binning; the columns to bin (a column not named is not binned).
 * @param options The not-applicable marker.
 * @returns The binned columns of each file.
 *
 * @example A percentile column and a category
 * ```ts
 * import assert from "node:assert/strict";
 * import { binFilePair } from "./sdnist_binning.ts";
 * const conf = new Map([["AGE", ["1", "2", "N"]], ["SEX", ["1", "2.0", "1"]]]);
 * const syn = new Map([["AGE", ["5", "N"]], ["SEX", ["2", "1"]]]);
 * const binned = binFilePair(conf, syn, new Map([
 *   ["AGE", { kind: "percentile" }],
 *   ["SEX", { kind: "category" }],
 * ]));
 * assert.deepEqual(binned.confidential.get("AGE"), ["10", "19", "N"]);
 * assert.deepEqual(binned.synthetic.get("AGE"), ["19", "N"]);
 * assert.deepEqual(binned.confidential.get("SEX"), ["1", "2", "1"]);
 * ```
 */
export function binFilePair(
  confidential: ReadonlyMap<string, readonly string[]>,
  synthetic: ReadonlyMap<string, readonly string[]>,
  binnings: ReadonlyMap<string, ColumnBinning>,
  options: BinFilePairOptions = {},
): { confidential: Map<string, BinnedColumn>; synthetic: Map<string, BinnedColumn> } {
  const na = options.na ?? "N";
  const conf = new Map<string, BinnedColumn>();
  const syn = new Map<string, BinnedColumn>();
  for (const [column, binning] of binnings) {
    const c = columnOf(confidential, column, "confidential");
    const s = columnOf(synthetic, column, "synthetic");
    if (binning.kind === "percentile") {
      const binned = percentileBins(c, s, {
        na,
        ownBins: binning.ownBins ?? [],
        column,
        belowLowest: binning.belowLowest,
      });
      conf.set(column, binned.confidential);
      syn.set(column, binned.synthetic);
    } else if (binning.kind === "log-density") {
      conf.set(column, densityBins(c, binning.max, { na, column }));
      syn.set(column, densityBins(s, binning.max, { na, column }));
    } else {
      conf.set(column, c.map((cell) => categoryLabel(cell, na)));
      syn.set(column, s.map((cell) => categoryLabel(cell, na)));
    }
  }
  return { confidential: conf, synthetic: syn };
}

/**
 * SDNist's 20 percentile bins of a confidential column and the synthetic column binned by the
 * same edges (see the module doc for the rule, ties and the not-applicable bin).
 *
 * @param confidential The confidential cells.
 * @param synthetic The synthetic cells.
 * @param options The not-applicable marker, the own-bin codes (numeric strings), the column's
 *   name for error messages, and where a synthetic value below the lowest bin goes (see
 *   `ColumnBinning`).
 * @returns The bin labels ("0".."19", an own-bin code, "N", or an unmatched synthetic value).
 *
 * @example Ties share the average rank: 1, 3, 3, 3, 10 have r/n = 0.2, 0.6, 0.6, 0.6, 1
 * ```ts
 * import assert from "node:assert/strict";
 * import { percentileBins } from "./sdnist_binning.ts";
 * const { confidential, synthetic } = percentileBins(["1", "3", "3", "3", "10"], ["2", "11"]);
 * assert.deepEqual(confidential, ["4", "12", "12", "12", "19"]);
 * assert.deepEqual(synthetic, ["12", "19"]);
 * // Zeros tied at the bottom rank into bin 8: SDNist leaves a synthetic 0 without a bin.
 * const zeros = ["0", "0", "0", "1", "2"];
 * assert.deepEqual(percentileBins(zeros, ["0"]).synthetic, ["0"]);
 * assert.deepEqual(percentileBins(zeros, ["0"], { belowLowest: "lowest" }).synthetic, ["8"]);
 * ```
 */
export function percentileBins(
  confidential: readonly string[],
  synthetic: readonly string[],
  options: {
    na?: string;
    ownBins?: readonly string[];
    column?: string;
    belowLowest?: "sdnist" | "lowest";
  } = {},
): { confidential: string[]; synthetic: string[] } {
  const na = options.na ?? "N";
  const column = options.column ?? "the column";
  const own = new Set(options.ownBins ?? []);
  for (const code of own) integerOf(code, column, -1);
  const confLabels = new Array<string>(confidential.length);
  const ranked: { row: number; value: number }[] = [];
  confidential.forEach((cell, row) => {
    if (cell === na) confLabels[row] = na;
    else if (own.has(cell)) confLabels[row] = String(integerOf(cell, column, row));
    else ranked.push({ row, value: integerOf(cell, column, row) });
  });
  ranked.sort((a, b) => a.value - b.value);
  const n = ranked.length;
  // Each bin's largest confidential value (its edge), by bin number.
  const edges = new Map<number, number>();
  for (let i = 0; i < n;) {
    let j = i;
    while (j < n && ranked[j].value === ranked[i].value) j++;
    const pct = ((i + 1 + j) / 2) / n;
    const bin = pct < 1 ? Math.floor(20 * pct) : 19;
    for (let k = i; k < j; k++) confLabels[ranked[k].row] = String(bin);
    edges.set(bin, Math.max(edges.get(bin) ?? -Infinity, ranked[i].value));
    i = j;
  }
  confidential.forEach((cell, row) => {
    if (own.has(cell)) {
      const bin = integerOf(cell, column, row);
      edges.set(bin, Math.max(edges.get(bin) ?? -Infinity, bin));
    }
  });
  const bins = [...edges.keys()].sort((a, b) => a - b);
  const last = bins[bins.length - 1];
  const synLabels = synthetic.map((cell, row) => {
    if (cell === na) return na;
    const v = integerOf(cell, column, row);
    if (options.belowLowest === "lowest" && bins.length > 0 && v <= edges.get(bins[0])!) {
      return String(bins[0]);
    }
    let prev = 0;
    for (const b of bins) {
      const edge = edges.get(b)!;
      if (b === 0) {
        if (v <= edge) return String(b);
      } else if (b !== last) {
        if (v > prev && v <= edge) return String(b);
      } else if (v > prev) {
        return String(b);
      }
      prev = edge;
    }
    return String(v);
  });
  return { confidential: confLabels, synthetic: synLabels };
}

/**
 * SDNist's log-scale bins of a population density (see the module doc).
 *
 * @param cells The density cells.
 * @param max The codebook's largest density.
 * @param options The not-applicable marker and the column's name for error messages.
 * @returns Bin labels "0", "1", …, "N", or null for a value outside every bin.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { densityBins } from "./sdnist_binning.ts";
 * assert.deepEqual(densityBins(["100", "-5"], 52864.7), ["0", null]);
 * ```
 */
export function densityBins(
  cells: readonly string[],
  max: number,
  options: { na?: string; column?: string } = {},
): (string | null)[] {
  const na = options.na ?? "N";
  const column = options.column ?? "the column";
  if (!Number.isFinite(max) || max <= 0) {
    throw new RangeError(`Invalid density maximum for ${column}: ${max}`);
  }
  const top = max + 500;
  const start = 1;
  const stop = Math.log(top) / Math.log(10);
  const step = (stop - start) / 20;
  const edges = [0, 150];
  for (let i = 8; i <= 20; i++) edges.push(10 ** (i === 20 ? stop : start + i * step));
  return cells.map((cell, row) => {
    if (cell === na) return na;
    let v = Number(cell);
    if (cell.trim() === "" || !Number.isFinite(v)) {
      throw new RangeError(
        `Invalid cell in ${column} at row ${row + 1}: "${cell}" is not a number`,
      );
    }
    if (v < 0) v = 0;
    if (v > top) v = top - 100;
    for (let b = 0; b + 1 < edges.length; b++) {
      if (v > edges[b] && v <= edges[b + 1]) return String(b);
    }
    return null;
  });
}

function categoryLabel(cell: string, na: string): string {
  if (cell === na) return na;
  return /^-?\d+(\.\d*)?$/.test(cell) ? String(Math.trunc(Number(cell))) : cell;
}

function integerOf(cell: string, column: string, row: number): number {
  const v = Number(cell);
  if (cell.trim() === "" || !Number.isFinite(v)) {
    const where = row < 0 ? "an own-bin code" : `row ${row + 1}`;
    throw new RangeError(`Invalid cell in ${column} at ${where}: "${cell}" is not a number`);
  }
  return Math.trunc(v);
}

function columnOf(
  file: ReadonlyMap<string, readonly string[]>,
  column: string,
  which: string,
): readonly string[] {
  const cells = file.get(column);
  if (cells === undefined) throw new RangeError(`The ${which} file has no column ${column}`);
  return cells;
}
