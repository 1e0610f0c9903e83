/**
 * The report of the contraction study (Study 1, SPEC §9.1; Supp 5; JSM 2024 slides) as data: the
 * verdicts (`contraction_verdicts.ts`), then per generator and n the distribution of the local
 * bounds under each rule, and the estimands figure, filled into `templates/contraction.md`.
 *
 * @module
 */
import {
  CONTRACTION_LABELS,
  CONTRACTION_RULES,
  type ContractionGeneratorSummary,
  type ContractionRecord,
  type ContractionRule,
  type ContractionSettings,
  type ContractionSummary,
  GENERATOR_LABELS,
} from "./contraction_settings.ts";
import { chain, contractionVerdicts, shareCell } from "./contraction_verdicts.ts";
import { percent } from "./markdown.ts";
import { distributionSeries, type Figure, type Panel } from "../report/figure.ts";
import type { Report, ReportTable, Value } from "./study_document.ts";
import { cat, joined, num, text } from "./study_document.ts";
import type { TotalFitStats } from "./study_runner.ts";
import type { StudyResult } from "./study.ts";

/** The paragraph on LW_final, placed when LW_final ran at every n on the Poisson data. */
export const CHOSEN_RULE = "**The chosen rule.** LW_final (LW calibrated to Δ_α, then " +
  'Algorithm 3) is the supplement\'s "LW synthesizer and re-weighting strategy" with the hand ' +
  "tuning of (c, g) replaced by the project's calibration. It cannot exceed Δ_α (calibration " +
  "stops under it and Algorithm 3 accepts no k whose refit does), so P(Δ > Δ_α) = 0 at every n " +
  "by construction; what n changes is how tightly the bounds gather under Δ_α, which the 95th " +
  "percentile and max − min lines below measure. The fixed rule, the same (c, g) on every " +
  "database, drifts upwards with n for the reason given under each generator; it is what " +
  "Weighted-e truncates.";

/** The fit counts of the "Fits" and "Sampler" lines, their names prefixed with `prefix`. */
function fitValues(prefix: string, fits: TotalFitStats) {
  return {
    [`${prefix}fits`]: num.plain(fits.fits),
    [`${prefix}flagged`]: num.plain(fits.flagged),
    [`${prefix}flaggedPercent`]: num.fixed(100 * fits.flaggedShare, 1),
    [`${prefix}flaggedLikelihood`]: num.plain(fits.flaggedLikelihood),
    [`${prefix}flaggedLikelihoodPercent`]: num.fixed(100 * fits.flaggedLikelihoodShare, 1),
    [`${prefix}divergences`]: num.plain(fits.divergences),
  };
}

/** The per-n table of one generator: Δ's share above Δ_α and quantiles under each rule. */
function sizeTable(generator: ContractionGeneratorSummary): ReportTable {
  const rows = generator.sizes.flatMap((size) =>
    CONTRACTION_RULES.map((rule) => {
      const cell = size.rules[rule];
      const n = num.plain(size.n);
      if (cell === null) return [n, CONTRACTION_LABELS[rule], ...Array<Value>(11).fill("–")];
      return [
        n,
        CONTRACTION_LABELS[rule],
        num.plain(cell.replicates),
        shareCell(cell),
        num.fixed(cell.q05, 3),
        num.fixed(cell.lipschitz.q25, 3),
        num.fixed(cell.lipschitz.median, 3),
        num.fixed(cell.lipschitz.q75, 3),
        num.fixed(cell.q95, 3),
        num.fixed(cell.lipschitz.max, 3),
        num.fixed(cell.spread, 3),
        num.fixed(cell.muMean.median, 2),
        text`${num.fixed(cell.zeroWeights.median, 0)} (${num.fixed(cell.zeroWeights.max, 0)})`,
      ];
    })
  );
  const header = [
    "n",
    "rule",
    "R",
    `P(Δ > ${generator.global}) [95%]`,
    "q05",
    "q25",
    "median",
    "q75",
    "q95",
    "max",
    "max − min",
    "median E[μ]",
    "zero α: median (max)",
  ];
  return { header, rows };
}

/** The fixed rule's bound beside its formula f_max²/(4(f_max − f_min)), per n. */
function fixedTable(generator: ContractionGeneratorSummary): ReportTable {
  return {
    header: [
      "n",
      "f_min (median)",
      "f_max = Δ_x (median)",
      "f_max²/(4(f_max − f_min)) (median)",
      "LW fixed Δ (median)",
      "LW fixed Δ (q95)",
    ],
    rows: generator.sizes.map((s) => [
      num.plain(s.n),
      num.fixed(s.fMin.median, 3),
      num.fixed(s.fMax.median, 3),
      num.fixed(s.fixedRulePredicted.median, 3),
      num.fixed(s.rules["lw-fixed"]?.lipschitz.median, 3),
      num.fixed(s.rules["lw-fixed"]?.q95, 3),
    ]),
  };
}

/** The trend lines of one generator, one per rule: whether its bounds contract with n. */
function trendLines(generator: ContractionGeneratorSummary, sizes: string): Value {
  return joined(
    CONTRACTION_RULES.map((rule) => {
      const t = generator.trends[rule];
      if (t === null) return `- **${CONTRACTION_LABELS[rule]}**: calibration failed at some n.`;
      const settles = t.medians[t.medians.length - 1] / generator.global;
      const word = t.q95Falls && t.spreadFalls
        ? text`contracts${
          t.q95Monotone ? " (95th percentile falling at every step)" : ""
        }, its median settling at ${num.fixed(settles, 3)}·Δ_α`
        : "does not contract";
      return cat(
        text`- **${CONTRACTION_LABELS[rule]}** ${word}: 95th percentile ${chain(t.q95s)}, `,
        text`max − min ${chain(t.spreads)}, median ${
          chain(t.medians)
        }, P(Δ > ${generator.global}) `,
        text`${chain(t.sharesAbove, 2)} over n = ${sizes}.`,
      );
    }),
    "\n",
  );
}

/** Weighted-e's truncation at the largest n ("" when it failed there). */
function weightedParagraph(generator: ContractionGeneratorSummary): Value {
  const last = generator.sizes[generator.sizes.length - 1];
  const cell = last.rules["weighted-e"];
  if (cell === null) return "";
  const { global } = generator;
  return cat(
    text`**Weighted-e** truncates the fixed rule's records above ${global} once and refits; `,
    "the refit has a wider posterior that can push other records over (records zeroed in the ",
    text`median database: ${num.fixed(cell.zeroWeights.median, 0)} at n = ${last.n}), and the `,
    text`lower-Δ fit of the two is kept, so at n = ${last.n} ${percent(cell.shareAbove)} of `,
    text`databases stay above ${global} (95th percentile ${num.fixed(cell.q95, 3)}).`,
  );
}

/** One generator's values, their names prefixed with its name. */
function generatorValues(
  generator: ContractionGeneratorSummary,
  sizes: string,
): Record<string, Value> {
  const prefix = `${generator.name}.`;
  return {
    [`${prefix}global`]: num.plain(generator.global),
    [`${prefix}epsilon`]: num.plain(2 * generator.global),
    [`${prefix}trends`]: trendLines(generator, sizes),
    [`${prefix}weighted`]: weightedParagraph(generator),
    ...fitValues(prefix, generator.fits),
  };
}

/**
 * The contraction study's document, for `templates/contraction.md`.
 *
 * @param result The study result (its document is not read).
 * @returns The document.
 */
export function contractionDocument(
  result: StudyResult<ContractionSettings, ContractionRecord, ContractionSummary>,
): Report {
  const { settings, summary } = result;
  const sizes = settings.sizes.join(", ");
  const poissonFinal = summary.generators.find((g) => g.name === "poisson")?.trends["lw-final"];
  const values: Record<string, Value> = {
    replicates: num.plain(result.replicates),
    sizes,
    mean: num.plain(settings.mean),
    S: num.plain(settings.sampler.chains * settings.sampler.draws),
    c: num.plain(settings.c),
    g: num.plain(settings.g),
    globals: joined(
      summary.generators.map((g) => text`${g.global} (${GENERATOR_LABELS[g.name]})`),
      ", ",
    ),
    seed: num.plain(result.seed),
    estimandsN: num.plain(settings.estimandsN),
    chosenRule: poissonFinal === null || poissonFinal === undefined ? "" : CHOSEN_RULE,
    chains: num.plain(settings.sampler.chains),
    warmup: num.plain(settings.sampler.warmup),
    draws: num.plain(settings.sampler.draws),
    ...fitValues("", summary.fits),
  };
  const tables: Record<string, ReportTable> = {};
  const figures: Record<string, Figure> = {};
  for (const [g, generator] of summary.generators.entries()) {
    Object.assign(values, generatorValues(generator, sizes));
    tables[`${generator.name}.sizes`] = sizeTable(generator);
    tables[`${generator.name}.fixed`] = fixedTable(generator);
    figures[`${generator.name}.estimands`] = estimandsFigure(result.records, settings, g);
  }
  return { verdicts: contractionVerdicts(summary, settings), values, tables, figures };
}

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
