/**
 * The frontier figure (`frontier.ts`): per file, utility against ε on a log axis, one line per
 * mechanism (solid m = 1, dashed m = 3), as an SVG string for the markdown and the HTML report.
 * Left: S_pMSE (log scale; 1 is indistinguishable from the confidential data) of the record
 * mechanisms. Right (log scale): the file's headline error — on a survey file the survey table's mean cell
 * error, else the skewed amount's relative mean bias — for every mechanism that releases it.
 *
 * @module
 */
import {
  type FrontierArm,
  type FrontierFile,
  type FrontierMechanism,
  type FrontierResult,
  isReleased,
  MECHANISM_LABELS,
} from "./frontier.ts";
import type { Series } from "../report/figure.ts";
import { figureSvg } from "../report/svg.ts";

/** Colour of each mechanism (Okabe–Ito, distinguishable with colour-blindness). */
const COLORS: Readonly<Record<FrontierMechanism, string>> = {
  "sw": "#0072B2",
  "lw-final": "#D55E00",
  "weighted-e": "#CC79A7",
  "censored-w": "#009E73",
  "censored": "#56B4E9",
  "histogram": "#E69F00",
  "laplace-table": "#000000",
};

/** The right panel's measure of an arm on a file, or NaN where the arm does not release it. */
export function headlineError(file: FrontierFile, arm: FrontierArm): number {
  if (file.table !== undefined) return arm.metrics.tableError ?? NaN;
  const skewed = file.outcomes.find((o) => o.model === "lognormal")?.name;
  const bias = skewed === undefined ? undefined : arm.metrics.bias[skewed];
  return bias === undefined ? NaN : 100 * Math.abs(bias);
}

/** The right panel's axis title for a file. */
export function headlineLabel(file: FrontierFile): string {
  if (file.table !== undefined) return `table: mean |cell error| of ${file.table.y} (points)`;
  const skewed = file.outcomes.find((o) => o.model === "lognormal")?.name ?? "amount";
  return `|mean bias| of ${skewed} (%)`;
}

/**
 * The figure of one file of a result: two panels and the legend.
 *
 * @param result A frontier result.
 * @param fileKey The file's key.
 * @returns An SVG document.
 */
export function frontierSvg(result: FrontierResult, fileKey: string): string {
  const file = result.settings.files.find((f) => f.key === fileKey)!;
  const arms = result.arms.filter(isReleased).filter((a) => a.file === fileKey);
  const seriesOf = (measure: (arm: FrontierArm) => number) =>
    result.settings.mechanisms.flatMap((mechanism) =>
      result.settings.ms.map((m): Series => ({
        label: `${MECHANISM_LABELS[mechanism]}, m = ${m}`,
        color: COLORS[mechanism],
        dashed: m !== 1,
        points: arms.filter((a) => a.mechanism === mechanism && a.m === m)
          .sort((a, b) => a.epsilon - b.epsilon)
          .map((a) => [a.epsilon, measure(a), a.finalFit?.flagged === true] as const),
      }))
    );
  const left = seriesOf((a) =>
    a.mechanism === "histogram" || a.finalFit === null ? NaN : a.metrics.sPMSE ?? NaN
  );
  const right = seriesOf((a) => headlineError(file, a));
  const axes = { xLabel: "ε (log scale)", logX: true, logY: true };
  return figureSvg({
    title: `${file.label}: utility against ε, per mechanism`,
    panels: [
      { ...axes, title: `${file.label}: S_pMSE`, yLabel: "S_pMSE (log scale)", series: left },
      {
        ...axes,
        title: `${file.label}: headline error`,
        yLabel: headlineLabel(file),
        series: right,
      },
    ],
    legend: result.settings.mechanisms.map((m) => [MECHANISM_LABELS[m], COLORS[m]] as const),
    caption: "solid: m = 1; dashed: m = 3 (ε is the total for the m datasets); hollow: final " +
      "fit flagged",
  }) + "\n";
}
