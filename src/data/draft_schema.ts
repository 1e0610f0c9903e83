/**
 * A first draft of a file's schema for its owner to review: levels, bounds and N/A markers from
 * a codebook where it gives them (NIST's CRC format: per column `values` with codes, `min` and
 * `max`, and an `N/A …` code), else read from the data. A level set or range read from the data
 * is marked `"source": "data"` and listed in the warnings: it comes from the confidential file
 * and must be replaced by public facts before a release.
 *
 * @module
 */
import { z } from "zod";
import { DataError } from "./data_error.ts";
import type { Dataset } from "./dataset.ts";
import { parseDecimal } from "./decimal.ts";
import {
  type ColumnSource,
  DEFAULT_BINS,
  type FileColumn,
  type FileSchema,
} from "./file_schema.ts";

/** A codebook: column → description and values (codes with labels, and `min`/`max`). */
const Codebook = z.record(
  z.string(),
  z.object({
    description: z.string().optional(),
    values: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  }).passthrough(),
);

/** A drafted schema and one warning per column whose levels or bounds came from the data. */
export interface SchemaDraft {
  readonly schema: FileSchema;
  readonly warnings: readonly string[];
}

/** Cells the data may use for "not applicable" when no codebook names the marker. */
const MARKER_CANDIDATES = ["N", "NA", ""];

/** A column of a geography, by its name. */
const GEOGRAPHY = /^(puma|geo|geography|region|area|county|state)$/i;

/** A survey weight, by its name. */
const WEIGHT = /wgt|weight/i;

/** A column of codes, by its name or the codebook's description ("Industry codes"). */
const CODES = /\bcodes?\b/i;

/** Up to this many distinct whole numbers, a column read from the data is drafted categorical. */
const FEW_CODES = 20;

/** Numeric order when every cell is a number, else the given order. */
function sortedCells(cells: string[]): string[] {
  return cells.every((cell) => !Number.isNaN(parseDecimal(cell)))
    ? [...cells].sort((a, b) => parseDecimal(a) - parseDecimal(b))
    : cells;
}

/** Digits after the point of a decimal's text (`5000.0` → 1). */
function decimalsOf(cell: string): number {
  const match = /\.(\d*)/.exec(cell.replace(/[eE].*$/, ""));
  return match === null ? 0 : match[1].length;
}

/** A numeric kind guessed from the name and the declared range. */
function numericKind(name: string, lo: number, integer: boolean): FileColumn["kind"] {
  if (WEIGHT.test(name) && lo >= 0) return "weight";
  if (lo < 0) return "amount";
  return integer ? "count" : "continuous";
}

/** Integer flag and decimals as the file writes the column's numbers. */
function format(numbers: string[]): { integer?: boolean; decimals?: number } {
  const integer = numbers.every((cell) => Number.isInteger(parseDecimal(cell)));
  const decimals = Math.max(0, ...numbers.map(decimalsOf));
  return { integer, ...(decimals > 0 ? { decimals } : {}) };
}

/** The fields every drafted column has: its name, N/A marker (if any), source and description. */
function columnHead(
  name: string,
  marker: string | undefined,
  source: ColumnSource,
  description: string | undefined,
) {
  return {
    name,
    ...(marker === undefined ? {} : { notApplicable: marker }),
    source,
    ...(description === undefined ? {} : { description }),
  };
}

/**
 * A numeric column on [lo, hi]: its kind from its name and lower bound, and the file's number
 * format (integer flag, except on counts, and decimals).
 */
function numericColumn(
  head: ReturnType<typeof columnHead>,
  lo: number,
  hi: number,
  shape: { integer?: boolean; decimals?: number },
): FileColumn {
  const kind = numericKind(head.name, lo, shape.integer === true);
  return {
    ...head,
    kind,
    bounds: [lo, hi],
    ...(kind === "count" ? {} : { integer: shape.integer }),
    ...(shape.decimals === undefined ? {} : { decimals: shape.decimals }),
  };
}

/** A column from a codebook entry with values. */
function fromCodebook(
  name: string,
  values: Record<string, string | number>,
  numbers: string[],
  description: string | undefined,
): FileColumn {
  const codes = Object.keys(values).filter((key) => key !== "min" && key !== "max");
  const marker = codes.find((code) => /^n\/a\b/i.test(String(values[code])));
  const rest = codes.filter((code) => code !== marker);
  const common = columnHead(name, marker, "codebook", description);
  const { min, max } = values;
  if (typeof min !== "number" || typeof max !== "number") {
    return { ...common, kind: "categorical", levels: sortedCells(rest) };
  }
  const extra = rest.map(parseDecimal).filter((x) => !Number.isNaN(x));
  const lo = Math.min(min, ...extra);
  const hi = Math.max(max, ...extra);
  const points = extra.filter((x) => x < min || x > max);
  const shape = format([...numbers, String(min), String(max)]);
  return { ...numericColumn(common, lo, hi, shape), ...(points.length > 0 ? { points } : {}) };
}

/** A column read from the data alone: whole-number codes (by name, description or few values)
 * and text are categorical. */
function fromData(name: string, cells: string[], description: string | undefined): FileColumn {
  const distinct = [...new Set(cells)];
  const marker = MARKER_CANDIDATES.find((candidate) =>
    distinct.includes(candidate) &&
    distinct.some((cell) => cell !== candidate && !Number.isNaN(parseDecimal(cell)))
  );
  const rest = distinct.filter((cell) => cell !== marker);
  const common = columnHead(name, marker, "data", description);
  const values = rest.map(parseDecimal);
  const shape = format(rest);
  const coded = CODES.test(name) || CODES.test(description ?? "");
  if (values.some(Number.isNaN) || (shape.integer && (coded || rest.length <= FEW_CODES))) {
    return { ...common, kind: "categorical", levels: sortedCells(rest) };
  }
  return numericColumn(common, Math.min(...values), Math.max(...values), shape);
}

/** The order a column's fields are written in, for the owner's review. */
const KEY_ORDER = [
  "name",
  "kind",
  "levels",
  "bounds",
  "integer",
  "decimals",
  "points",
  "notApplicable",
  "source",
  "description",
] as const;

function inKeyOrder(column: FileColumn): FileColumn {
  const record = column as unknown as Record<string, unknown>;
  return Object.fromEntries(
    KEY_ORDER.filter((key) => record[key] !== undefined).map((key) => [key, record[key]]),
  ) as unknown as FileColumn;
}

/**
 * Drafts a schema for a file.
 *
 * @param data The confidential dataset.
 * @param codebook The parsed codebook JSON, if any (`source` names its file in errors).
 * @returns The draft and its warnings (one per column whose levels or bounds the data gave).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseCsv } from "./csv.ts";
 * import { draftFileSchema } from "./draft_schema.ts";
 * const data = parseCsv("SEX,AGE\n1,30\n2,N\n", "f.csv");
 * const codebook = { SEX: { values: { "1": "Male", "2": "Female" } } };
 * const { schema, warnings } = draftFileSchema(data, { json: codebook, source: "c.json" });
 * assert.deepEqual(schema.columns[0].levels, ["1", "2"]);
 * assert.equal(schema.columns[1].source, "data");
 * assert.equal(warnings.length, 1);
 * ```
 */
export function draftFileSchema(
  data: Dataset,
  codebook?: { readonly json: unknown; readonly source: string },
): SchemaDraft {
  let entries: z.infer<typeof Codebook> = {};
  if (codebook !== undefined) {
    const parsed = Codebook.safeParse(codebook.json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new DataError(
        {
          file: codebook.source,
          column: issue.path[0] === undefined ? undefined : String(issue.path[0]),
        },
        `not a codebook (column → { description, values }): ${issue.message}`,
      );
    }
    entries = parsed.data;
  }
  const columns: FileColumn[] = [];
  const warnings: string[] = [];
  for (const name of data.names) {
    const column = data.columns.get(name)!;
    const cells = column.kind === "numeric"
      ? Array.from(column.values, String)
      : Array.from(column.codes, (code) => column.levels[code]);
    const entry = Object.hasOwn(entries, name) ? entries[name] : undefined;
    const drafted = entry?.values !== undefined
      ? fromCodebook(
        name,
        entry.values,
        cells.filter((cell) => !Number.isNaN(parseDecimal(cell))),
        entry.description,
      )
      : fromData(name, cells, entry?.description);
    columns.push(inKeyOrder(drafted));
    if (drafted.source === "data") {
      warnings.push(
        `column "${name}": its ${
          drafted.kind === "categorical" ? "levels were" : "bounds were"
        } read from the confidential data; review them and replace them with public facts ` +
          "(a codebook, the survey's documentation) before a release",
      );
    }
  }
  const geography = columns.find((column) =>
    column.kind === "categorical" && GEOGRAPHY.test(column.name)
  );
  return {
    schema: {
      description: `Drafted from ${data.source}` +
        (codebook === undefined ? "" : ` and ${codebook.source}`) +
        ': review every column; "source": "data" marks levels or bounds read from the ' +
        'confidential file. Declare the codebook\'s consistency rules under "rules".',
      ...(geography === undefined ? {} : { geography: geography.name }),
      bins: DEFAULT_BINS,
      columns,
      rules: [],
    },
    warnings,
  };
}
