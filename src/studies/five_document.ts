/**
 * The report of the five-synthesizer study (Study 3, SPEC §9.3) as data: the design's values, a
 * table and the utility rankings per ε (named by ε index), and the verdicts against the JSM
 * censoring slides (`five_verdicts.ts`). Its prose is `templates/five.md`.
 *
 * @module
 */
import {
  FIVE_DOWNSCALED,
  FIVE_LABELS,
  FIVE_MECHANISMS,
  FIVE_TUNABLE,
  type FiveDownscaled,
  type FiveEntry,
  type FiveMechanism,
  type FiveResult,
} from "./five_settings.ts";
import {
  cellUnder,
  downscalingEntries,
  fiveVerdicts,
  truncationText,
  weightedAgainstBest,
} from "./five_verdicts.ts";
import { joined, num, type Report, type ReportTable, text, type Value } from "./study_document.ts";
import { distributionSeries, type Figure, type Panel } from "../report/figure.ts";
import * as md from "./markdown.ts";

/** Synthesizers from best to worst: "Censor w < Weighted < …". */
const ranking = (rank: readonly FiveMechanism[]) => rank.map((m) => FIVE_LABELS[m]).join(" < ");

/** The table of ε index e: Δ, utility and the synthetic median per synthesizer. */
function epsilonTable(result: FiveResult, e: number): ReportTable {
  const { epsilon, mechanisms } = result.summary.epsilons[e];
  const rows = FIVE_MECHANISMS.map((mechanism) => {
    const cell = mechanisms[mechanism];
    if (cell === null) return [FIVE_LABELS[mechanism], "0", ...Array(11).fill("–")];
    const l = cell.lipschitz;
    return [
      FIVE_LABELS[mechanism],
      num.plain(cell.replicates),
      l === null ? "–" : joined(md.quantileCells(l, 3), " / "),
      cell.shareAbove === null ? "–" : md.percent(cell.shareAbove),
      num.fixed(cell.ecdfMax.mean, 4),
      text`${num.fixed(cell.ecdfMax.q25, 4)}–${num.fixed(cell.ecdfMax.q75, 4)}`,
      num.fixed(1000 * cell.ecdfMeanSquared.mean, 3),
      text`${num.fixed(1000 * cell.ecdfMeanSquared.q25, 3)}–${
        num.fixed(1000 * cell.ecdfMeanSquared.q75, 3)
      }`,
      num.fixed(cell.median.median, 4),
      text`${num.fixed(cell.median.min, 4)}–${num.fixed(cell.median.max, 4)}`,
      num.fixed(cell.medianBias, 4),
      num.fixed(cell.medianRmse, 4),
      num.fixed(cell.zeroWeightsMean, 1),
    ];
  });
  const header = [
    "synthesizer",
    "R",
    "Δ min / q25 / median / q75 / max",
    text`Δ > ${epsilon / 2}`,
    "max-ECDF mean",
    "max-ECDF IQR",
    "avg-ECDF ×10³ mean",
    "avg-ECDF ×10³ IQR",
    "median: median",
    "median: range",
    "median bias",
    "median RMSE",
    "zero α (mean)",
  ];
  return { header, rows };
}

/** The tunable synthesizers under both tunings, per ε: releases, Δ and mean max-ECDF. */
function tuningTable(result: FiveResult): ReportTable {
  const rows = result.summary.epsilons.flatMap((eps) =>
    FIVE_TUNABLE.flatMap((m) =>
      (["fixed", "calibrated"] as const).map((tuning) => {
        const cell = cellUnder(eps, m, tuning);
        const label = [
          num.plain(eps.epsilon),
          FIVE_LABELS[m],
          tuning === "fixed" ? "c = ε/5, g = 0" : "calibrated g",
        ];
        return [
          ...label,
          num.plain(cell?.replicates ?? 0),
          num.fixed(cell?.lipschitz?.median, 3),
          num.fixed(cell?.lipschitz?.max, 3),
          num.fixed(cell?.ecdfMax.mean, 4),
        ];
      })
    )
  );
  return {
    header: [
      "ε",
      "synthesizer",
      "weights",
      "released (of R)",
      "Δ median",
      "Δ max",
      "max-ECDF mean",
    ],
    rows,
  };
}

/** The values of ε index e: its heading, rankings and Weighted against the best. */
function epsilonValues(result: FiveResult, e: number): Record<string, Value> {
  const { epsilon, rankEcdfMax, rankEcdfMeanSquared } = result.summary.epsilons[e];
  return {
    [`epsilon.${e}`]: num.plain(epsilon),
    [`target.${e}`]: num.plain(epsilon / 2),
    [`rankEcdfMax.${e}`]: ranking(rankEcdfMax),
    [`rankEcdfMeanSquared.${e}`]: ranking(rankEcdfMeanSquared),
    [`weightedEcdfMax.${e}`]: weightedAgainstBest(result, e, rankEcdfMax, "max-ECDF", "ecdfMax"),
    [`weightedEcdfMeanSquared.${e}`]: weightedAgainstBest(
      result,
      e,
      rankEcdfMeanSquared,
      "avg-ECDF",
      "ecdfMeanSquared",
    ),
    [`censorRankEcdfMax.${e}`]: num.plain(rankEcdfMax.indexOf("censored-w") + 1),
    [`censorRankEcdfMeanSquared.${e}`]: num.plain(rankEcdfMeanSquared.indexOf("censored-w") + 1),
    [`ranked.${e}`]: num.plain(rankEcdfMax.length),
  };
}

/**
 * The report of the five-synthesizer study as data.
 *
 * @param result The study result (its document, if any, is ignored).
 * @returns The document `templates/five.md` renders.
 */
export function fiveDocument(result: FiveResult): Report {
  const { settings, summary } = result;
  const [a, b] = settings.shape;
  const indices = summary.epsilons.map((_, e) => e);
  return {
    verdicts: fiveVerdicts(result),
    values: {
      a: num.plain(a),
      b: num.plain(b),
      replicates: num.plain(result.replicates),
      n: num.plain(settings.n),
      seed: num.plain(result.seed),
      reference: num.plain(settings.reference),
      downscaling: num.plain(settings.downscaling),
      bins: settings.bins === null || settings.bins === undefined
        ? text`⌈n^{1/3}⌉ = ${Math.ceil(Math.cbrt(settings.n))}`
        : num.plain(settings.bins),
      analyticMedian: num.fixed(summary.analyticMedian, 6),
      dataMedian: num.fixed(summary.dataMedian.median, 4),
      dataMedianMin: num.fixed(summary.dataMedian.min, 4),
      dataMedianMax: num.fixed(summary.dataMedian.max, 4),
      ...Object.assign({}, ...indices.map((e) => epsilonValues(result, e))),
      truncation: truncationText(result),
      sampler: md.samplerParagraph(settings.sampler, summary.fits),
    },
    tables: {
      ...Object.fromEntries(indices.map((e) => [`epsilon.${e}`, epsilonTable(result, e)])),
      tuning: tuningTable(result),
    },
    figures: { downscaling: downscalingFigure(result) },
  };
}

const COLORS: Readonly<Record<FiveDownscaled, string>> = {
  "weighted-e": "#CC79A7",
  "censored-w": "#009E73",
};

/** The slides' two violins as distributions over the databases: Δ and avg-ECDF. */
export function downscalingFigure(result: FiveResult): Figure {
  const c1 = result.settings.downscaling === null
    ? "–"
    : String(result.settings.downscaling / result.settings.reference);
  const panel = (title: string, xLabel: string, value: (x: FiveEntry) => number | null): Panel => ({
    title,
    xLabel,
    yLabel: "share of databases at or below",
    series: FIVE_DOWNSCALED.flatMap((m) =>
      [false, true].map((downscaled) =>
        distributionSeries(
          `${FIVE_LABELS[m]}, c = ${downscaled ? c1 : 1}`,
          COLORS[m],
          downscalingEntries(result, m, downscaled).map((x) => x === null ? null : value(x)),
          { dashed: !downscaled },
        )
      )
    ),
  });
  return {
    title: "Fine tuning with downscaling (censoring slides)",
    panels: [
      panel("Lipschitz bound", "Δ", (x) => x.lipschitz),
      panel("avg-ECDF", "avg-ECDF ×10³", (x) => 1000 * x.ecdfMeanSquared),
    ],
    legend: FIVE_DOWNSCALED.map((m) => [FIVE_LABELS[m], COLORS[m]] as const),
    caption: `solid: downscaled, c₁ = ${c1}; dashed: c = 1 (no downscaling); released or not`,
  };
}
