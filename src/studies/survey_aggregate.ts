/**
 * The survey study's aggregate over replicates (Study 4), per arm (Δ*): RMSE-ratio summaries
 * (Figures 5–7), per-cell coverage, interval length and CV per m (Tables 4–5 and the
 * supplement's figures) and the calibrations; the paper's Tables 4–5, the centring of the
 * intervals and the cell means over replicates that the verdicts and the report share.
 *
 * @module
 */
import { FIELD_LEVELS, GENDER_LEVELS } from "../survey/sdr_tables.ts";
import { cellLayout } from "../survey/tables.ts";
import { summarize, type Summary, type TotalFitStats, totalFitStats } from "./study_runner.ts";
import {
  type ArmRecord,
  type CellValues,
  type CoverageEntry,
  type Method,
  type Quantity,
  SURVEY_METHODS,
  SURVEY_SYNTHESIZERS,
  type SurveyRecord,
  type SurveySettings,
  type Synthesizer,
} from "./survey_settings.ts";
import type { StudyResult } from "./study.ts";
import { normalCdf, normalQuantile } from "../stats/student_t.ts";
import { type Num, num } from "./study_document.ts";
export { PAPER_TABLES_4_5, paperPopulationCells } from "../survey/paper_tables_4_5.ts";

/** Summaries of the 27 RMSE ratios of one method and m. */
export interface RatioSummary {
  readonly count: Summary;
  readonly mean: Summary;
}

/** Per cell over replicates: coverage rate, mean interval length and mean CV. */
export interface CoverageCells {
  readonly coverage: CellValues;
  readonly length: CellValues;
  readonly cv: CellValues;
  /**
   * The estimate's centring and spread over replicates: mean of estimate − population value,
   * and its standard deviation (null where the records carry no errors).
   */
  readonly bias: CellValues | null;
  readonly spread: CellValues | null;
}

/** The aggregate of one arm (one Δ*). */
export interface ArmSummary {
  readonly target: number;
  /** Per synthesizer: Δ over replicates, Δ_x, and how many replicates missed Δ*. */
  readonly fits: Readonly<
    Record<Synthesizer, {
      readonly lipschitz: Summary;
      readonly unweightedLipschitz: Summary;
      readonly missedTarget: number;
    }>
  >;
  /** Figures 5–7: replicate 0's 27 ratios per method and m. */
  readonly ratios: Readonly<Record<Method, Readonly<Record<string, RatioSummary>>>>;
  /** The same, pooled over all replicates (27·R ratios). */
  readonly ratiosPooled: Readonly<Record<Method, Readonly<Record<string, RatioSummary>>>>;
  /** Tables 4–5 and the supplement's figures: per method and m. */
  readonly coverage: Readonly<Record<Method, Readonly<Record<string, CoverageCells>>>>;
}

/** The aggregate of the survey study. */
export interface SurveySummary {
  readonly truth: CellValues;
  /** Row labels of the 27 cells (field, gender; "all" for a margin). */
  readonly labels: readonly [readonly string[], readonly string[]];
  readonly sampleCorrelation: Summary;
  /** The confidential sample's own coverage (the non-private benchmark). */
  readonly sample: CoverageCells;
  /** One per Δ* of the settings, in order. */
  readonly arms: readonly ArmSummary[];
  readonly fitStats: TotalFitStats;
}

/** The survey study's result. */
export type SurveyResult = StudyResult<SurveySettings, SurveyRecord, SurveySummary>;

function meanOver<R>(records: readonly R[], pick: (r: R) => CellValues): CellValues {
  const avg = (kind: Quantity) =>
    pick(records[0])[kind].map((_, c) =>
      records.reduce((s, r) => s + pick(r)[kind][c], 0) / records.length
    );
  return { count: avg("count"), mean: avg("mean") };
}

/** Per cell over replicates: coverage rate, mean interval length and mean CV. */
function coverageCells<R>(records: readonly R[], pick: (r: R) => CoverageEntry): CoverageCells {
  const errors = records.every((r) => pick(r).error !== undefined);
  const bias = errors ? meanOver(records, (r) => pick(r).error!) : null;
  const square = (v: CellValues, m: CellValues): CellValues => ({
    count: v.count.map((x, c) => (x - m.count[c]) ** 2),
    mean: v.mean.map((x, c) => (x - m.mean[c]) ** 2),
  });
  const variance = bias === null || records.length < 2
    ? null
    : meanOver(records, (r) => square(pick(r).error!, bias));
  const n = records.length;
  return {
    coverage: meanOver(records, (r) => pick(r).covered),
    length: meanOver(records, (r) => pick(r).length),
    cv: meanOver(records, (r) => pick(r).cv),
    bias,
    spread: variance === null ? null : {
      count: variance.count.map((v) => Math.sqrt(v * n / (n - 1))),
      mean: variance.mean.map((v) => Math.sqrt(v * n / (n - 1))),
    },
  };
}

/** The finite entries (a cell empty in the sample has no RMSE ratio). */
function finite(values: readonly number[]): number[] {
  return values.filter(Number.isFinite);
}

/**
 * Aggregates survey records (pure). Ratio summaries skip non-finite ratios (a cell empty in a
 * small sample); an empty cell counts as not covered.
 *
 * @param records The replicates' records, in replicate order (at least one).
 * @param settings The study's settings (the arms and m's).
 */
export function surveyAggregate(
  records: readonly SurveyRecord[],
  settings: SurveySettings,
): SurveySummary {
  if (records.length === 0) throw new RangeError("Invalid records: must not be empty");
  const keys = settings.ms.map((m) => `m${m}`);
  const arm = (a: number): ArmSummary => {
    const arms = records.map((r) => r.arms[a]);
    const ratioSummaries = (chosen: readonly ArmRecord[]) =>
      Object.fromEntries(SURVEY_METHODS.map((method) => [
        method,
        Object.fromEntries(keys.map((key) => [key, {
          count: summarize(finite(chosen.flatMap((r) => r.ratios[method][key].count))),
          mean: summarize(finite(chosen.flatMap((r) => r.ratios[method][key].mean))),
        }])),
      ])) as Record<Method, Record<string, RatioSummary>>;
    return {
      target: settings.lipschitz[a],
      fits: Object.fromEntries(SURVEY_SYNTHESIZERS.map((method) => [method, {
        lipschitz: summarize(arms.map((r) => r.fits[method].lipschitz)),
        unweightedLipschitz: summarize(arms.map((r) => r.fits[method].unweightedLipschitz)),
        missedTarget: arms.filter((r) => !r.fits[method].reachedTarget).length,
      }])) as ArmSummary["fits"],
      ratios: ratioSummaries(arms.slice(0, 1)),
      ratiosPooled: ratioSummaries(arms),
      coverage: Object.fromEntries(SURVEY_METHODS.map((method) => [
        method,
        Object.fromEntries(
          keys.map((key) => [key, coverageCells(arms, (r) => r.coverage[method][key])]),
        ),
      ])) as Record<Method, Record<string, CoverageCells>>,
    };
  };
  const { labels } = cellLayout([
    { name: "field", codes: new Int32Array(0), levels: FIELD_LEVELS },
    { name: "gender", codes: new Int32Array(0), levels: GENDER_LEVELS },
  ]);
  return {
    truth: records[0].truth,
    labels,
    sampleCorrelation: summarize(records.map((r) => r.sampleCorrelation)),
    sample: coverageCells(records, (r) => r.sample),
    arms: settings.lipschitz.map((_, a) => arm(a)),
    fitStats: totalFitStats(records.map((r) => r.fitStats)),
  };
}

/** The 24 cells of Tables 4–5 (field totals and field × gender) in cellLayout row indices. */
export function paperTableRows(): number[] {
  const perField = GENDER_LEVELS.length + 1;
  return FIELD_LEVELS.flatMap((_, f) =>
    Array.from({ length: perField }, (_, g) => (f + 1) * perField + g)
  );
}

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

/** The methods' names in the report. */
export const LABELS: Record<Method | "sample", string> = {
  sample: "Sample",
  fbs: "FBS",
  fbp: "FBP",
  laplace: "Laplace",
};

/** ε = 2·Δ*·m, with one decimal. */
export function epsilon(target: number, m: number): Num {
  return num.fixed(2 * target * m, 1);
}

/** Mean over the 24 cells of Tables 4–5 of per-cell values. */
export function cellMean(values: readonly number[]): number {
  const rows = paperTableRows();
  return rows.reduce((s, c) => s + values[c], 0) / rows.length;
}

/**
 * The mean over replicates of a per-replicate mean over the 24 paper cells, with its Monte Carlo
 * standard error from the spread of the per-replicate means (so the cells' correlation is
 * accounted for; NaN for one replicate).
 */
export function coverageByReplicate(
  records: readonly SurveyRecord[],
  pick: (r: SurveyRecord) => readonly number[],
): { mean: number; se: number } {
  const values = records.map((r) => cellMean(pick(r)));
  const n = values.length;
  const mean = values.reduce((s, v) => s + v, 0) / n;
  if (n < 2) return { mean, se: NaN };
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1);
  return { mean, se: Math.sqrt(variance / n) };
}

/** Mean over the 24 cells of FBP's mean CI length over FBS's. */
export function lengthRatio(arm: ArmSummary, key: string, kind: Quantity): number {
  const fbp = arm.coverage.fbp[key].length[kind];
  const fbs = arm.coverage.fbs[key].length[kind];
  const ratios = paperTableRows().map((c) => fbp[c] / fbs[c]).filter(Number.isFinite);
  return ratios.reduce((s, r) => s + r, 0) / ratios.length;
}

/** The standard deviation of log w over (salary, weight) pairs (NaN for fewer than two). */
export function logWeightSpread(pairs: readonly (readonly [number, number])[]): number {
  const logs = pairs.map(([, w]) => Math.log(w));
  const mean = logs.reduce((s, v) => s + v, 0) / logs.length;
  return Math.sqrt(logs.reduce((s, v) => s + (v - mean) ** 2, 0) / (logs.length - 1));
}
