/**
 * The utility report of a whole-file release (issue 35; the owner's: every figure is an aggregate
 * of the confidential file): the field's measures side by side.
 *
 * - SDNist v2.3.0 k-marginal (`src/stats/k_marginal.ts`) on every column, grouped by the schema's
 *   geography; for a file with the CRC ACS excerpts' columns also on each CRC feature set with
 *   SDNist's own binning (`sdnistAcsBinnings`), so the scores read against the CRC's published
 *   ones.
 * - The mean TVD over 3-way marginals and its worst triples, each column's TVD, and the pMSE of a
 *   main-effects propensity model, all on the same binned columns.
 * - Each declared rule's violations in both files, and for each weight column the weighted total
 *   and the weighted counts of the geography's levels in both files.
 *
 * Binning (the measures', not the release's): numeric kinds into the confidential file's 20
 * percentile bins as SDNist does (a schema's `points` their own bins), categorical columns as
 * they are; a column determined by another is scored as a category.
 *
 * @module
 */
import { ruleViolations } from "../data/file_rules.ts";
import { type FileSchema, isNumericKind } from "../data/file_schema.ts";
import {
  CRC_ALL_FEATURES,
  CRC_FEATURE_SETS,
  sdnistAcsBinnings,
} from "../stats/crc_feature_sets.ts";
import { kMarginal } from "../stats/k_marginal.ts";
import { columnTvds, threeWayTvd } from "../stats/marginal_tvd.ts";
import { propensityMse } from "../stats/pmse.ts";
import { binFilePair, type ColumnBinning } from "../stats/sdnist_binning.ts";
import { weightedTotals } from "../stats/weighted_totals.ts";

/**
 * DENSITY's largest value in NIST's codebook of the 2019 ACS excerpts (`data_dictionary.json`),
 * which SDNist's log-density bins of DENSITY take as their top.
 */
export const CRC_DENSITY_MAX = 52864.7;

/** A file as columns of cells. */
export type FileCells = ReadonlyMap<string, readonly string[]>;

/** The utility of one synthetic file against the confidential one. */
export interface FileUtility {
  /** k-marginal on every column (INDP-like exclusions as SDNist: none but by name "INDP"). */
  readonly kMarginal: number;
  /** k-marginal per CRC feature set, when the file has the CRC excerpts' columns. */
  readonly crcKMarginal?: Readonly<Record<string, number>>;
  readonly threeWay: {
    readonly meanTvd: number;
    readonly triples: number;
    readonly worst: readonly { readonly columns: readonly string[]; readonly tvd: number }[];
  };
  readonly columnTvd: Readonly<Record<string, number>>;
  readonly pmse: { readonly pmse: number; readonly ratio: number };
  readonly rules: readonly {
    readonly rule: string;
    readonly confidential: number;
    readonly synthetic: number;
  }[];
  readonly weights: readonly {
    readonly column: string;
    readonly total: { readonly confidential: number; readonly synthetic: number };
    readonly byGeography: readonly {
      readonly level: string;
      readonly confidential: number;
      readonly synthetic: number;
    }[];
  }[];
}

/** The measures' binning of each column under the schema (see the module doc). */
export function measureBinnings(schema: FileSchema): Map<string, ColumnBinning> {
  return new Map(schema.columns.map((column): [string, ColumnBinning] => [
    column.name,
    isNumericKind(column.kind) && column.determinedBy === undefined
      ? { kind: "percentile", ownBins: (column.points ?? []).map(String), belowLowest: "lowest" }
      : { kind: "category" },
  ]));
}

/**
 * The utility report of one synthetic file.
 *
 * @param confidential The confidential file's cells.
 * @param synthetic The synthetic file's cells (the same columns).
 * @param schema The declared schema (kinds, geography, rules, N/A markers).
 * @returns The measures.
 */
export function fileUtility(
  confidential: FileCells,
  synthetic: FileCells,
  schema: FileSchema,
): FileUtility {
  const names = schema.columns.map((column) => column.name);
  const binnings = measureBinnings(schema);
  const geography = schema.geography;
  const kAll = kMarginal(confidential, synthetic, { features: names, geography, binnings });
  const crc = CRC_ALL_FEATURES.every((name) => names.includes(name))
    ? Object.fromEntries(
      Object.entries(CRC_FEATURE_SETS).map(([set, features]) => [
        set,
        kMarginal(confidential, synthetic, {
          features,
          geography: features.includes("PUMA") ? "PUMA" : undefined,
          binnings: sdnistAcsBinnings(CRC_DENSITY_MAX),
        }).reported,
      ]),
    )
    : undefined;
  const binned = binFilePair(confidential, synthetic, binnings);
  const triples = threeWayTvd(binned.confidential, binned.synthetic, names);
  const pmse = propensityMse(binned.confidential, binned.synthetic, names);
  const confRules = ruleViolations(confidential, schema);
  const synRules = ruleViolations(synthetic, schema);
  return {
    kMarginal: kAll.reported,
    ...(crc === undefined ? {} : { crcKMarginal: crc }),
    threeWay: { meanTvd: triples.mean, triples: triples.count, worst: triples.worst },
    columnTvd: Object.fromEntries(
      columnTvds(binned.confidential, binned.synthetic, names).map((d) => [d.columns[0], d.tvd]),
    ),
    pmse: { pmse: pmse.pmse, ratio: pmse.ratio },
    rules: confRules.map(({ rule, violations }, r) => ({
      rule,
      confidential: violations,
      synthetic: synRules[r].violations,
    })),
    weights: schema.columns.filter((column) => column.kind === "weight").map((column) => {
      const totals = weightedTotals(confidential, synthetic, {
        weight: column.name,
        columns: geography === undefined ? [] : [geography],
      });
      return {
        column: column.name,
        total: totals.total,
        byGeography: totals.levels.map(({ level, confidential, synthetic }) => ({
          level,
          confidential,
          synthetic,
        })),
      };
    }),
  };
}
