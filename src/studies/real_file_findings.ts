/**
 * The real-file study's findings as values (`real_file_document.ts` places them through the
 * template's Findings section): LW_final's privacy, utility against ε, what the weights do, the
 * perturbed histogram, the survey table's coverage and the MCMC diagnostics; with the view of its
 * record and the measures its tables and findings read from an arm (TVDs, the utility models'
 * summaries). The study has no verdicts: it compares synthesizers on one real file, not with a
 * paper's numbers, and these findings take their place.
 *
 * @module
 */
import type { ModelUtility, UtilityReport } from "../synthesis/utility_report.ts";
import { cat, joined, num, text, type Value } from "./study_document.ts";
import {
  type ArmFailure,
  type ArmResult,
  type RealFileRecord,
  type RealFileSettings,
  UTILITY_MODELS,
} from "./real_file_settings.ts";

/** The record with its released arms apart from those that failed to reach their ε. */
export type View = Omit<RealFileRecord, "arms"> & {
  readonly settings: RealFileSettings;
  readonly arms: readonly ArmResult[];
  readonly failures: readonly ArmFailure[];
};

/** A number in exponent form with two decimals ("–" when null). */
export const sci = (v: number | null | undefined) => num.scientific(v, 2);

export const pct = (v: number, digits = 1) => num.fixed(100 * v, digits);

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

/** A measure per arm for the utility finding; larger is worse unless `worseUp` is false. */
interface Measure {
  readonly name: string;
  readonly worseUp: boolean;
  readonly value: (arm: ArmResult) => number | null;
  readonly digits: number;
}

function measures(view: View): Measure[] {
  const twoWays = pairs(view);
  const model = (arm: ArmResult) => modelSummary(modelOf(arm.utility, UTILITY_MODELS[0]));
  const tvd = (name: string) => (arm: ArmResult) => variableTvd(arm.utility, name)?.mean ?? null;
  return [
    { name: "TVD of race", worseUp: true, value: tvd("race"), digits: 4 },
    { name: "TVD of hi_chol", worseUp: true, value: tvd("hi_chol"), digits: 4 },
    {
      name: "mean TVD of the two-way tables",
      worseUp: true,
      value: (arm) => {
        const tvds = twoWays.map(([a, b]) => twoWayTvd(arm.utility, a, b)?.mean);
        return tvds.every((v) => v !== undefined) ? mean(tvds as number[]) : null;
      },
      digits: 4,
    },
    {
      name: "S_pMSE",
      worseUp: true,
      value: (arm) => arm.kind === "histogram" ? null : arm.utility.propensity.mean.ratio,
      digits: 2,
    },
    {
      name: "mean CI overlap of the analysis model",
      worseUp: false,
      value: (arm) => model(arm)?.overlap ?? null,
      digits: 2,
    },
    {
      name: "mean standardised difference of the analysis model",
      worseUp: true,
      value: (arm) => model(arm)?.diff ?? null,
      digits: 2,
    },
  ];
}

/** Each measure from the unweighted synthesizer down LW_final's ε, and how much worse at the end. */
function trends(view: View, lw: readonly ArmResult[], unweighted: ArmResult) {
  return measures(view).flatMap((measure) => {
    const base = measure.value(unweighted);
    const values = lw.map((arm) => measure.value(arm));
    const worst = values[values.length - 1];
    if (base === null || worst === null || values.some((v) => v === null)) return [];
    const steps = lw.map((arm, j) =>
      text`${num.fixed(values[j], measure.digits)} (ε = ${arm.targetEpsilon!})`
    );
    return [{
      name: measure.name,
      text: text`${measure.name} ${num.fixed(base, measure.digits)} (unweighted) → ${
        joined(steps, " → ")
      }`,
      factor: measure.worseUp ? worst / base : base / worst,
    }];
  });
}

/** The findings' values that compare LW_final's smallest ε with the others ("–" without one). */
function lwFindings(view: View, lw: readonly ArmResult[], unweighted: ArmResult) {
  const smallest = lw[lw.length - 1];
  const t = view.confidentialTable;
  const all = trends(view, lw, unweighted);
  const worst = all.reduce((a, b) => (b.factor > a.factor ? b : a), all[0]);
  const mildest = all.reduce((a, b) => (b.factor < a.factor ? b : a), all[0]);
  const alpha = smallest.alphaByLevel?.hi_chol;
  const h = view.arms.find((arm) => arm.kind === "histogram");
  const tvd = (arm: ArmResult | undefined, a: string, b?: string) =>
    arm === undefined
      ? undefined
      : b === undefined
      ? variableTvd(arm.utility, a)?.mean
      : twoWayTvd(arm.utility, a, b)?.mean;
  const overlap = (arm: ArmResult | undefined, report: "utility" | "hiChol") => {
    const s = arm === undefined ? null : modelSummary(modelOf(arm[report], UTILITY_MODELS[1]));
    return s === null ? "not defined (a fit failed)" : num.fixed(s.overlap, 2);
  };
  return {
    trends: joined(all.map((p) => p.text), "; "),
    lw_smallest: num.plain(smallest.targetEpsilon),
    worst_measure: worst?.name ?? "–",
    worst_factor: worst === undefined
      ? "–"
      : text`${num.fixed(worst.factor, 1)}${
        worst.name.includes("overlap") ? ", as the inverse ratio of overlaps" : ""
      }`,
    mildest_measure: mildest?.name ?? "–",
    mildest_factor: mildest === undefined ? "–" : num.fixed(mildest.factor, 1),
    alpha_non_cases: num.fixed(alpha?.["0"], 2),
    alpha_cases: num.fixed(alpha?.["1"], 2),
    weights_effect: (alpha?.["1"] ?? 1) < (alpha?.["0"] ?? 1)
      ? "A weighted likelihood that counts the cases less than the non-cases pulls the fitted " +
        "prevalence down, and the synthetic records are drawn from it"
      : "The cases are not down-weighted more than the non-cases",
    prevalence_confidential: pct(t.mean[0]),
    prevalence_unweighted: pct(unweighted.table.mean[0]),
    prevalence_lw: joined(
      lw.map((arm) => text`${pct(arm.table.mean[0])}% at ε = ${arm.targetEpsilon!}`),
      ", ",
    ),
    histogram_epsilon: num.plain(h?.targetEpsilon),
    histogram_tvd: num.fixed(tvd(h, "hi_chol"), 4),
    lw_tvd: num.fixed(tvd(smallest, "hi_chol"), 4),
    unweighted_tvd: num.fixed(tvd(unweighted, "hi_chol"), 4),
    histogram_tvd_agecat: num.fixed(tvd(h, "agecat", "hi_chol"), 4),
    lw_tvd_agecat: num.fixed(tvd(smallest, "agecat", "hi_chol"), 4),
    unweighted_tvd_agecat: num.fixed(tvd(unweighted, "agecat", "hi_chol"), 4),
    histogram_spmse: num.fixed(h?.hiChol.propensity.mean.ratio, 1),
    lw_spmse: num.fixed(smallest.hiChol.propensity.mean.ratio, 1),
    unweighted_spmse: num.fixed(unweighted.hiChol.propensity.mean.ratio, 1),
    histogram_overlap: overlap(h, "utility"),
    lw_overlap: overlap(smallest, "hiChol"),
  };
}

/** The findings' values ("–" for those that need a released LW_final). */
export function findings(view: View): Record<string, Value> {
  const unweighted = view.arms.find((arm) => arm.kind === "unweighted")!;
  const lw = view.arms.filter((arm) => arm.kind === "lw-final")
    .sort((a, b) => b.targetEpsilon! - a.targetEpsilon!);
  const histograms = view.arms.filter((arm) => arm.kind === "histogram");
  const failed = view.failures.filter((arm) => arm.kind === "lw-final");
  const t = view.confidentialTable;
  const met = lw.filter((arm) => arm.epsilon <= arm.targetEpsilon! * (1 + 1e-12));
  const reached = lw.map((arm) =>
    text`ε = ${num.fixed(arm.epsilon, 2)} for the target ${arm.targetEpsilon!} (Δ = ${
      num.fixed(arm.lipschitz, 3)
    }, mean α = ${num.fixed(arm.alphaMean, 3)})`
  );
  const coverage = (arm: ArmResult) => arm.table.meanCovers.filter((c) => c).length;
  const row = (a: string, g: string) =>
    t.labels[0].findIndex((label, r) => label === a && t.labels[1][r] === g);
  const fitted = view.arms.filter((arm) => arm.finalFit !== null);
  const preconditioning = [
    ...new Set(fitted.map((arm) => arm.finalFit!.preconditionFailure).filter((f) => f !== null)),
  ];
  const byLw = lw.length === 0 ? null : lwFindings(view, lw, unweighted);
  const lwValues: Record<string, Value> = byLw ??
    Object.fromEntries(
      Object.keys(lwFindings(view, [unweighted], unweighted)).map((key) => [key, "–"]),
    );
  return {
    lw_met: num.plain(met.length),
    lw_targets: num.plain(lw.length + failed.length),
    lw_reached: cat(
      reached.length === 0 ? "" : text`: ${joined(reached, "; ")}`,
      failed.length === 0
        ? ""
        : `; not released: ${failed.map((arm) => `ε = ${arm.targetEpsilon}`).join(", ")}`,
    ),
    unweighted_lipschitz: num.fixed(unweighted.lipschitz, 3),
    unweighted_epsilon: num.fixed(unweighted.epsilon, 1),
    ...lwValues,
    cells: num.plain(t.mean.length),
    coverage: [
      `${coverage(unweighted)} (unweighted)`,
      ...lw.map((arm) => `${coverage(arm)} (LW_final ε = ${arm.targetEpsilon})`),
      ...histograms.map((arm) => `${coverage(arm)} (histogram ε = ${arm.targetEpsilon})`),
    ].join(", "),
    prevalence_men_60: pct(t.mean[row("60+", "male")]),
    prevalence_women_60: pct(t.mean[row("60+", "female")]),
    flagged: num.plain(fitted.filter((arm) => arm.finalFit!.flagged).length),
    fitted: num.plain(fitted.length),
    final_fits: joined(
      fitted.map(({ label, finalFit: fit }) =>
        text`${label} ${fit!.divergences} divergences, R̂ max ${
          num.fixed(fit!.rhatMax, 3)
        }, bulk ESS min ${num.fixed(fit!.essBulkMin, 0)}`
      ),
      "; ",
    ),
    precondition: preconditioning.length === 0
      ? ""
      : `The preconditioner was not used (${preconditioning.join("; ")}). `,
    warm_starts: lw.map((arm) =>
      `${
        arm.fits.filter((f) => f.warmStart).length
      } of ${arm.fits.length} (ε = ${arm.targetEpsilon})`
    ).join(", "),
  };
}
