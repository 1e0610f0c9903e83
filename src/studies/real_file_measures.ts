/**
 * The real-file study's view of its record and the measures its tables and findings read from an
 * arm: TVDs, the utility models' summaries, and number formats.
 *
 * @module
 */
import type { ModelUtility, UtilityReport } from "../synthesis/utility_report.ts";
import { scientific } from "../report/format.ts";
import { fmt } from "./markdown.ts";
import type { ArmFailure, ArmResult, RealFileRecord, RealFileSettings } from "./real_file_types.ts";

/** The record with its released arms apart from those that failed to reach their ε. */
export type View = Omit<RealFileRecord, "arms"> & {
  readonly settings: RealFileSettings;
  readonly arms: readonly ArmResult[];
  readonly failures: readonly ArmFailure[];
};

/** A number in exponent form with two decimals ("–" when null). */
export const sci = (v: number | null | undefined) => scientific(v, 2);

export const pct = (v: number, digits = 1) => fmt(100 * v, digits);

export function mean(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / values.length;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const h = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[h] : (sorted[h - 1] + sorted[h]) / 2;
}

/** The TVD (mean over m, and its range over the datasets) of a synthesised variable. */
export function variableTvd(report: UtilityReport, name: string) {
  const variable = report.variables.find((v) => v.name === name);
  return variable?.kind === "categorical" ? variable.tvd : undefined;
}

export function twoWayTvd(report: UtilityReport, a: string, b: string) {
  return report.twoWay.find((t) => t.variables[0] === a && t.variables[1] === b)?.tvd;
}

/** The pairs of the two-way tables, in the report's order. */
export function pairs(view: View): [string, string][] {
  const full = view.arms.find((arm) => arm.kind !== "histogram");
  return (full?.utility.twoWay ?? []).map((t) => [t.variables[0], t.variables[1]]);
}

export function modelOf(report: UtilityReport, formula: string): ModelUtility | undefined {
  return report.models.find((model) => model.formula === formula);
}

/** Mean CI overlap and mean standardised difference of a model's coefficients. */
export function modelSummary(
  model: ModelUtility | undefined,
): { overlap: number; diff: number } | null {
  if (model === undefined || !("coefficients" in model)) return null;
  const overlaps = model.coefficients.map((c) => c.overlap).filter((v) => v !== null);
  const diffs = model.coefficients.map((c) => c.standardizedDifference).filter((v) => v !== null);
  return { overlap: mean(overlaps), diff: mean(diffs) };
}
