/**
 * The markdown report of the contraction study (Study 1): the verdict table against the papers,
 * then per generator and n the distribution of the local bounds under each rule.
 *
 * @module
 */
import type {
  ContractionGeneratorSummary,
  ContractionRecord,
  ContractionSummary,
} from "./contraction_result.ts";
import {
  CONTRACTION_LABELS,
  CONTRACTION_RULES,
  type ContractionRule,
  type ContractionSettings,
  GENERATOR_LABELS,
} from "./contraction_settings.ts";
import * as md from "./markdown.ts";
import type { StudyResult } from "./study_types.ts";
import { AGREES, agreesByConstruction, differs, type VerdictRow, verdictTable } from "./verdict.ts";

/** The supplement's n, where it prints P(Δ > 3.5) ≈ 0. */
const SUPPLEMENT_N = 1000;
/** "Nearly 0" is read as at most this share. */
const NEARLY_ZERO = 0.05;
/** Calibration stops once Δ ≥ this share of Δ_α (`calibrate.ts`, 1 − its default closeness). */
const CALIBRATION_STOP = 0.97;

const chain = (values: readonly number[], digits = 3) =>
  values.map((v) => md.fmt(v, digits)).join(" → ");

function shareCell(
  cell: { above: number; replicates: number; shareAboveInterval: readonly number[] },
) {
  const [lo, hi] = cell.shareAboveInterval;
  return `${md.percent(cell.above / cell.replicates)} [${md.percent(lo, 1)}, ${md.percent(hi, 1)}]`;
}

function sizeOf(generator: ContractionGeneratorSummary, n: number) {
  return generator.sizes.find((s) => s.n === n) ?? generator.sizes[generator.sizes.length - 1];
}

/** The verdict rows: every number the supplement and the slides print about contraction. */
function verdictRows(summary: ContractionSummary, settings: ContractionSettings): VerdictRow[] {
  const rows: VerdictRow[] = [];
  const sizes = settings.sizes.join(", ");
  for (const generator of summary.generators) {
    const label = GENERATOR_LABELS[generator.name];
    const at = sizeOf(generator, SUPPLEMENT_N);
    const final = at.rules["lw-final"];
    const calibrated = at.rules["lw-calibrated"];
    const fixed = at.rules["lw-fixed"];
    const last = generator.sizes[generator.sizes.length - 1];
    const first = generator.sizes[0];
    const trend = generator.trends["lw-final"];
    if (generator.name === "poisson" && final !== null && fixed !== null) {
      const nearlyZero = final.shareAboveInterval[0] <= NEARLY_ZERO;
      rows.push({
        quantity: `Supp 5, ${label}, n = ${at.n}: P(Δ_{α,x_r} > 3.5) under LW with re-weighting`,
        paper: "nearly 0",
        ours: `LW_final ${shareCell(final)}; LW fixed (c = ${settings.c}, g = ${settings.g}) ` +
          shareCell(fixed),
        verdict: nearlyZero
          ? agreesByConstruction(
            `g is calibrated per database to Δ ≤ ${generator.global}, and Algorithm 3 accepts ` +
              `no k above it ("nearly 0" read as ≤ ${md.percent(NEARLY_ZERO)}); the ` +
              `uncalibrated fixed rule gives ${shareCell(fixed)}`,
          )
          : differs(`${final.above} of ${final.replicates} databases above 3.5`),
      });
    }
    if (final !== null && calibrated !== null && trend !== null) {
      const ratio = final.lipschitz.median / generator.global;
      const inside = final.q05 <= generator.global && generator.global <= final.q95;
      rows.push({
        quantity: `Supp 5, ${label}: the global Δ_α the local bounds contract onto`,
        paper: md.fmt(generator.global, 1),
        ours: `LW_final median ${md.fmt(final.lipschitz.median, 3)}, 5–95% ` +
          `[${md.fmt(final.q05, 3)}, ${md.fmt(final.q95, 3)}] at n = ${at.n}; LW calibrated ` +
          `median ${md.fmt(calibrated.lipschitz.median, 3)}`,
        verdict: inside ? AGREES : differs(
          `LW_final settles at ${md.fmt(ratio, 2)}·Δ_α, below the paper's value: calibration ` +
            `stops inside [0.97, 1]·Δ_α (LW calibrated: median ${
              md.fmt(calibrated.lipschitz.median / generator.global, 3)
            }·Δ_α) and Algorithm 3's k = 0.95 scales the binding record's weight by 0.95 ` +
            `(the accepted k: median ${md.fmt(final.k?.accepted?.median, 2)})`,
        ),
      });
      // Calibration holds every database's LW bound in [CALIBRATION_STOP, 1]·Δ_α at the largest
      // n, where the collapse is read: LW_final's bounds, that fit re-weighted once, gather
      // there because calibration puts them there.
      const calibratedLast = last.rules["lw-calibrated"];
      const window = calibratedLast !== null &&
        calibratedLast.lipschitz.min >= CALIBRATION_STOP * generator.global &&
        calibratedLast.lipschitz.max <= generator.global;
      const imposed = () =>
        agreesByConstruction(
          "imposed by calibration's stop window, not observed: calibration stops once Δ ≥ " +
            `${CALIBRATION_STOP}·Δ_α = ${md.fmt(CALIBRATION_STOP * generator.global, 3)} and ` +
            `never above Δ_α, so at n = ${last.n} every database's LW calibrated bound lies in ` +
            `[${md.fmt(calibratedLast!.lipschitz.min, 3)}, ` +
            `${md.fmt(calibratedLast!.lipschitz.max, 3)}], and Algorithm 3 scales it by k ` +
            `(median ${md.fmt(last.rules["lw-final"]?.k?.accepted?.median, 2)}): LW_final spans ` +
            `[${md.fmt(last.rules["lw-final"]?.lipschitz.min, 3)}, ` +
            `${md.fmt(last.rules["lw-final"]?.lipschitz.max, 3)}]`,
        );
      rows.push({
        quantity: `Supp 5, ${label}: the bounds contract (max and min collapse together)`,
        paper: "contract",
        ours: `LW_final 95th percentile ${chain(trend.q95s)}, max − min ${
          chain(trend.spreads)
        } over n = ${sizes}`,
        verdict: trend.q95Falls && trend.spreadFalls
          ? (window ? imposed() : AGREES + " (qualitative)")
          : differs(
            `LW_final's 95th percentile ${
              trend.q95Falls ? "falls" : "does not fall"
            } and its spread ${
              trend.spreadFalls ? "falls" : "does not fall"
            } from n = ${first.n} to n = ${last.n}`,
          ),
      });
    }
    const weighted = generator.trends["weighted-e"];
    const weightedFirst = first.rules["weighted-e"];
    const weightedLast = last.rules["weighted-e"];
    if (
      generator.name === "poisson" && weighted !== null && weightedFirst !== null &&
      weightedLast !== null
    ) {
      const contracts = weighted.q95Falls && weighted.spreadFalls;
      // P(Δ > Δ_α) rises when its Wilson intervals at the smallest and largest n do not overlap.
      const rises = weightedLast.shareAboveInterval[0] > weightedFirst.shareAboveInterval[1];
      rows.push({
        quantity: `JSM 2024 slides, ${label}, n ∈ {100, 400, 1600, 6400}: Weighted-M ` +
          "(truncation) bounds contract onto the global value",
        paper: "contract (figure)",
        ours: `Weighted-e 95th percentile ${chain(weighted.q95s)}, max − min ${
          chain(weighted.spreads)
        }, P(Δ > ${generator.global}) ${chain(weighted.sharesAbove, 2)}`,
        verdict: contracts && rises
          ? differs(
            `P(Δ > ${generator.global}) rises from ${shareCell(weightedFirst)} at n = ` +
              `${first.n} to ${shareCell(weightedLast)} at n = ${last.n}: the bounds end above ` +
              `${generator.global} in ${weightedLast.above} of ${weightedLast.replicates} ` +
              `databases (median ${chain(weighted.medians)}), and ` +
              `the median database zeroes ${md.fmt(weightedLast.zeroWeights.median, 0)} of ` +
              `${last.n} records (${
                md.percent(weightedLast.zeroWeights.median / last.n)
              }) at n = ${last.n}`,
          )
          : contracts
          ? AGREES + ` (qualitative); the bounds settle just above ${generator.global}`
          : differs(
            `Weighted-e's 95th percentile ${
              weighted.q95Falls ? "falls" : "does not fall"
            } and its spread ${weighted.spreadFalls ? "falls" : "does not fall"}`,
          ),
      });
    }
  }
  return rows;
}

/** The per-n table of one generator. */
function sizeTable(generator: ContractionGeneratorSummary): string {
  const rows = generator.sizes.flatMap((size) =>
    CONTRACTION_RULES.map((rule) => {
      const cell = size.rules[rule];
      if (cell === null) return [String(size.n), CONTRACTION_LABELS[rule], ...Array(11).fill("–")];
      return [
        String(size.n),
        CONTRACTION_LABELS[rule],
        String(cell.replicates),
        shareCell(cell),
        md.fmt(cell.q05, 3),
        md.fmt(cell.lipschitz.q25, 3),
        md.fmt(cell.lipschitz.median, 3),
        md.fmt(cell.lipschitz.q75, 3),
        md.fmt(cell.q95, 3),
        md.fmt(cell.lipschitz.max, 3),
        md.fmt(cell.spread, 3),
        md.fmt(cell.muMean.median, 2),
        `${md.fmt(cell.zeroWeights.median, 0)} (${md.fmt(cell.zeroWeights.max, 0)})`,
      ];
    })
  );
  return md.markdownTable(
    [
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
    ],
    rows,
  );
}

/** The trend lines of one generator, one per rule. */
function trendLines(generator: ContractionGeneratorSummary, sizes: string): string[] {
  return CONTRACTION_RULES.map((rule: ContractionRule) => {
    const t = generator.trends[rule];
    if (t === null) return `- **${CONTRACTION_LABELS[rule]}**: calibration failed at some n.`;
    const settles = t.medians[t.medians.length - 1] / generator.global;
    const word = t.q95Falls && t.spreadFalls
      ? `contracts${t.q95Monotone ? " (95th percentile falling at every step)" : ""}, ` +
        `its median settling at ${md.fmt(settles, 3)}·Δ_α`
      : "does not contract";
    return `- **${CONTRACTION_LABELS[rule]}** ${word}: 95th percentile ${chain(t.q95s)}, ` +
      `max − min ${chain(t.spreads)}, median ${chain(t.medians)}, P(Δ > ${generator.global}) ` +
      `${chain(t.sharesAbove, 2)} over n = ${sizes}.`;
  });
}

/**
 * The markdown report of the contraction study.
 *
 * @param result The study result.
 * @param footer Machine-dependent lines (wall time).
 */
export function contractionMarkdown(
  result: StudyResult<ContractionSettings, ContractionRecord, ContractionSummary>,
  footer: string,
): string {
  const { settings, summary } = result;
  const sizes = settings.sizes.join(", ");
  const poisson = summary.generators.find((g) => g.name === "poisson");
  const sections = summary.generators.flatMap((generator) => {
    const fixedRows = generator.sizes.map((s) => [
      String(s.n),
      md.fmt(s.fMin.median, 3),
      md.fmt(s.fMax.median, 3),
      md.fmt(s.fixedRulePredicted.median, 3),
      md.fmt(s.rules["lw-fixed"]?.lipschitz.median, 3),
      md.fmt(s.rules["lw-fixed"]?.q95, 3),
    ]);
    const weightedLast = generator.sizes[generator.sizes.length - 1].rules["weighted-e"];
    return [
      `## ${GENERATOR_LABELS[generator.name]} (global Δ_α = ${generator.global}, ε = ` +
      `${2 * generator.global})`,
      "",
      sizeTable(generator),
      "",
      ...trendLines(generator, sizes),
      "",
      '**The fixed rule against its formula** (see "Why the fixed LW rule cannot contract" ' +
      "below; by database, then the median):",
      "",
      md.markdownTable(
        [
          "n",
          "f_min (median)",
          "f_max = Δ_x (median)",
          "f_max²/(4(f_max − f_min)) (median)",
          "LW fixed Δ (median)",
          "LW fixed Δ (q95)",
        ],
        fixedRows,
      ),
      "",
      weightedLast === null ? "" : `**Weighted-e** truncates the fixed rule's records above ` +
        `${generator.global} once and refits; the refit has a wider posterior that can push ` +
        `other records over (records zeroed in the median database: ${
          md.fmt(weightedLast.zeroWeights.median, 0)
        } ` +
        `at n = ${settings.sizes[settings.sizes.length - 1]}), and the lower-Δ fit of the two is ` +
        `kept, so at n = ${settings.sizes[settings.sizes.length - 1]} ` +
        `${md.percent(weightedLast.shareAbove)} of databases stay above ${generator.global} ` +
        `(95th percentile ${md.fmt(weightedLast.q95, 3)}).`,
      "",
      `- **Fits**: ${generator.fits.fits} distinct, ${generator.fits.flagged} ` +
      `(${md.fmt(100 * generator.fits.flaggedShare, 1)}%) flagged, ` +
      `${generator.fits.flaggedLikelihood} (${
        md.fmt(100 * generator.fits.flaggedLikelihoodShare, 1)
      }%) on a likelihood parameter (β₀, or φ for the NB model), the rest only on the prior ` +
      `scale σ_β, which does not enter ℓ_i; divergences: ${generator.fits.divergences}.`,
      "",
    ];
  });
  const poissonFinal = poisson?.trends["lw-final"];
  return md.studyDocument([
    "# Study 1: contraction of the local Lipschitz bound (Poisson and NB mixture)",
    "",
    `SPEC §9.1; vector-weighted paper Supp 5; JSM 2024 slides. For each generator, R = ` +
    `${result.replicates} databases per n ∈ {${sizes}}: Poisson(${settings.mean}) counts with ` +
    "the Poisson intercept-only synthesizer, and 0.2·NB(100, φ = 5) + 0.8·NB(100, φ = 20) with " +
    `the negative binomial one. Δ_{α,x_r} = max over the fit's S = ${
      settings.sampler.chains * settings.sampler.draws
    } draws and the n records of |α_i ℓ_i(θ_s)|. Rules: **Unweighted**; **LW fixed**, ` +
    `Algorithm 1 with c = ${settings.c}, g = ${settings.g} on every database; **LW ` +
    "calibrated**, the shift g searched on each database for the largest g with Δ ≤ Δ_α; " +
    "**LW_final**, that calibrated LW re-weighted by Algorithm 3 (k = 0.95 first, then " +
    "0.95^j, the first k whose refit keeps Δ within 1% and under Δ_α); **Weighted-e**, the " +
    "fixed rule's records with Δ_{α,x_i} > Δ_α zeroed once and refit, the lower-Δ fit kept. " +
    `Δ_α = ${
      summary.generators.map((g) => `${g.global} (${GENERATOR_LABELS[g.name]})`).join(
        ", ",
      )
    }, the paper's global values. Seed ${result.seed}.`,
    "",
    "## Verdict against the papers",
    "",
    verdictTable(verdictRows(summary, settings)),
    "",
    "The supplement prints no other number about contraction: its Figures 11 and 13 are violin " +
    "plots at n = 1000 only, and the slides' figure (Weighted-M on Poisson data at n = 100, " +
    "400, 1600, 6400) has no printed values. Design as printed: R = 100 (the procedure's loop " +
    "says R = 200; 100 here), n = 1000 (here also the slides' sizes), the mixture written " +
    "π₁NB(100, 5) + π₂NB(100, 5), which is one NB; here the §3.2 mixture (φ = 5 and 20, " +
    "weights 0.2 and 0.8), the one whose Δ_α = 6 the supplement reports.",
    "",
    poissonFinal === null || poissonFinal === undefined
      ? ""
      : "**The chosen rule.** LW_final (LW calibrated to Δ_α, then Algorithm 3) is the " +
        'supplement\'s "LW synthesizer and re-weighting strategy" with the hand tuning of ' +
        "(c, g) replaced by the project's calibration. It cannot exceed Δ_α (calibration stops " +
        "under it and Algorithm 3 accepts no k whose refit does), so P(Δ > Δ_α) = 0 at every n " +
        "by construction; what n changes is how tightly the bounds gather under Δ_α, which the " +
        "95th percentile and max − min lines below measure. The fixed rule, the same (c, g) on " +
        "every database, drifts upwards with n for the reason given under each generator; it " +
        "is what Weighted-e truncates.",
    "",
    ...sections,
    "## Why the fixed LW rule cannot contract",
    "",
    `With c = ${settings.c}, g = ${settings.g}, Algorithm 1 gives α_i = (f_max − f_i)/(f_max − ` +
    "f_min), f_i = max_s |ℓ_i(θ_s)| under the unweighted fit. With the weighted draws near the " +
    "unweighted ones, record i's bound is α_i·f_i, so the database bound is max_f f·(f_max − f)/" +
    "(f_max − f_min) = f_max²/(4(f_max − f_min)), reached at f = f_max/2 (when f_min < f_max/2). " +
    "f_min, the |ℓ| of a record at the mode, does not move with n. f_max = Δ_x is the most " +
    "extreme record's |ℓ| = −log p(y_max | θ), and the most extreme of n records lies near the " +
    "1 − 1/n quantile, where −log p grows like log n (for Poisson(100), |ℓ(y)| ≈ " +
    "½log(2π·100) + (y − 100)²/200 and (y_max − 100)²/200 ≈ log n). So the fixed rule's bound " +
    "rises like (log n)/4 and no fixed (c, g) keeps it at one value across n: a rule tuned to " +
    "Δ_α at one n exceeds it at every larger n. The tables under each generator set the formula " +
    "beside the measured bound; it ignores the weighted posterior's extra width, so it reads " +
    "low, more so for the NB model, whose fitted φ falls as tail records lose weight. " +
    "Calibrating g per database removes the drift (the shift absorbs f_max), which is why the " +
    "calibrated rules contract.",
    "",
    "## Choices",
    "",
    `- **Sampler**: ${settings.sampler.chains} chains × (${settings.sampler.warmup} warmup + ` +
    `${settings.sampler.draws} draws), refits warm-started (250 warmup iterations, kept only ` +
    `when they pass the diagnostics). Of ${summary.fits.fits} distinct fits, ` +
    `${summary.fits.flagged} (${md.fmt(100 * summary.fits.flaggedShare, 1)}%) are flagged ` +
    "(R̂ > 1.01 or bulk ESS < 400 for some parameter, or a divergence), " +
    `${summary.fits.flaggedLikelihood} (${
      md.fmt(100 * summary.fits.flaggedLikelihoodShare, 1)
    }%) on a likelihood parameter. Divergences: ${summary.fits.divergences}. ` +
    "Δ is a maximum over the S draws, so fewer draws can only lower it in expectation.",
    "- **Calibration** (`calibrate.ts`): regula falsi on log Δ(g) with c fixed, every step a " +
    "refit with the replicate's seed, stopping once Δ ≥ 0.97·Δ_α; the studies do not use " +
    "importance-sampled predictions. Memoised fits: the unweighted fit is shared by every rule, " +
    "the fixed-rule fit by LW fixed and Weighted-e, and the calibration's fits by LW " +
    "calibrated and LW_final, so LW_final adds only the re-weighting refits.",
    "- **Δ_α per generator**: the values the supplement reports (ε = 2Δ_α = 7 for Poisson; 6 " +
    "for the mixture); Weighted-e and the calibrated rules target them with m = 1.",
  ], footer);
}
