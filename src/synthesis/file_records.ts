/**
 * A whole file's synthetic records from one posterior draw θ of the latent class model (SPEC §13):
 * n records drawn i.i.d. from p(x | θ) = Σ_k π_k f_k(x), decoded through the declared schema, and
 * held to the schema's consistency rules by rejection: a record that breaks a rule is redrawn from
 * the same θ, up to a fixed number of rounds; what still breaks one after the last round is kept
 * and counted. The records are then the draws of p(x | θ) truncated to the rules' set, a function
 * of θ and public rules only (post-processing: no privacy cost), and their order is the draw
 * order, which depends on no confidential record. A weight column with a declared public total
 * is then scaled to it (w*_i·T/Σ w*, on the column's resolution and within its bounds).
 *
 * @module
 */
import { columnUnit, type FileColumn, type FileSchema } from "../data/file_schema.ts";
import { decodeFile, formatStep } from "../data/file_encoding.ts";
import { recordSatisfiesRules } from "../data/file_rules.ts";
import type { EncodedFile } from "../data/file_encoding.ts";
import type { Rng } from "../random/rng.ts";

/**
 * A whole-file model's record generator: n records from p(x | θ), as codes; record r from
 * confidential record rows[r]'s given columns where the model has any.
 */
export interface FileRecordModel {
  simulate(theta: Float64Array, n: number, rng: Rng, rows: readonly number[]): EncodedFile;
}

/** Rounds of redrawing the records that break a rule (each round redraws only those). */
export const RULE_ROUNDS = 50;

/** A synthetic file and how many of its records still break a rule. */
export interface FileRecords {
  /** Column → cells, in the schema's column order, as the input writes them. */
  readonly cells: Map<string, string[]>;
  /** Records breaking at least one rule after the last round. */
  readonly unrepaired: number;
  /** Records drawn in all (n plus every redraw). */
  readonly drawn: number;
}

/**
 * Draws n synthetic records from θ, held to the schema's rules by rejection. With given columns
 * (`--x`), record r keeps confidential record r's given cells (a redrawn record too), and a given
 * weight column is released as it is, not scaled.
 *
 * @param model The whole-file model (latent class or network) of the encoded file.
 * @param theta One posterior draw θ.
 * @param n The number of records (the public n).
 * @param schema The declared schema (its rules, bins and formats).
 * @param rng The dataset's stream.
 * @param given The given columns' confidential cells, n each (default none).
 * @param rounds Rounds of redrawing (default {@linkcode RULE_ROUNDS}).
 * @returns The records and the count still breaking a rule.
 */
export function simulateFileRecords(
  model: FileRecordModel,
  theta: Float64Array,
  n: number,
  schema: FileSchema,
  rng: Rng,
  given: ReadonlyMap<string, readonly string[]> = new Map(),
  rounds = RULE_ROUNDS,
): FileRecords {
  const draw = (rows: readonly number[]) => {
    const drawn = decodeFile(model.simulate(theta, rows.length, rng, rows), schema, rng);
    for (const [name, source] of given) drawn.set(name, rows.map((row) => source[row]));
    return drawn;
  };
  const cells = draw(Array.from({ length: n }, (_, i) => i));
  let drawn = n;
  const hasRules = (schema.rules ?? []).length > 0;
  let broken = hasRules ? brokenRows(cells, n, schema) : [];
  for (let round = 0; round < rounds && broken.length > 0; round++) {
    const redrawn = draw(broken);
    drawn += broken.length;
    const still: number[] = [];
    broken.forEach((row, r) => {
      if (recordSatisfiesRules(redrawn, r, schema)) {
        for (const [name, column] of cells) column[row] = redrawn.get(name)![r];
      } else {
        still.push(row);
      }
    });
    broken = still;
  }
  for (const column of schema.columns) {
    if (column.kind === "weight" && column.total !== undefined && !given.has(column.name)) {
      cells.set(column.name, scaledToTotal(cells.get(column.name)!, column));
    }
  }
  return { cells, unrepaired: broken.length, drawn };
}

/**
 * Weight cells scaled to the column's declared total T within its declared bounds [lo, hi]: the
 * weights w_i·c with c chosen so that Σ clamp(w_i·c, lo, hi) = T (found by repeating
 * c ← c·(T − Σ clamped)/Σ free over the weights not clamped, which stops when the clamped set
 * stops changing), then rounded to the column's resolution; the total holds to that rounding
 * unless T lies outside [n·lo, n·hi].
 */
function scaledToTotal(cells: readonly string[], column: FileColumn): string[] {
  const marker = column.notApplicable;
  const values = cells.map((cell) => (cell === marker ? NaN : Number(cell)));
  const target = column.total!;
  const [lo, hi] = column.bounds!;
  let factor = 1;
  for (let round = 0; round < 100; round++) {
    let clamped = 0;
    let free = 0;
    for (const w of values) {
      if (Number.isNaN(w)) continue;
      const scaled = w * factor;
      if (scaled <= lo) clamped += lo;
      else if (scaled >= hi) clamped += hi;
      else free += scaled;
    }
    if (!(free > 0)) break;
    const next = factor * (target - clamped) / free;
    if (!(next > 0) || Math.abs(next - factor) <= 1e-12 * factor) break;
    factor = next;
  }
  const unit = columnUnit(column);
  return values.map((w, i) => {
    if (Number.isNaN(w)) return cells[i];
    const scaled = Math.min(hi, Math.max(lo, w * factor));
    return formatStep(Math.round(scaled / unit), column);
  });
}

/** The rows of `cells` that break a rule. */
function brokenRows(cells: Map<string, string[]>, n: number, schema: FileSchema): number[] {
  const rows: number[] = [];
  for (let i = 0; i < n; i++) if (!recordSatisfiesRules(cells, i, schema)) rows.push(i);
  return rows;
}
