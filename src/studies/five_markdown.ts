/**
 * The markdown report of the five-synthesizer study (Study 3).
 *
 * @module
 */
import type { FiveRecord, FiveSummary } from "./five_result.ts";
import {
  FIVE_LABELS,
  FIVE_MECHANISMS,
  type FiveMechanism,
  type FiveSettings,
} from "./five_settings.ts";
import * as md from "./markdown.ts";
import type { StudyResult } from "./study_types.ts";
import {
  AGREES,
  differs,
  isTie,
  type PairedDifference,
  pairedDifference,
  tie,
  type VerdictRow,
  verdictTable,
} from "./verdict.ts";

/** The median of finite values (null when there are none). */
function medianOf(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const h = (sorted.length - 1) / 2;
  return (sorted[Math.floor(h)] + sorted[Math.ceil(h)]) / 2;
}

type FiveResult = StudyResult<FiveSettings, FiveRecord, FiveSummary>;
type Utility = "ecdfMax" | "ecdfMeanSquared";

type Lower = PairedDifference & { readonly tie: boolean };

/**
 * `a` against `b` at ε index e, paired on the databases where both released: how much lower
 * `a`'s utility measure is (positive when `a` is better), its z and the databases (null when
 * fewer than two databases have both).
 */
function lowerBy(
  result: FiveResult,
  e: number,
  a: FiveMechanism,
  b: FiveMechanism,
  key: Utility,
): Lower | null {
  const pairs = result.records.map((r) => {
    const m = r.epsilons[e].mechanisms;
    return [m[b]?.[key] ?? null, m[a]?.[key] ?? null] as const;
  });
  if (pairs.filter(([x, y]) => x !== null && y !== null).length < 2) return null;
  const d = pairedDifference(pairs);
  return { ...d, tie: isTie(d) };
}

/** The same comparison the other way round. */
const flip = (d: Lower): Lower => ({ ...d, mean: -d.mean, z: -d.z });

/** "Censor w lower than Weighted by 0.0021 (paired z = 1.1, 100 databases)". */
function lowerText(a: FiveMechanism, b: FiveMechanism, d: Lower): string {
  return `${FIVE_LABELS[a]} lower than ${FIVE_LABELS[b]} by ${md.fmt(d.mean, 4)} (paired z = ` +
    `${md.fmt(d.z, 1)}, ${d.n} databases)`;
}

/**
 * The stated order Weighted < Censor w < others by max-ECDF, pair by pair and paired on the
 * databases where both released: where the claimed-worse synthesizer is lower, a real difference
 * (|z| ≥ 2) contradicts the order and one within Monte Carlo error is a tie.
 */
function rankingVerdict(result: FiveResult, gMedians: readonly (number | null)[]): string {
  const { summary } = result;
  const others = FIVE_MECHANISMS.filter((m) => m !== "lw" && m !== "censored-w");
  const claims: (readonly [FiveMechanism, FiveMechanism])[] = [
    ["censored-w", "lw"],
    ...others.map((worse) => [worse, "lw"] as const),
    ...others.map((worse) => [worse, "censored-w"] as const),
  ];
  const perEpsilon = (tied: boolean) =>
    summary.epsilons.flatMap((eps, e) => {
      const parts = claims.flatMap(([worse, better]) => {
        const d = lowerBy(result, e, worse, better, "ecdfMax");
        return d !== null && d.mean > 0 && d.tie === tied ? [lowerText(worse, better, d)] : [];
      });
      return parts.length === 0 ? [] : [`ε = ${eps.epsilon}: ${parts.join(", ")}`];
    });
  const comparable = summary.epsilons.some((_, e) =>
    claims.some(([worse, better]) => lowerBy(result, e, worse, better, "ecdfMax") !== null)
  );
  if (!comparable) return differs("not comparable: fewer than two databases");
  const contradicted = perEpsilon(false);
  const ties = perEpsilon(true);
  if (contradicted.length === 0) return ties.length === 0 ? AGREES : tie(ties.join("; "));
  return differs(
    `${contradicted.join("; ")}: Censor w keeps the fixed rule's weights and clamps only the ` +
      "contributions above ε/2, while Weighted lowers every weight by its calibrated shift " +
      `(median g ${gMedians.map((g) => md.fmt(g, 3)).join(", ")} at ε = ${
        summary.epsilons.map((e) => e.epsilon).join(", ")
      }) to bring the maximum under ε/2` +
      (ties.length === 0 ? "" : `; ties within Monte Carlo error (z < 2): ${ties.join("; ")}`),
  );
}

/**
 * The verdict rows: what the censoring slides print or state about the simulation (its results
 * are violin plots without printed values) and their SDR table.
 */
function verdictRows(result: FiveResult): VerdictRow[] {
  const { summary, records } = result;
  const per = (f: (e: FiveSummary["epsilons"][number]) => string) =>
    summary.epsilons.map((e) => `ε = ${e.epsilon}: ${f(e)}`).join("; ");
  const rows: VerdictRow[] = [];
  const censoredOk = summary.epsilons.every((e) =>
    (["censored-w", "censored"] as const).every((m) => {
      const l = e.mechanisms[m]?.lipschitz;
      return l === null || l === undefined || l.max <= e.epsilon / 2;
    })
  );
  rows.push({
    quantity: "Censor w and Censor uw: Lipschitz bounds under the dashed line ε/2 (DP)",
    paper: "≤ ε/2 (violins, ε = 5, 4, 3)",
    ours: per((e) =>
      `max ${md.fmt(e.mechanisms["censored-w"]?.lipschitz?.max, 3)} and ${
        md.fmt(e.mechanisms.censored?.lipschitz?.max, 3)
      }`
    ),
    verdict: censoredOk ? AGREES + " (by construction: every contribution is clamped)" : differs(
      "a censored bound above ε/2",
    ),
  });
  const weightedE = summary.epsilons.map((e) => ({
    epsilon: e.epsilon,
    refused: result.replicates - (e.mechanisms["weighted-e"]?.replicates ?? 0),
    weighted: e.mechanisms.lw?.shareAbove ?? null,
  }));
  rows.push({
    quantity: 'Weighted-e: aDP "with faster convergence" onto ε/2 than Weighted (truncation)',
    paper: "faster contraction (violins)",
    ours: weightedE.map((w) =>
      `ε = ${w.epsilon}: Weighted-e above ε/2 after its one truncation in ${w.refused} of ` +
      `${result.replicates} databases (refused by the cap), Weighted in ` +
      `${md.percent(w.weighted ?? 0)}`
    ).join("; "),
    verdict: weightedE.every((w) => w.refused === 0) ? AGREES : differs(
      "our Weighted is calibrated per database (shift g searched), so it never ends above ε/2; " +
        "Weighted-e truncates the fixed rule c = ε/5, g = 0 once, and the refit's wider " +
        "posterior leaves many databases above ε/2",
    ),
  });
  const gMedians = summary.epsilons.map((_, e) =>
    medianOf(
      records.flatMap((r) => {
        const g = r.epsilons[e].mechanisms.lw?.g;
        return g === null || g === undefined ? [] : [g];
      }),
    )
  );
  rows.push({
    quantity: "Utility (max-ECDF): Weighted best, Censor w second",
    paper: "Weighted < Censor w < others",
    ours: per((e) =>
      `${e.rankEcdfMax.map((m) => FIVE_LABELS[m]).join(" < ")} (Weighted ${
        md.fmt(e.mechanisms.lw?.ecdfMax.mean, 4)
      }, Censor w ${md.fmt(e.mechanisms["censored-w"]?.ecdfMax.mean, 4)})`
    ),
    verdict: rankingVerdict(result, gMedians),
  });
  // The slides' claim, paired on the databases Weighted-e released: Weighted lower (d.mean > 0).
  const compared = summary.epsilons.flatMap((eps, e) => {
    const d = lowerBy(result, e, "lw", "weighted-e", "ecdfMax");
    return d === null ? [] : [{ epsilon: eps.epsilon, d }];
  });
  const better = compared.filter((c) => !c.d.tie && c.d.mean < 0);
  const tied = compared.filter((c) => c.d.tie).map((c) =>
    `ε = ${c.epsilon}: ${
      c.d.mean >= 0 ? lowerText("lw", "weighted-e", c.d) : lowerText("weighted-e", "lw", flip(c.d))
    }`
  );
  rows.push({
    quantity: 'Censoring slides: "Weighted-e Produces Slightly Worse Utility" than Weighted ' +
      "(a slide title; its figure shows the average of the mean parameter μ at n = 100, 400, " +
      "1600, 6400 over R = 100, not max-ECDF)",
    paper: "slightly worse",
    ours: per((e) =>
      `Weighted-e ${md.fmt(e.mechanisms["weighted-e"]?.ecdfMax.mean, 4)} vs Weighted ${
        md.fmt(e.mechanisms.lw?.ecdfMax.mean, 4)
      } (mean max-ECDF)`
    ),
    verdict: compared.length === 0
      ? differs("not comparable: Weighted-e released on fewer than two databases at every ε")
      : better.length === 0
      ? (tied.length === 0 ? AGREES : tie(tied.join("; ")))
      : differs(
        `Weighted-e is better at ${
          better.map((c) => `ε = ${c.epsilon}: ${lowerText("weighted-e", "lw", flip(c.d))}`)
            .join("; ")
        }, paired on the databases Weighted-e released (not an effect of scoring it on fewer): ` +
          "Weighted's calibrated shift lowers every weight" +
          (tied.length === 0 ? "" : `; ties within Monte Carlo error (z < 2): ${tied.join("; ")}`),
      ),
  });
  rows.push({
    quantity: "SDR application (n = 1601): Lipschitz 2.62, 2.61, 2.50, 2.50; ε 5.24, 5.22, 5, 5, " +
      "5; max-ECDF, avg-ECDF, mean, median, 15th and 90th percentiles",
    paper: "the slides' table",
    ours: "–",
    verdict: differs(
      "not reproduced: the slides' SDR sample (mathematics and statistics faculty, 2017 public " +
        "use file) is not in this repository; study 3 is the slides' simulation only",
    ),
  });
  return rows;
}

/**
 * The markdown report of the five-synthesizer study.
 *
 * @param result The study result.
 * @param footer Machine-dependent lines (wall time).
 */
export function fiveMarkdown(
  result: StudyResult<FiveSettings, FiveRecord, FiveSummary>,
  footer: string,
): string {
  const { settings, summary } = result;
  const [a, b] = settings.shape;
  const sections = summary.epsilons.flatMap(
    ({ epsilon, mechanisms, rankEcdfMax, rankEcdfMeanSquared }) => {
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
          `${md.fmt(1000 * cell.ecdfMeanSquared.q25, 3)}–${
            md.fmt(1000 * cell.ecdfMeanSquared.q75, 3)
          }`,
          md.fmt(cell.median.median, 4),
          `${md.fmt(cell.median.min, 4)}–${md.fmt(cell.median.max, 4)}`,
          md.fmt(cell.medianBias, 4),
          md.fmt(cell.medianRmse, 4),
          md.fmt(cell.zeroWeightsMean, 1),
        ];
      });
      return [
        `## ε = ${epsilon} (Δ target ε/2 = ${epsilon / 2})`,
        "",
        md.markdownTable(
          [
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
          ],
          rows,
        ),
        "",
        `Utility ranking (best first) by mean max-ECDF: ${
          rankEcdfMax.map((m) => FIVE_LABELS[m]).join(" < ")
        }; ` +
        `by mean avg-ECDF: ${rankEcdfMeanSquared.map((m) => FIVE_LABELS[m]).join(" < ")}.`,
        "",
      ];
    },
  );
  // Weighted against the synthesizer with the best mean, paired: a tie within Monte Carlo error
  // (|z| < 2) is not a loss.
  const best = (e: number, rank: readonly FiveMechanism[], measure: string, key: Utility) => {
    if (rank[0] === "lw") return `best by ${measure}`;
    const d = lowerBy(result, e, rank[0], "lw", key);
    if (d === null) return `not best by ${measure} (${FIVE_LABELS[rank[0]]} is)`;
    const z = `paired z = ${md.fmt(d.z, 1)}, ${d.n} databases`;
    if (!d.tie && d.mean < 0) {
      return `best by ${measure} on the databases both released (paired z = ` +
        `${md.fmt(-d.z, 1)} against ${FIVE_LABELS[rank[0]]}, ${d.n} databases)`;
    }
    return d.tie
      ? `tied for best by ${measure} (${FIVE_LABELS[rank[0]]}'s mean is lower, ${z}: a tie ` +
        "within Monte Carlo error)"
      : `not best by ${measure} (${FIVE_LABELS[rank[0]]} is, ${z})`;
  };
  const verdict = summary.epsilons.map(({ epsilon, rankEcdfMax, rankEcdfMeanSquared }, e) =>
    `- ε = ${epsilon}: Weighted is ${best(e, rankEcdfMax, "max-ECDF", "ecdfMax")} and ` +
    `${best(e, rankEcdfMeanSquared, "avg-ECDF", "ecdfMeanSquared")}; Censor w ranks ` +
    `${rankEcdfMax.indexOf("censored-w") + 1} and ${
      rankEcdfMeanSquared.indexOf("censored-w") + 1
    }` +
    ` of ${rankEcdfMax.length}.`
  );
  const weightedE = summary.epsilons.map(({ epsilon, mechanisms }) => {
    const cell = mechanisms["weighted-e"];
    return cell === null || cell.lipschitz === null
      ? `ε = ${epsilon}: –`
      : `ε = ${epsilon}: ${result.replicates - cell.replicates} of ${result.replicates} ` +
        "databases still above ε/2 after the one truncation (refused by the cap: no release); " +
        `the others Δ ${md.fmt(cell.lipschitz.min, 3)}–${md.fmt(cell.lipschitz.max, 3)}, ` +
        `${md.fmt(cell.zeroWeightsMean, 1)} records zeroed on average`;
  });
  return md.studyDocument([
    `# Study 3: five synthesizers on Beta(${a}, ${b}) data`,
    "",
    `SPEC §9.3; JSM censoring slides. R = ${result.replicates} databases of n = ${settings.n} ` +
    `draws from Beta(${a}, ${b}); beta intercept-only synthesizer; one synthetic dataset per ` +
    `synthesizer, ε and replicate (m = 1). Seed ${result.seed}.`,
    "",
    "## Verdict against the slides",
    "",
    "The censoring slides print the design (R = 100, n = 2000, Beta(0.5, 3), ε ∈ {5, 4, 3}) and " +
    "show the results as violin plots with no printed values, so the rows below set their " +
    "stated findings against our measurements.",
    "",
    verdictTable(verdictRows(result)),
    "",
    "- **Weighted**: LW weights, c = 1, shift g calibrated per database so that Δ ≤ ε/2 (aDP).",
    `- **Weighted-e**: the fixed LW rule c = ε/${settings.reference}, g = 0, then records with ` +
    "Δ_{α,x_i} > ε/2 get α_i = 0 and the model is refit once, as the slides do; the lower-Δ " +
    "of the two fits is kept (aDP).",
    `- **Censor w**: the same fixed LW weights (c = ε/${settings.reference}, g = 0), each ` +
    "contribution clamped to ±ε/2 (DP). Its Δ is that of the clamped contributions.",
    "- **Censor uw**: α = 1, clamped to ±ε/2 (DP).",
    `- **PH**: perturbed histogram on [0, 1], ${
      settings.bins ?? "⌈n^{1/3}⌉ = " + Math.ceil(Math.cbrt(settings.n))
    } ` +
    "bins, Laplace(1/ε) per count (add/remove neighbours, sensitivity 1; DP; seeded noise in " +
    "this study, never in a release).",
    "",
    `Analytic median of Beta(${a}, ${b}) (bisection on I_x(a, b) = 1/2): ` +
    `**${summary.analyticMedian.toFixed(6)}**; the confidential data's median over replicates: ` +
    `${md.fmt(summary.dataMedian.median, 4)} (range ${md.fmt(summary.dataMedian.min, 4)}–` +
    `${
      md.fmt(summary.dataMedian.max, 4)
    }). max-ECDF = max |F − F*| and avg-ECDF = mean (F − F*)² ` +
    "over the pooled records (smaller is better).",
    "",
    ...sections,
    "## Against the slides",
    "",
    "The slides find Weighted best in utility and Censor w next, the censored synthesizers' Δ " +
    "never above ε/2, and Weighted-e contracting faster (its Δ pulled under ε/2 by truncation) at " +
    "a small cost in utility. Here:",
    "",
    ...verdict,
    "- Censoring: Δ ≤ ε/2 in every replicate by construction (the clamped bound is shown; the " +
    "unclamped bounds are in the JSON).",
    "- Weighted-e, whose weighting rule is fixed rather than fitted to each database, is cut " +
    `back towards ε/2 by truncation: ${
      weightedE.join("; ")
    }. Our Weighted is calibrated per database ` +
    "(shift g searched), so it too stays under ε/2 in every replicate where calibration " +
    "succeeded; the slides' contrast (Weighted-e contracting faster) is against an " +
    "uncalibrated weighted rule, which this design does not include.",
    "",
    "## Choices",
    "",
    `- **Weighted-e and Censor w weights** c = ε/${settings.reference}, g = 0: the paper's ` +
    "Algorithm 1 rule (c = 1, g = 0) at ε = 5, where a pilot on eight databases (not part of " +
    "this run) gave LW bounds 2.17–2.64, near ε/2 = 2.5; at smaller ε the slides' downscaling " +
    "α̃ = c₁·α with c₁ = ε/5 keeps the rule's bound near ε/2, so truncation trims the excess " +
    "instead of zeroing hundreds of records (unscaled, the pilot lost up to 35% of the records " +
    "at ε = 3 and still ended above ε/2).",
    md.samplerParagraph(settings.sampler, summary.fits),
  ], footer);
}
