/**
 * What makes a survey synthesizer's intervals miss (issue 25), from the survey study's aggregate
 * over the 24 cells of the paper's Tables 4–5: how long the intervals are against the estimates'
 * own spread over samples, and what centring does to the coverage.
 *
 * @module
 */
import { normalCdf, normalQuantile } from "../stats/student_t.ts";
import type { CoverageCells } from "./survey_aggregate.ts";
import { paperTableRows } from "./survey_paper.ts";
import type { Quantity } from "./survey_settings.ts";

/** The centring of one method's estimates (null without recorded errors or with one sample). */
export interface Centring {
  /** Cells whose mean estimate lies more than 2 SE (spread/√R) from the population value. */
  readonly off: number;
  /** Cells compared (24). */
  readonly cells: number;
  /**
   * The mean over the cells of P(|b + sZ| ≤ h): the coverage of an interval of the cell's mean
   * half-length h around a normal estimate with the cell's bias b and spread s,
   * Φ((h − b)/s) − Φ((−h − b)/s); and the same with b = 0.
   */
  readonly withBias: number;
  readonly withoutBias: number;
}

/** z of a 95 % normal interval. */
const Z = normalQuantile(0.975);

/**
 * The mean over the 24 cells of the implied SE (half-length / z₀.₉₇₅) over the estimates' spread
 * across samples: 1 for intervals as wide as the sampling variation (null without errors).
 *
 * @param cells One method's per-cell aggregate at one m.
 * @param kind Counts or means.
 */
export function intervalScale(cells: CoverageCells, kind: Quantity): number | null {
  if (cells.spread === null) return null;
  const rows = paperTableRows();
  return rows.reduce((s, c) => s + cells.length[kind][c] / 2 / Z / cells.spread![kind][c], 0) /
    rows.length;
}

/**
 * The centring of one method's estimates over the 24 cells.
 *
 * @param cells One method's per-cell aggregate at one m.
 * @param kind Counts or means.
 * @param replicates R, the samples behind the aggregate.
 */
export function centringOf(
  cells: CoverageCells,
  kind: Quantity,
  replicates: number,
): Centring | null {
  if (cells.bias === null || cells.spread === null) return null;
  const rows = paperTableRows();
  const bias = rows.map((c) => cells.bias![kind][c]);
  const spread = rows.map((c) => cells.spread![kind][c]);
  const half = rows.map((c) => cells.length[kind][c] / 2);
  const covered = (b: number, k: number) =>
    normalCdf((half[k] - b) / spread[k]) - normalCdf((-half[k] - b) / spread[k]);
  const average = (f: (k: number) => number) => rows.reduce((s, _, k) => s + f(k), 0) / rows.length;
  return {
    off: bias.filter((b, k) => Math.abs(b) > 2 * spread[k] / Math.sqrt(replicates)).length,
    cells: rows.length,
    withBias: average((k) => covered(bias[k], k)),
    withoutBias: average((k) => covered(0, k)),
  };
}
