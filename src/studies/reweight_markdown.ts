/**
 * The markdown report of the re-weighting study (Study 2).
 *
 * @module
 */
import * as md from "./markdown.ts";
import type { IntervalWithError, ReweightRecord, ReweightSummary } from "./reweight.ts";
import { PAPER_TABLE_1 } from "./reweight_paper.ts";
import {
  REWEIGHT_LABELS as LABELS,
  REWEIGHT_MECHANISMS,
  type ReweightMechanism,
  type ReweightSettings,
  TABLE_STATISTICS,
} from "./reweight_settings.ts";
import type { StudyResult } from "./study_runner.ts";
import {
  AGREES,
  differs,
  type VerdictRow,
  verdictTable,
  withinMonteCarloError,
} from "./verdict.ts";

type Stat = typeof TABLE_STATISTICS[number];

const STAT_LABELS: Record<Stat, string> = {
  q15: "15th quantile",
  q90: "90th quantile",
  mean: "mean",
  median: "median",
};

/** The paper's columns, and the synthesizers set against each in the verdict table. */
const PAPER_COLUMNS: readonly {
  readonly paper: "data" | "lw" | "lw-final" | "cw" | "cw-final";
  readonly ours: readonly ("data" | ReweightMechanism)[];
}[] = [
  { paper: "data", ours: ["data"] },
  { paper: "lw", ours: ["lw"] },
  { paper: "lw-final", ours: ["lw-final"] },
  { paper: "cw", ours: ["cw", "cw-g0"] },
  { paper: "cw-final", ours: ["cw-final", "cw-final-g0"] },
];

function showInterval(interval: readonly [number, number] | undefined): string {
  return interval === undefined ? "–" : `[${md.fmt(interval[0], 1)}, ${md.fmt(interval[1], 1)}]`;
}

const centre = (i: readonly [number, number]) => (i[0] + i[1]) / 2;
const width = (i: readonly [number, number]) => i[1] - i[0];

/** The verdict on one of Table 1's intervals. */
function intervalVerdict(
  ours: IntervalWithError,
  paper: readonly [number, number],
  context: string,
): string {
  const agree = [0, 1].every((e) =>
    withinMonteCarloError(ours.interval[e], paper[e], ours.errors[e], { rounding: 0.1 })
  );
  if (agree) return AGREES;
  const shift = centre(ours.interval) - centre(paper);
  return differs(
    `centre ${md.fmt(centre(ours.interval), 1)} vs ${md.fmt(centre(paper), 1)} ` +
      `(${shift >= 0 ? "+" : "−"}${md.fmt(Math.abs(shift), 1)}), width ` +
      `${md.fmt(width(ours.interval), 1)} vs ${md.fmt(width(paper), 1)}${context}`,
  );
}

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
  const { settings, summary, records } = result;
  const cell = (m: ReweightMechanism) => summary.mechanisms[m];
  const intervalOf = (column: "data" | ReweightMechanism, stat: Stat) =>
    column === "data" ? summary.data[stat] : cell(column)?.intervals[stat];
  const context = (column: "data" | ReweightMechanism): string => {
    if (column === "data") return "";
    const c = cell(column);
    if (c === null) return "";
    const g = c.g === null ? "" : `, g = ${md.fmt(c.g.median, 2)}`;
    return `; ${LABELS[column]}: Δ = ${md.fmt(c.lipschitz.median, 2)}${g}, ᾱ = ` +
      md.fmt(c.alphaMean.median, 2);
  };

  // The verdict table: every interval of Table 1, then §3.2's k.
  const rows: VerdictRow[] = [];
  for (const stat of TABLE_STATISTICS) {
    for (const { paper, ours } of PAPER_COLUMNS) {
      const printed = PAPER_TABLE_1[stat][paper]!;
      for (const column of ours) {
        const interval = intervalOf(column, stat);
        rows.push({
          quantity: `Table 1, ${STAT_LABELS[stat]}, ${
            paper === "data" ? "Data" : LABELS[paper as ReweightMechanism]
          }${column !== paper ? ` (ours: ${LABELS[column as ReweightMechanism]})` : ""}`,
          paper: showInterval(printed),
          ours: interval === undefined
            ? "–"
            : `${showInterval(interval.interval)} (se ${md.fmt(interval.errors[0], 1)}, ${
              md.fmt(interval.errors[1], 1)
            })`,
          verdict: interval === undefined
            ? differs("no replicate ran")
            : intervalVerdict(interval, printed, context(column)),
        });
      }
    }
  }
  for (const name of ["lw-final", "cw-final"] as const) {
    const c = cell(name);
    if (c === null || c.k === null) continue;
    const base = name === "lw-final" ? "lw" : "cw";
    const ratios = records.flatMap((r) => {
      const a = r.mechanisms[base];
      const b = r.mechanisms[name];
      return a === null || b === null ? [] : [b.lipschitz / a.lipschitz];
    }).sort((a, b) => a - b);
    const medianRatio = ratios.length === 0 ? NaN : ratios[Math.floor((ratios.length - 1) / 2)];
    rows.push({
      quantity: `§3.2, ${LABELS[name]}: the re-weighting constant k (Algorithm 3: k < 1)`,
      paper: "0.95",
      ours: `k = 0.95 accepted in ${c.k.paper} of ${c.replicates} databases` +
        (c.k.none > 0 ? `, none accepted in ${c.k.none}` : ""),
      verdict: c.k.paper === c.replicates ? AGREES : differs(
        `${c.replicates - c.k.paper} databases needed a smaller k or kept the ${LABELS[base]} fit`,
      ),
    });
    rows.push({
      quantity: `§3.2, ${LABELS[name]}: Δ after re-weighting "equivalent" to ${LABELS[base]}'s`,
      paper: "Δ_{α^w,x} ≈ Δ_{α,x}",
      ours: `median ratio ${md.fmt(medianRatio, 3)} (range ${md.fmt(ratios[0], 3)}–${
        md.fmt(ratios[ratios.length - 1], 3)
      })`,
      verdict: medianRatio >= 0.99 && medianRatio <= 1.01 ? AGREES : differs(
        `the re-weighted bound is ${md.fmt(100 * (1 - medianRatio), 1)}% lower in the median ` +
          "database: k = 0.95 scales the binding record's weight by 0.95 and raises the others " +
          "only up to it, so Δ falls with k (the paper prints no Δ to compare)",
      ),
    });
  }

  const shown = ["data", ...REWEIGHT_MECHANISMS] as const;
  const table = TABLE_STATISTICS.flatMap((stat) => [
    [
      `${STAT_LABELS[stat]} (ours)`,
      ...shown.map((column) => showInterval(intervalOf(column, stat)?.interval)),
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
  const compared = ["lw", "lw-final", "cw", "cw-final", "cw-g0", "cw-final-g0"] as const;
  const paperOf = (m: typeof compared[number]) =>
    m === "cw-g0" ? "cw" : m === "cw-final-g0" ? "cw-final" : m;
  const averaged = compared.map((m) =>
    widthRatio((stat) => cell(m)?.intervals[stat].interval, (stat) => summary.data[stat].interval)
  );
  const single = compared.map((m) =>
    widthRatio((stat) => cell(m)?.intervalsOneDataset[stat], (stat) => summary.data[stat].interval)
  );
  const paperRatios = compared.map((m) =>
    widthRatio((stat) => PAPER_TABLE_1[stat][paperOf(m)], (stat) => PAPER_TABLE_1[stat].data)
  );
  const ratioList = (values: readonly number[], which: readonly (typeof compared[number])[]) =>
    which.map((m) => `${md.fmt(values[compared.indexOf(m)], 2)}× (${LABELS[m]})`).join(", ");
  const paperFour = ["lw", "lw-final", "cw", "cw-final"] as const;

  const lipschitzRows = REWEIGHT_MECHANISMS.map((mechanism) => {
    const c = cell(mechanism);
    if (c === null) return [LABELS[mechanism], "–", "–", "–", "–", "–", "–", "–", "–", "–"];
    return [
      LABELS[mechanism],
      String(c.replicates),
      ...md.quantileCells(c.lipschitz, 3),
      md.fmt(c.alphaMean.median, 3),
      c.g === null ? "–" : md.medianRange(c.g, 3),
      c.k === null
        ? "–"
        : `${
          c.k.accepted === null ? "–" : md.medianRange(c.k.accepted, 4)
        } (none: ${c.k.none}; toward target: ${c.k.towardTarget})`,
    ];
  });
  const utilityRows = REWEIGHT_MECHANISMS.map((mechanism) => {
    const c = cell(mechanism);
    return c === null
      ? [LABELS[mechanism], "–", "–"]
      : [LABELS[mechanism], md.fmt(c.ecdfMax.mean, 4), md.fmt(c.ecdfMeanSquared.mean, 5)];
  });
  const ranked = REWEIGHT_MECHANISMS.filter((m) => cell(m) !== null)
    .sort((p, q) => cell(p)!.ecdfMax.mean - cell(q)!.ecdfMax.mean);
  const change = (from: ReweightMechanism, to: ReweightMechanism) => {
    const a = cell(from);
    const b = cell(to);
    return a === null || b === null
      ? `${LABELS[from]} → ${LABELS[to]}: –`
      : `${LABELS[from]} → ${LABELS[to]}: median ᾱ ${md.fmt(a.alphaMean.median, 3)} → ` +
        `${md.fmt(b.alphaMean.median, 3)}, mean max-ECDF ${md.fmt(a.ecdfMax.mean, 4)} → ` +
        `${md.fmt(b.ecdfMax.mean, 4)}, median Δ ${md.fmt(a.lipschitz.median, 3)} → ` +
        `${md.fmt(b.lipschitz.median, 3)}`;
  };
  const sw = cell("sw");
  const cw = cell("cw");
  const cw0 = cell("cw-g0");
  return md.studyDocument([
    "# Study 2: re-weighting on skewed counts (negative binomial mixture)",
    "",
    `SPEC §9.2; vector-weighted paper §3.2 and Supp 3 Table 1. R = ${result.replicates} databases ` +
    `of n = ${settings.n} draws from 0.2·NB(μ = 100, φ = 5) + 0.8·NB(μ = 100, φ = 20); negative ` +
    `binomial intercept-only synthesizer; ${settings.datasets} synthetic datasets per ` +
    "synthesizer and database, from distinct, evenly spaced posterior draws. LW and CW " +
    `calibrated (c = ${settings.c}, shift g searched) to ε = ${settings.epsilon} (Δ ≤ ${
      settings.epsilon / 2
    }); LW_final and CW_final re-weight them by Algorithm 3 (k = 0.95, the paper's, then ` +
    "0.95^j: the first k whose refit keeps Δ within 1% and under the cap); SW has one weight " +
    "α = Δ_LW/Δ_x per database; CW (g = 0) is Algorithm 2 unshifted (c = 1, g = 0, no " +
    `calibration) and CW_final (g = 0) its re-weighting. CW ball: ${
      settings.relativeRadius ? "relative" : "absolute"
    } radius ${settings.radius}. Seed ${result.seed}.`,
    "",
    "## Verdict against the paper",
    "",
    "Agreement: both endpoints within 2·√2 bootstrap standard errors of ours (the paper's " +
    "taken to carry the same Monte Carlo error) plus half the paper's rounding unit (0.05).",
    "",
    verdictTable(rows),
    "",
    "## Table 1: 95% intervals over databases of each statistic's mean over the synthetic " +
    "datasets",
    "",
    md.markdownTable(["statistic", "Data", ...REWEIGHT_MECHANISMS.map((m) => LABELS[m])], table),
    "",
    "**How the intervals are built.** The paper's Table 1 (Supp 3) gives \"95% confidence " +
    'interval[s]" without saying of what. Its Data intervals have the width of the sampling ' +
    "distribution of each statistic for n = 1000 (ours across databases: the same), and every " +
    "synthesizer interval is narrower than the Data interval: on average " +
    `${ratioList(paperRatios, paperFour)} as wide. An interval over the statistic of one ` +
    "synthetic dataset per database (or over the synthetic datasets of one fit) carries the " +
    "database's, the posterior draw's and the synthetic sampling's variation and cannot be " +
    `narrower than Data's; measured here it is ${ratioList(single, paperFour)} as wide. ` +
    "Averaging each statistic over many synthetic datasets per database removes the last two, " +
    `leaving the database-to-database variation of the synthesizer: ${
      ratioList(averaged, paperFour)
    } as wide, the paper's pattern (every ratio near or below 1; CW, whose down-weighted tails ` +
    "make its posterior predictive a robust, less variable summary, the narrowest). Table 1 " +
    `above uses that construction with ${settings.datasets} datasets; the one-dataset intervals ` +
    "are in the JSON (`intervalsOneDataset`).",
    "",
    "**CW's distortion.** The paper's CW pulls the 15th percentile up to [77.2, 80.8] and the " +
    "90th down to [128.5, 134.0]: its synthetic data are narrower than the data. Our CW, " +
    `calibrated to the common Δ ≤ ${settings.epsilon / 2}, needs a shift g = ${
      md.fmt(cw?.g?.median, 2)
    } (median ᾱ ${md.fmt(cw?.alphaMean.median, 2)}) and distorts little; the unshifted rule ` +
    `(g = 0, median ᾱ ${md.fmt(cw0?.alphaMean.median, 2)}) reproduces the distortion but at ` +
    `median Δ = ${md.fmt(cw0?.lipschitz.median, 2)}, far below LW's. The paper prints neither ` +
    "CW's Δ nor its radius, so which (radius, g) it ran cannot be recovered; the two CW columns " +
    "bracket it.",
    "",
    `**Re-weighting.** ${change("lw", "lw-final")}; ${change("cw", "cw-final")}; ${
      change("cw-g0", "cw-final-g0")
    }. Utility ranking by mean max-ECDF (best first): ${ranked.map((m) => LABELS[m]).join(" < ")}.`,
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
        "k: median [min, max]",
      ],
      lipschitzRows,
    ),
    "",
    `Unweighted Δ_x: median ${md.fmt(summary.unweightedLipschitz.median, 3)}, range ` +
    `[${md.fmt(summary.unweightedLipschitz.min, 3)}, ${
      md.fmt(summary.unweightedLipschitz.max, 3)
    }].`,
    "",
    "## ECDF utility (mean over databases of the mean over synthetic datasets)",
    "",
    md.markdownTable(["synthesizer", "max \\|F − F*\\|", "mean (F − F*)²"], utilityRows),
    "",
    "## Choices",
    "",
    `- **Common target ε = ${settings.epsilon}** (Δ = ${
      settings.epsilon / 2
    }): the paper does not ` +
    "print the ε of its §3.2 run; its Supp 5 reports LW on this mixture contracting around the " +
    "global Δ_α = 6, where the unshifted LW rule lands (calibrated g: median " +
    `${md.fmt(cell("lw")?.g?.median, 3)}).`,
    `- **Synthetic datasets**: ${settings.datasets} per synthesizer and database (the paper ` +
    "does not print how many; the widths above need many for the synthesis noise to average " +
    "out). The ECDF measures are averaged over them too.",
    "- **Re-weighting** (`docs/decisions.md`): k = 0.95^j, j = 1..8 (k < 1, the paper's 0.95 " +
    "first); when no shift reaches the target, LW_final/CW_final re-weight toward it " +
    '("re-weight toward the target", an extension of Algorithm 3; used in ' +
    `${cell("lw-final")?.k?.towardTarget ?? 0} and ${
      cell("cw-final")?.k?.towardTarget ?? 0
    } databases here); SW lowers its scalar by 0.99·Δ*/Δ in up to four extra rounds when its ` +
    `refit lands above LW's Δ (SW used a median of ${md.fmt(sw?.fits.median, 0)} fits, the ` +
    "unweighted one included).",
    md.samplerParagraph(settings.sampler, summary.fits),
  ], footer);
}
