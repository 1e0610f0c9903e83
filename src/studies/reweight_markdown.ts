/**
 * The markdown report of the re-weighting study (Study 2).
 *
 * @module
 */
import * as md from "./markdown.ts";
import type { ReweightRecord, ReweightSummary } from "./reweight.ts";
import { PAPER_TABLE_1 } from "./reweight_paper.ts";
import {
  REWEIGHT_MECHANISMS,
  type ReweightMechanism,
  type ReweightSettings,
  TABLE_STATISTICS,
} from "./reweight_settings.ts";
import type { StudyResult } from "./study_runner.ts";

const LABELS: Record<ReweightMechanism, string> = {
  unweighted: "Unweighted",
  lw: "LW",
  "lw-final": "LW_final",
  cw: "CW",
  "cw-final": "CW_final",
  sw: "SW",
};

const STAT_LABELS: Record<typeof TABLE_STATISTICS[number], string> = {
  q15: "15th quantile",
  q90: "90th quantile",
  mean: "mean",
  median: "median",
};

function showInterval(interval: readonly [number, number] | undefined): string {
  return interval === undefined ? "–" : `[${md.fmt(interval[0], 1)}, ${md.fmt(interval[1], 1)}]`;
}

/**
 * The markdown report of the re-weighting study.
 *
 * @param result The study result.
 * @param footer Machine-dependent lines (wall time).
 */
export function reweightMarkdown(
  result: StudyResult<ReweightSettings, ReweightRecord, ReweightSummary>,
  footer: string,
): string {
  const { settings, summary } = result;
  const columns = ["data", ...REWEIGHT_MECHANISMS] as const;
  const table = TABLE_STATISTICS.flatMap((stat) => [
    [
      `${STAT_LABELS[stat]} (ours)`,
      ...columns.map((column) =>
        column === "data"
          ? showInterval(summary.data[stat])
          : showInterval(summary.mechanisms[column]?.intervals[stat])
      ),
    ],
    [
      `${STAT_LABELS[stat]} (paper)`,
      ...columns.map((column) => showInterval(PAPER_TABLE_1[stat][column])),
    ],
  ]);
  const lipschitzRows = REWEIGHT_MECHANISMS.map((mechanism) => {
    const cell = summary.mechanisms[mechanism];
    if (cell === null) return [LABELS[mechanism], "–", "–", "–", "–", "–", "–", "–", "–", "–"];
    return [
      LABELS[mechanism],
      String(cell.replicates),
      ...md.quantileCells(cell.lipschitz, 3),
      md.fmt(cell.alphaMean.median, 3),
      cell.g === null ? "–" : md.medianRange(cell.g, 3),
      cell.k === null
        ? "–"
        : `${
          cell.k.accepted === null ? "–" : md.fmt(cell.k.accepted.median, 4)
        } (none: ${cell.k.none})`,
    ];
  });
  const utilityRows = REWEIGHT_MECHANISMS.map((mechanism) => {
    const cell = summary.mechanisms[mechanism];
    return cell === null
      ? [LABELS[mechanism], "–", "–"]
      : [LABELS[mechanism], md.fmt(cell.ecdfMax.mean, 4), md.fmt(cell.ecdfMeanSquared.mean, 5)];
  });
  const width = (interval: readonly [number, number]) => interval[1] - interval[0];
  /** Mean over the four statistics of (synthesizer interval width)/(Data interval width). */
  const widthRatio = (
    intervals: (stat: typeof TABLE_STATISTICS[number]) => readonly [number, number] | undefined,
    data: (stat: typeof TABLE_STATISTICS[number]) => readonly [number, number],
  ) => {
    const ratios = TABLE_STATISTICS.map((stat) => {
      const interval = intervals(stat);
      return interval === undefined ? NaN : width(interval) / width(data(stat));
    });
    return ratios.reduce((a, b) => a + b, 0) / ratios.length;
  };
  const paperMechanisms = ["lw", "lw-final", "cw", "cw-final"] as const;
  const ours = paperMechanisms.map((m) =>
    widthRatio((stat) => summary.mechanisms[m]?.intervals[stat], (stat) => summary.data[stat])
  );
  const paper = paperMechanisms.map((m) =>
    widthRatio((stat) => PAPER_TABLE_1[stat][m], (stat) => PAPER_TABLE_1[stat].data)
  );
  const ranked = REWEIGHT_MECHANISMS.filter((m) => summary.mechanisms[m] !== null)
    .sort((p, q) => summary.mechanisms[p]!.ecdfMax.mean - summary.mechanisms[q]!.ecdfMax.mean);
  const change = (from: ReweightMechanism, to: ReweightMechanism) => {
    const a = summary.mechanisms[from];
    const b = summary.mechanisms[to];
    return a === null || b === null
      ? `${LABELS[from]} → ${LABELS[to]}: –`
      : `${LABELS[from]} → ${LABELS[to]}: median ᾱ ${md.fmt(a.alphaMean.median, 3)} → ` +
        `${md.fmt(b.alphaMean.median, 3)}, mean max-ECDF ${md.fmt(a.ecdfMax.mean, 4)} → ` +
        `${md.fmt(b.ecdfMax.mean, 4)}, median Δ ${md.fmt(a.lipschitz.median, 3)} → ` +
        `${md.fmt(b.lipschitz.median, 3)}`;
  };
  return md.studyDocument([
    "# Study 2: re-weighting on skewed counts (negative binomial mixture)",
    "",
    `SPEC §9.2; vector-weighted paper §3.2 and Supp 3 Table 1. R = ${result.replicates} databases ` +
    `of n = ${settings.n} draws from 0.2·NB(μ = 100, φ = 5) + 0.8·NB(μ = 100, φ = 20); negative ` +
    "binomial intercept-only synthesizer; one synthetic dataset per synthesizer and replicate " +
    `(m = 1). LW and CW calibrated (c = ${settings.c}, shift g searched) to ε = ${settings.epsilon} ` +
    `(Δ ≤ ${
      settings.epsilon / 2
    }); LW_final and CW_final re-weight them (k = 0.95^j, the first k ` +
    "whose refit keeps Δ within 1% and under the cap); SW has one weight α = Δ_LW/Δ_x per " +
    `database. CW ball: ${settings.relativeRadius ? "relative" : "absolute"} radius ` +
    `${settings.radius}. Seed ${result.seed}.`,
    "",
    "## Table 1: 95% intervals over replicates (2.5% and 97.5% quantiles)",
    "",
    md.markdownTable(["statistic", "Data", ...REWEIGHT_MECHANISMS.map((m) => LABELS[m])], table),
    "",
    "The paper's Table 1 has no Unweighted or SW column. It reports the data median interval " +
    "[96.0, 101.0], LW [95.6, 99.7] → LW_final [96.0, 100.0] and CW [98.7, 102.4] → CW_final " +
    "[96.1, 100.1]: re-weighting moves CW's intervals back over the data's, LW's less.",
    "",
    "**Interval widths.** Over the four statistics, our synthesizer intervals are on average " +
    `${
      paperMechanisms.map((m, i) => `${md.fmt(ours[i], 2)}× (${LABELS[m]})`).join(", ")
    } as wide ` +
    "as our Data interval; the paper's are " +
    `${paperMechanisms.map((m, i) => `${md.fmt(paper[i], 2)}× (${LABELS[m]})`).join(", ")} as ` +
    "wide as its Data interval. Ours hold the database-to-database variation (as Data does) " +
    "plus the synthesis variation of one posterior draw and one synthetic dataset of n " +
    "records, so one expects them to be wider than Data's; the paper's being narrower suggests " +
    "that its intervals leave out a source of variation (for instance by averaging several " +
    "synthetic datasets per database), which the Table 1 text does not say. Compare centres " +
    "and shifts rather than widths.",
    "",
    `**Re-weighting.** ${change("lw", "lw-final")}; ${change("cw", "cw-final")}. ` +
    `Utility ranking by mean max-ECDF (best first): ${ranked.map((m) => LABELS[m]).join(" < ")}.`,
    "",
    "## Lipschitz bounds Δ_{α,x} per synthesizer",
    "",
    md.markdownTable(
      [
        "synthesizer",
        "replicates",
        "min",
        "q25",
        "median",
        "q75",
        "max",
        "median ᾱ",
        "g: median [min, max]",
        "k: median (none accepted)",
      ],
      lipschitzRows,
    ),
    "",
    `Unweighted Δ_x: median ${md.fmt(summary.unweightedLipschitz.median, 3)}, range ` +
    `[${md.fmt(summary.unweightedLipschitz.min, 3)}, ${
      md.fmt(summary.unweightedLipschitz.max, 3)
    }].`,
    "",
    "## ECDF utility (mean over replicates)",
    "",
    md.markdownTable(["synthesizer", "max |F − F*|", "mean (F − F*)²"], utilityRows),
    "",
    "## Choices",
    "",
    `- **Common target ε = ${settings.epsilon}** (Δ = ${
      settings.epsilon / 2
    }): the paper does not ` +
    "print the ε of its §3.2 run; its Supp 5 reports LW on this mixture contracting around the " +
    "global Δ_α = 6, so that is where the paper's LW sits on these data.",
    md.samplerParagraph(settings.sampler, summary.fits),
  ], footer);
}
