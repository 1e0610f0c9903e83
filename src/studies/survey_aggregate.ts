/**
 * The survey study's aggregate over replicates (Study 4), per arm (Δ*): RMSE-ratio summaries
 * (Figures 5–7), per-cell coverage, interval length and CV per m (Tables 4–5 and the
 * supplement's figures) and the calibrations.
 *
 * @module
 */
import { FIELD_LEVELS, GENDER_LEVELS } from "../survey/sdr_tables.ts";
import { cellLayout } from "../survey/tables.ts";
import { summarize, type Summary, totalFitStats } from "./study_runner.ts";
import type { CellValues, CoverageEntry } from "./survey_metrics.ts";
import type { ArmRecord, SurveyRecord } from "./survey_record.ts";
import {
  type Method,
  type Quantity,
  SURVEY_METHODS,
  SURVEY_SYNTHESIZERS,
  type SurveySettings,
  type Synthesizer,
} from "./survey_settings.ts";

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
  readonly fitStats: ReturnType<typeof totalFitStats>;
}

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
