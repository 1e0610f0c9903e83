/**
 * The report of the five-synthesizer study (Study 3, SPEC §9.3) as data: the design's values, a
 * table and the utility rankings per ε (named by ε index), and the verdicts against the JSM
 * censoring slides (`five_verdicts.ts`). Its prose is `templates/five.md`.
 *
 * @module
 */
import { FIVE_LABELS, FIVE_MECHANISMS, FIVE_TUNABLE, type FiveMechanism } from "./five_settings.ts";
import {
  cellUnder,
  downscalingFigure,
  fiveVerdicts,
  truncationText,
  weightedAgainstBest,
} from "./five_verdicts.ts";
import type { FiveResult } from "./five_result.ts";
import type { StudyDocument, Table } from "./study_document.ts";
import * as md from "./markdown.ts";

/** Synthesizers from best to worst: "Censor w < Weighted < …". */
const ranking = (rank: readonly FiveMechanism[]) => rank.map((m) => FIVE_LABELS[m]).join(" < ");

/** The table of ε index e: Δ, utility and the synthetic median per synthesizer. */
function epsilonTable(result: FiveResult, e: number): Table {
  const { epsilon, mechanisms } = result.summary.epsilons[e];
  const rows = FIVE_MECHANISMS.map((mechanism) => {
    const cell = mechanisms[mechanism];
    if (cell === null) return [FIVE_LABELS[mechanism], "0", ...Array(11).fill("–")];
    const l = cell.lipschitz;
    return [
      FIVE_LABELS[mechanism],
      String(cell.replicates),
      l === null ? "–" : md.quantileCells(l, 3).join(" / "),
      cell.shareAbove === null ? "–" : md.percent(cell.shareAbove),
      md.fmt(cell.ecdfMax.mean, 4),
      `${md.fmt(cell.ecdfMax.q25, 4)}–${md.fmt(cell.ecdfMax.q75, 4)}`,
      md.fmt(1000 * cell.ecdfMeanSquared.mean, 3),
      `${md.fmt(1000 * cell.ecdfMeanSquared.q25, 3)}–${md.fmt(1000 * cell.ecdfMeanSquared.q75, 3)}`,
      md.fmt(cell.median.median, 4),
      `${md.fmt(cell.median.min, 4)}–${md.fmt(cell.median.max, 4)}`,
      md.fmt(cell.medianBias, 4),
      md.fmt(cell.medianRmse, 4),
      md.fmt(cell.zeroWeightsMean, 1),
    ];
  });
  const header = [
    "synthesizer",
    "R",
    "Δ min / q25 / median / q75 / max",
    `Δ > ${epsilon / 2}`,
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
function tuningTable(result: FiveResult): Table {
  const rows = result.summary.epsilons.flatMap((eps) =>
    FIVE_TUNABLE.flatMap((m) =>
      (["fixed", "calibrated"] as const).map((tuning) => {
        const cell = cellUnder(eps, m, tuning);
        const label = [
          String(eps.epsilon),
          FIVE_LABELS[m],
          tuning === "fixed" ? "c = ε/5, g = 0" : "calibrated g",
        ];
        return [
          ...label,
          String(cell?.replicates ?? 0),
          md.fmt(cell?.lipschitz?.median, 3),
          md.fmt(cell?.lipschitz?.max, 3),
          md.fmt(cell?.ecdfMax.mean, 4),
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
function epsilonValues(result: FiveResult, e: number): Record<string, string> {
  const { epsilon, rankEcdfMax, rankEcdfMeanSquared } = result.summary.epsilons[e];
  return {
    [`epsilon.${e}`]: String(epsilon),
    [`target.${e}`]: String(epsilon / 2),
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
    [`censorRankEcdfMax.${e}`]: String(rankEcdfMax.indexOf("censored-w") + 1),
    [`censorRankEcdfMeanSquared.${e}`]: String(rankEcdfMeanSquared.indexOf("censored-w") + 1),
    [`ranked.${e}`]: String(rankEcdfMax.length),
  };
}

/**
 * The report of the five-synthesizer study as data.
 *
 * @param result The study result (its document, if any, is ignored).
 * @returns The document `templates/five.md` renders.
 */
export function fiveDocument(result: FiveResult): StudyDocument {
  const { settings, summary } = result;
  const [a, b] = settings.shape;
  const indices = summary.epsilons.map((_, e) => e);
  return {
    verdicts: fiveVerdicts(result),
    values: {
      a: String(a),
      b: String(b),
      replicates: String(result.replicates),
      n: String(settings.n),
      seed: String(result.seed),
      reference: String(settings.reference),
      downscaling: String(settings.downscaling ?? "–"),
      bins: String(settings.bins ?? `⌈n^{1/3}⌉ = ${Math.ceil(Math.cbrt(settings.n))}`),
      analyticMedian: md.fmt(summary.analyticMedian, 6),
      dataMedian: md.fmt(summary.dataMedian.median, 4),
      dataMedianMin: md.fmt(summary.dataMedian.min, 4),
      dataMedianMax: md.fmt(summary.dataMedian.max, 4),
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
