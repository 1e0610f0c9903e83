/**
 * The vector-weighted paper's Supp 5 Figures 12 (Poisson) and 14 (NB mixture) from the
 * contraction study (issue 25): at the settings' `estimandsN`, the mean, median, 15th and 90th
 * quantiles of the data and of one synthetic dataset per rule, each as its distribution over the
 * databases (violins in the supplement).
 *
 * @module
 */
import { distributionSeries, type Figure, type Panel } from "../report/figure.ts";
import type { ContractionRecord } from "./contraction_result.ts";
import {
  CONTRACTION_LABELS,
  type ContractionRule,
  type ContractionSettings,
  GENERATOR_LABELS,
} from "./contraction_settings.ts";

/** The series: the data, then the rules the supplement's LW synthesizers correspond to. */
const SERIES: readonly (readonly ["data" | ContractionRule, string, string])[] = [
  ["data", "Data", "#000000"],
  ["unweighted", CONTRACTION_LABELS.unweighted, "#999999"],
  ["lw-fixed", CONTRACTION_LABELS["lw-fixed"], "#E69F00"],
  ["lw-final", CONTRACTION_LABELS["lw-final"], "#0072B2"],
  ["lw-fixed-final", CONTRACTION_LABELS["lw-fixed-final"], "#D55E00"],
];

const STATISTICS = [
  ["mean", "Mean"],
  ["median", "Median"],
  ["q15", "15th quantile"],
  ["q90", "90th quantile"],
] as const;

/**
 * Generator g's estimands figure (no data when the study recorded none).
 *
 * @param records The replicates' records.
 * @param settings The study settings.
 * @param g The generator's index.
 */
export function estimandsFigure(
  records: readonly ContractionRecord[],
  settings: ContractionSettings,
  g: number,
): Figure {
  const { name } = settings.generators[g];
  const j = settings.estimandsN === null ? -1 : settings.sizes.indexOf(settings.estimandsN);
  const panel = ([stat, title]: typeof STATISTICS[number]): Panel => ({
    title,
    xLabel: "value",
    yLabel: "share of databases at or below",
    series: SERIES.map(([key, label, color]) =>
      distributionSeries(
        label,
        color,
        j < 0 ? [] : records.map((r) => {
          const size = r.generators[g].sizes[j];
          return key === "data" ? size.data?.[stat] : size.rules[key]?.estimands?.[stat];
        }),
      )
    ),
  });
  return {
    title: `Estimands of the confidential and synthetic data, ${GENERATOR_LABELS[name]} ` +
      `(Supp 5, Figure ${name === "poisson" ? 12 : 14})`,
    panels: STATISTICS.map(panel),
    legend: SERIES.map(([, label, color]) => [label, color] as const),
    caption: `n = ${settings.estimandsN ?? "–"}: one synthetic dataset per rule and database`,
  };
}
