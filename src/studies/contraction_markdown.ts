/**
 * The markdown report of the contraction study (Study 1).
 *
 * @module
 */
import type { ContractionRecord, ContractionSettings, ContractionSummary } from "./contraction.ts";
import { CONTRACTION_MECHANISMS } from "./contraction_settings.ts";
import * as md from "./markdown.ts";
import type { StudyResult } from "./study_runner.ts";

const LABELS: Record<typeof CONTRACTION_MECHANISMS[number], string> = {
  unweighted: "Unweighted",
  lw: "LW",
  "weighted-e": "Weighted-e",
};

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
  const rows = summary.sizes.flatMap(({ n, mechanisms }) =>
    CONTRACTION_MECHANISMS.map((mechanism) => {
      const cell = mechanisms[mechanism];
      return [
        String(n),
        LABELS[mechanism],
        ...md.quantileCells(cell.lipschitz, 3),
        md.fmt(cell.spread, 3),
        md.fmt(cell.iqr, 3),
        md.percent(cell.shareAbove),
        md.fmt(cell.muMean.median, 2),
        `${md.fmt(cell.zeroWeights.median, 0)} (${md.fmt(cell.zeroWeights.max, 0)})`,
        String(cell.allWeightsZero),
      ];
    })
  );
  const verdicts = CONTRACTION_MECHANISMS.map((mechanism) => {
    const c = summary.contraction[mechanism];
    const word = c.contracts
      ? (c.monotone ? "contracts (monotonically)" : "contracts")
      : "does not contract";
    const chain = (values: readonly number[]) => values.map((v) => md.fmt(v, 3)).join(" → ");
    return `- **${LABELS[mechanism]}** ${word}: max − min = ${chain(c.spreads)} and IQR = ` +
      `${chain(c.iqrs)} over n = ${settings.sizes.join(", ")}; median Δ ${
        chain(summary.sizes.map((s) => s.mechanisms[mechanism].lipschitz.median))
      }.`;
  });
  const first = summary.sizes[0];
  const last = summary.sizes[summary.sizes.length - 1];
  const lwLast = summary.sizes[summary.sizes.length - 1].mechanisms.lw;
  const weLast = summary.sizes[summary.sizes.length - 1].mechanisms["weighted-e"];
  return md.studyDocument([
    "# Study 1: contraction of the local Lipschitz bound (Poisson)",
    "",
    `SPEC §9.1; vector-weighted paper Supp 5; JSM 2024 slides. R = ${result.replicates} databases ` +
    `of n Poisson(${settings.mean}) counts per size, Poisson intercept-only synthesizer; ` +
    `Δ_{α,x_r} = max over the fit's S = ${
      settings.sampler.chains * settings.sampler.draws
    } draws ` +
    `and the n records of |α_i ℓ_i(θ_s)|. LW uses the fixed rule c = ${settings.c}, g = ` +
    `${settings.g} (the paper's Algorithm 1 unshifted; see below), Weighted-e the same LW weights ` +
    `truncated at the global target ε = ${settings.epsilon} (records with Δ_{α,x_i} > ` +
    `${summary.target} get α_i = 0, one refit, the lower-Δ fit kept). Seed ${result.seed}.`,
    "",
    md.markdownTable(
      [
        "n",
        "synthesizer",
        "min",
        "q25",
        "median",
        "q75",
        "max",
        "max − min",
        "IQR",
        `Δ > ${summary.target}`,
        "median E[μ]",
        "zero α: median (max)",
        "all α = 0",
      ],
      rows,
    ),
    "",
    "## Contraction",
    "",
    ...verdicts,
    "",
    `At n = ${settings.sizes[settings.sizes.length - 1]}, ${md.percent(lwLast.shareAbove)} of ` +
    `the LW databases and ${md.percent(weLast.shareAbove)} of the Weighted-e databases have ` +
    `Δ > ${summary.target}.`,
    "",
    "**Why the fixed LW rule drifts.** LW rescales each database's record bounds by that " +
    "database's own extremes, f̃_i = (f_i − min f)/(max f − min f), so with c = 1, g = 0 the " +
    "largest α_i f_i is about max f²/(4(max f − min f)) (at f = max f/2). min f stays near " +
    "|ℓ| at the mode, but max f grows with n as larger databases hold more extreme counts, so " +
    "the rule's bound tends to rise with n: here its median goes from " +
    `${md.fmt(first.mechanisms.lw.lipschitz.median, 3)} at n = ${first.n} to ` +
    `${md.fmt(last.mechanisms.lw.lipschitz.median, 3)} at n = ${last.n}.`,
    "",
    "**Truncation.** Weighted-e refits once after zeroing the records above 3.5; the refit " +
    "with fewer records has a wider posterior, which can push further records above 3.5 " +
    "(re-truncating would cascade, so it is only an option, `--retruncations`). The " +
    "zero-weight columns show how many records it drops: a median " +
    `of ${md.fmt(last.mechanisms["weighted-e"].zeroWeights.median, 0)} of ${last.n} at n = ` +
    `${last.n}; at n = ${first.n}, ${first.mechanisms["weighted-e"].allWeightsZero} of ` +
    `${result.replicates} databases lost every record (the fit is then the prior, Δ = 0).`,
    "",
    "**The papers.** The vector-weighted paper (Supp 5, Figure 11) reports that LW on Poisson " +
    "data contracts onto the global ε = 2Δ_α = 7 (Δ_α = 3.5), with little mass above 3.5 and " +
    "the probability of exceeding it nearly 0 at n = 1000; the slides add that truncation " +
    "(Weighted-e) contracts faster. Here the fixed LW rule " +
    `${summary.contraction.lw.contracts ? "contracts" : "does not contract"}, with ` +
    `${md.percent(first.mechanisms.lw.shareAbove)} of databases above ${summary.target} at ` +
    `n = ${first.n} and ${md.percent(last.mechanisms.lw.shareAbove)} at n = ${last.n}; ` +
    `Weighted-e ${
      summary.contraction["weighted-e"].contracts ? "contracts" : "does not contract"
    }` +
    `, its median Δ staying at ${md.fmt(last.mechanisms["weighted-e"].lipschitz.median, 3)} at ` +
    `n = ${last.n} at the price of the dropped records.`,
    "",
    "## Choices",
    "",
    "- **LW rule** c = 1, g = 0, fixed for every database: a pilot on six Poisson(100) databases " +
    "of n = 1000 (not part of this run) gave LW bounds 3.41–3.98 (median 3.44) at g = 0, " +
    "3.00–3.44 at g = −0.1 and 3.82–4.58 at g = 0.1, so the unshifted rule sits near the slides' " +
    "Δ ≈ 3.5.",
    md.samplerParagraph(settings.sampler, summary.fits, {
      perFit: false,
      flagged: "(R̂ > 1.01 or bulk ESS < 400 for some parameter, or a divergence)",
      likelihood: "on the intercept itself; the rest only on the prior scale σ_β, which does " +
        "not enter ℓ_i.",
    }),
    "- Memoised fits: the LW fit is shared by LW and Weighted-e, so Weighted-e equals LW on every " +
    "database whose LW bound is already ≤ 3.5.",
  ], footer);
}
