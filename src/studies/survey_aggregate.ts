/**
 * The survey study's aggregate over replicates (Study 4): RMSE-ratio summaries (Figures 5–6),
 * per-cell coverage, interval length and CV (Tables 4–5) and the calibrations.
 *
 * @module
 */
import { FIELD_LEVELS, GENDER_LEVELS } from "../survey/sdr_tables.ts";
import { cellLayout } from "../survey/tables.ts";
import { summarize, type Summary, totalFitStats } from "./study_runner.ts";
import type { SurveyRecord } from "./survey.ts";
import type { CellValues } from "./survey_metrics.ts";
import {
  COVERAGE_METHODS,
  type CoverageMethod,
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
}

/** The aggregate of the survey study. */
export interface SurveySummary {
  readonly truth: CellValues;
  /** Row labels of the 27 cells (field, gender; "all" for a margin). */
  readonly labels: readonly [readonly string[], readonly string[]];
  readonly sampleCorrelation: Summary;
  /** Per synthesizer: Δ over replicates, Δ_x, and how many replicates missed Δ*. */
  readonly fits: Readonly<
    Record<Synthesizer, {
      readonly lipschitz: Summary;
      readonly unweightedLipschitz: Summary;
      readonly missedTarget: number;
    }>
  >;
  /** Figures 5–6: replicate 0's 27 ratios per method and m. */
  readonly ratios: Readonly<Record<Method, Readonly<Record<string, RatioSummary>>>>;
  /** The same, pooled over all replicates (27·R ratios). */
  readonly ratiosPooled: Readonly<Record<Method, Readonly<Record<string, RatioSummary>>>>;
  /** Tables 4–5 (and the sample and Laplace beside them) at m = coverageM. */
  readonly coverage: Readonly<Record<CoverageMethod, CoverageCells>>;
  readonly fitStats: ReturnType<typeof totalFitStats>;
}

function meanOver(records: readonly SurveyRecord[], pick: (r: SurveyRecord) => CellValues) {
  const avg = (kind: Quantity) =>
    pick(records[0])[kind].map((_, c) =>
      records.reduce((s, r) => s + pick(r)[kind][c], 0) / records.length
    );
  return { count: avg("count"), mean: avg("mean") };
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
 * @param settings The study's settings (the m's).
 */
export function surveyAggregate(
  records: readonly SurveyRecord[],
  settings: SurveySettings,
): SurveySummary {
  if (records.length === 0) throw new RangeError("Invalid records: must not be empty");
  const ratioSummaries = (chosen: readonly SurveyRecord[]) =>
    Object.fromEntries(SURVEY_METHODS.map((method) => [
      method,
      Object.fromEntries(settings.ms.map((m) => [`m${m}`, {
        count: summarize(finite(chosen.flatMap((r) => r.ratios[method][`m${m}`].count))),
        mean: summarize(finite(chosen.flatMap((r) => r.ratios[method][`m${m}`].mean))),
      }])),
    ])) as Record<Method, Record<string, RatioSummary>>;
  const { labels } = cellLayout([
    { name: "field", codes: new Int32Array(0), levels: FIELD_LEVELS },
    { name: "gender", codes: new Int32Array(0), levels: GENDER_LEVELS },
  ]);
  return {
    truth: records[0].truth,
    labels,
    sampleCorrelation: summarize(records.map((r) => r.sampleCorrelation)),
    fits: Object.fromEntries(SURVEY_SYNTHESIZERS.map((method) => [method, {
      lipschitz: summarize(records.map((r) => r.fits[method].lipschitz)),
      unweightedLipschitz: summarize(records.map((r) => r.fits[method].unweightedLipschitz)),
      missedTarget: records.filter((r) => !r.fits[method].reachedTarget).length,
    }])) as SurveySummary["fits"],
    ratios: ratioSummaries(records.slice(0, 1)),
    ratiosPooled: ratioSummaries(records),
    coverage: Object.fromEntries(COVERAGE_METHODS.map((method) => [method, {
      coverage: meanOver(records, (r) => r.coverage[method].covered),
      length: meanOver(records, (r) => r.coverage[method].length),
      cv: meanOver(records, (r) => r.coverage[method].cv),
    }])) as Record<CoverageMethod, CoverageCells>,
    fitStats: totalFitStats(records.map((r) => r.fitStats)),
  };
}
