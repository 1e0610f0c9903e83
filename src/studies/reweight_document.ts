/**
 * The report of the re-weighting study (Study 2; vector-weighted paper §3.2 and Supp 3 Table 1)
 * as data: its values, tables, figures (the paper's Figures 1–2 and Supp Figure 14) and verdicts,
 * placed by `templates/reweight.md`.
 *
 * @module
 */
import {
  PAPER_TABLE_1,
  reweightVerdicts,
  showInterval,
  type Stat,
  STAT_LABELS,
} from "./reweight_verdicts.ts";
import {
  FIGURE_MECHANISMS,
  type FigureMechanism,
  REWEIGHT_LABELS as LABELS,
  REWEIGHT_MECHANISMS,
  type ReweightMechanism,
  type ReweightRecord,
  type ReweightResult,
  type ReweightSummary,
  TABLE_STATISTICS,
} from "./reweight_settings.ts";
import type { Report, ReportTable, Value } from "./study_document.ts";
import { cat, joined, num, text } from "./study_document.ts";
import { distributionSeries, type Figure, type Series } from "../report/figure.ts";
import * as md from "./markdown.ts";

/** The synthesizers whose interval widths are compared with Data's. */
const COMPARED = ["lw", "lw-final", "cw", "cw-final", "cw-g0", "cw-final-g0"] as const;
type Compared = typeof COMPARED[number];

/** The four of {@linkcode COMPARED} the paper prints. */
const PAPER_FOUR = ["lw", "lw-final", "cw", "cw-final"] as const;

const width = (i: readonly [number, number]) => i[1] - i[0];

/** Mean over the four statistics of (interval width)/(Data interval width). */
function widthRatio(
  intervals: (stat: Stat) => readonly [number, number] | undefined,
  data: (stat: Stat) => readonly [number, number],
): number {
  const ratios = TABLE_STATISTICS.map((stat) => {
    const interval = intervals(stat);
    return interval === undefined ? NaN : width(interval) / width(data(stat));
  });
  return ratios.reduce((a, b) => a + b, 0) / ratios.length;
}

/** Table 1: each statistic's median-database interval, ours then the paper's. */
function table1(result: ReweightResult): ReportTable {
  const { summary } = result;
  const shown = ["data", ...REWEIGHT_MECHANISMS] as const;
  const rows = TABLE_STATISTICS.flatMap((stat) => [
    [
      `${STAT_LABELS[stat]} (ours)`,
      ...shown.map((column) => {
        const ours = column === "data"
          ? summary.dataBootstrap[stat]
          : summary.mechanisms[column]?.bootstrap[stat];
        return ours === undefined ? "–" : showInterval([ours.lower[1], ours.upper[1]]);
      }),
    ],
    [
      `${STAT_LABELS[stat]} (paper)`,
      ...shown.map((column) =>
        showInterval(
          column === "cw-g0" || column === "cw-final-g0"
            ? undefined
            : PAPER_TABLE_1[stat][column as "data"],
        )
      ),
    ],
  ]);
  return { header: ["statistic", "Data", ...REWEIGHT_MECHANISMS.map((m) => LABELS[m])], rows };
}

/** The three readings of Table 1's "95% confidence intervals" (§3.2, Supp 3). */
function readings(result: ReweightResult): Record<string, Value> {
  const { summary } = result;
  const cell = (m: ReweightMechanism) => summary.mechanisms[m];
  const dataInterval = (stat: Stat) => summary.data[stat].interval;
  const paperOf = (m: Compared) => m === "cw-g0" ? "cw" : m === "cw-final-g0" ? "cw-final" : m;
  const ratios: Record<string, readonly number[]> = {
    single: COMPARED.map((m) =>
      widthRatio((stat) => cell(m)?.intervalsOneDataset[stat], dataInterval)
    ),
    averaged: COMPARED.map((m) =>
      widthRatio((stat) => cell(m)?.intervals[stat].interval, dataInterval)
    ),
    bootstrap: COMPARED.map((m) => {
      const c = cell(m);
      return c === null
        ? NaN
        : TABLE_STATISTICS.reduce((t, stat) => t + c.bootstrap[stat].widthRatio, 0) / 4;
    }),
    paper: COMPARED.map((m) =>
      widthRatio((stat) => PAPER_TABLE_1[stat][paperOf(m)], (stat) => PAPER_TABLE_1[stat].data)
    ),
  };
  const ratioList = (values: readonly number[]) =>
    joined(
      PAPER_FOUR.map((m) => text`${num.fixed(values[COMPARED.indexOf(m)], 2)}× (${LABELS[m]})`),
      ", ",
    );
  // The paper's Data endpoints, read as 2.5%/97.5% quantiles over 100 databases: z-scores.
  const dataZ = TABLE_STATISTICS.map((stat) =>
    [0, 1].map((e) => {
      const ours = summary.data[stat];
      return (PAPER_TABLE_1[stat].data![e] - ours.interval[e]) / Math.max(ours.errors[e], 1e-9);
    })
  );
  const maxZ = Math.max(...dataZ.flat().map(Math.abs));
  const dataInside = TABLE_STATISTICS.every((stat) => {
    const ours = summary.dataBootstrap[stat];
    const [lo, hi] = PAPER_TABLE_1[stat].data!;
    return lo >= ours.lower[0] - 0.05 && lo <= ours.lower[2] + 0.05 &&
      hi >= ours.upper[0] - 0.05 && hi <= ours.upper[2] + 0.05;
  });
  return {
    singleRatios: ratioList(ratios.single),
    paperRatios: ratioList(ratios.paper),
    averagedRatios: ratioList(ratios.averaged),
    bootstrapRatios: ratioList(ratios.bootstrap),
    dataZ: joined(
      TABLE_STATISTICS.map((stat, i) =>
        text`${num.fixed(dataZ[i][0], 1)} and ${num.fixed(dataZ[i][1], 1)} (${STAT_LABELS[stat]})`
      ),
      ", ",
    ),
    dataZVerdict: maxZ > 2.5
      ? text`: up to ${num.fixed(maxZ, 1)}, too far for the same generator and R`
      : ", within Monte Carlo error",
    dataInside: dataInside ? "all inside" : "not all inside",
    onlyReading: dataInside && maxZ > 2.5
      ? ", and the only one of the three under which the paper's Data column is a draw of the " +
        "same generator's. Its "
      : ". Its ",
  };
}

/** The Lipschitz bounds, ᾱ, g and k of each synthesizer. */
function lipschitzTable(summary: ReweightSummary): ReportTable {
  const rows = REWEIGHT_MECHANISMS.map((mechanism) => {
    const c = summary.mechanisms[mechanism];
    if (c === null) return [LABELS[mechanism], "–", "–", "–", "–", "–", "–", "–", "–", "–"];
    const k = c.k === null
      ? "–"
      : text`${
        c.k.accepted === null ? "–" : md.medianRange(c.k.accepted, 4)
      } (none: ${c.k.none}; toward target: ${c.k.towardTarget})`;
    return [
      LABELS[mechanism],
      num.plain(c.replicates),
      ...md.quantileCells(c.lipschitz, 3),
      num.fixed(c.alphaMean.median, 3),
      c.g === null ? "–" : md.medianRange(c.g, 3),
      k,
    ];
  });
  const header = ["synthesizer", "replicates", "min", "q25", "median", "q75", "max", "median ᾱ"];
  return { header: [...header, "g: median [min, max]", "k: median [min, max]"], rows };
}

/** The ECDF utility of each synthesizer. */
function utilityTable(summary: ReweightSummary): ReportTable {
  const rows = REWEIGHT_MECHANISMS.map((mechanism) => {
    const c = summary.mechanisms[mechanism];
    return c === null
      ? [LABELS[mechanism], "–", "–"]
      : [LABELS[mechanism], num.fixed(c.ecdfMax.mean, 4), num.fixed(c.ecdfMeanSquared.mean, 5)];
  });
  return { header: ["synthesizer", "max \\|F − F*\\|", "mean (F − F*)²"], rows };
}

/** What re-weighting changes (§3.2, Algorithm 3), and the utility ranking. */
function reweighting(summary: ReweightSummary): Record<string, Value> {
  const cell = (m: ReweightMechanism) => summary.mechanisms[m];
  const change = (from: ReweightMechanism, to: ReweightMechanism) => {
    const [a, b] = [cell(from), cell(to)];
    const arrow = (x: number, y: number, digits: number) =>
      text`${num.fixed(x, digits)} → ${num.fixed(y, digits)}`;
    return a === null || b === null ? `${LABELS[from]} → ${LABELS[to]}: –` : cat(
      `${LABELS[from]} → ${LABELS[to]}: median ᾱ `,
      text`${arrow(a.alphaMean.median, b.alphaMean.median, 3)}, mean max-ECDF `,
      text`${arrow(a.ecdfMax.mean, b.ecdfMax.mean, 4)}, median Δ `,
      arrow(a.lipschitz.median, b.lipschitz.median, 3),
    );
  };
  const ranked = REWEIGHT_MECHANISMS.filter((m) => cell(m) !== null)
    .sort((p, q) => cell(p)!.ecdfMax.mean - cell(q)!.ecdfMax.mean);
  return {
    changes: joined(
      [change("lw", "lw-final"), change("cw", "cw-final"), change("cw-g0", "cw-final-g0")],
      "; ",
    ),
    ranking: ranked.map((m) => LABELS[m]).join(" < "),
  };
}

/**
 * The report of the re-weighting study as data.
 *
 * @param result The study result (its document, if any, is ignored).
 * @returns The document `templates/reweight.md` places.
 */
export function reweightDocument(result: ReweightResult): Report {
  const { settings, summary } = result;
  const cell = (m: ReweightMechanism) => summary.mechanisms[m];
  const [cw, cw0] = [cell("cw"), cell("cw-g0")];
  const unweighted = summary.unweightedLipschitz;
  return {
    verdicts: reweightVerdicts(result),
    values: {
      replicates: num.plain(result.replicates),
      n: num.plain(settings.n),
      datasets: num.plain(settings.datasets),
      c: num.plain(settings.c),
      epsilon: num.plain(settings.epsilon),
      delta: num.plain(settings.epsilon / 2),
      ball: settings.relativeRadius ? "relative" : "absolute",
      radius: num.plain(settings.radius),
      seed: num.plain(result.seed),
      bootstrap: num.plain(settings.bootstrap),
      ...readings(result),
      cwG: num.fixed(cw?.g?.median, 2),
      cwAlpha: num.fixed(cw?.alphaMean.median, 2),
      cwG0Alpha: num.fixed(cw0?.alphaMean.median, 2),
      cwG0Lipschitz: num.fixed(cw0?.lipschitz.median, 2),
      ...reweighting(summary),
      unweightedMedian: num.fixed(unweighted.median, 3),
      unweightedMin: num.fixed(unweighted.min, 3),
      unweightedMax: num.fixed(unweighted.max, 3),
      lwG: num.fixed(cell("lw")?.g?.median, 3),
      towardLw: num.plain(cell("lw-final")?.k?.towardTarget ?? 0),
      towardCw: num.plain(cell("cw-final")?.k?.towardTarget ?? 0),
      swFits: num.fixed(cell("sw")?.fits.median, 0),
      sampler: md.samplerParagraph(settings.sampler, summary.fits),
    },
    tables: {
      table1: table1(result),
      lipschitz: lipschitzTable(summary),
      utility: utilityTable(summary),
    },
    figures: {
      recordBounds: recordBoundsFigure(result.records[0]),
      weightEfficiency: weightEfficiencyFigure(result.records[0]),
      estimands: estimandsFigure(result.records),
    },
  };
}

/** Each figure synthesizer's colour (Okabe–Ito). */
const COLORS: Readonly<Record<FigureMechanism, string>> = {
  unweighted: "#000000",
  lw: "#D55E00",
  cw: "#0072B2",
  sw: "#009E73",
};

/** Figure 1: the share of records with Δ_{α,x_i} ≤ x, one line per synthesizer. */
export function recordBoundsFigure(first: ReweightRecord | undefined): Figure {
  const levels = first?.recordLevel ?? {};
  const shown = FIGURE_MECHANISMS.filter((m) => levels[m] !== undefined);
  const series: Series[] = shown.map((m) => ({
    label: LABELS[m],
    color: COLORS[m],
    marks: false,
    points: levels[m]!.quantiles.map((x, p) => [x, p / 100] as const),
  }));
  return {
    title: "Record-level Lipschitz bounds on the first database (vector-weighted paper, Figure 1)",
    panels: [{
      title: "Record-level bounds, database 1",
      xLabel: "Δ_{α,x_i}",
      yLabel: "share of records at or below",
      series,
    }],
    legend: shown.map((m) => [LABELS[m], COLORS[m]] as const),
  };
}

/** Figure 2: Δ_{α,x_i} against α_i for LW and CW, the overall bound dashed. */
export function weightEfficiencyFigure(first: ReweightRecord | undefined): Figure {
  const levels = first?.recordLevel ?? {};
  const panel = (m: "lw" | "cw") => {
    const level = levels[m];
    const top = level === undefined ? NaN : level.quantiles[level.quantiles.length - 1];
    return {
      title: LABELS[m],
      xLabel: "weight α_i",
      yLabel: "Δ_{α,x_i}",
      series: level === undefined ? [] : [
        { label: LABELS[m], color: COLORS[m], line: false, points: level.pairs },
        {
          label: "overall Δ_{α,x}",
          color: "#CC0000",
          dashed: true,
          marks: false,
          points: [[0, top], [1, top]] as const,
        },
      ],
    };
  };
  return {
    title: "Record-level bounds against weights, LW and CW (vector-weighted paper, Figure 2)",
    panels: [panel("lw"), panel("cw")],
    legend: [[LABELS.lw, COLORS.lw], [LABELS.cw, COLORS.cw], ["overall Δ_{α,x}", "#CC0000"]],
    caption: "every fifth record of database 1; dashed: the overall bound Δ_{α,x}",
  };
}

/** The synthesizers of the supplement's Figure 14, beside the confidential data. */
const ESTIMAND_SERIES = [
  ["data", "Data", "#000000"],
  ["unweighted", "Unweighted", "#999999"],
  ["lw", "LW", "#D55E00"],
  ["lw-final", "LW_final", "#0072B2"],
] as const;

/**
 * The supplement's Figure 14 (Supp 5; violins there): each statistic of the confidential data
 * and of each synthesizer's synthetic data (averaged over its datasets), as its distribution over
 * the databases.
 */
export function estimandsFigure(records: readonly ReweightRecord[]): Figure {
  const panel = (stat: "mean" | "median" | "q15" | "q90", title: string) => ({
    title,
    xLabel: "value",
    yLabel: "share of databases at or below",
    series: ESTIMAND_SERIES.map(([key, label, color]) =>
      distributionSeries(
        label,
        color,
        records.map((r) => key === "data" ? r.data[stat] : r.mechanisms[key]?.synthetic[stat]),
      )
    ),
  });
  return {
    title:
      "Estimands of the confidential and synthetic data over the databases (Supp 5, Figure 14)",
    panels: [
      panel("mean", "Mean"),
      panel("median", "Median"),
      panel("q15", "15th quantile"),
      panel("q90", "90th quantile"),
    ],
    legend: ESTIMAND_SERIES.map(([, label, color]) => [label, color] as const),
    caption: "each synthesizer's statistic averaged over its synthetic datasets, one per database",
  };
}
