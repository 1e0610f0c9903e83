/**
 * The markdown report of the survey study (Study 4).
 *
 * @module
 */
import { MARGIN_LABEL } from "../survey/tables.ts";
import * as md from "./markdown.ts";
import type { StudyResult } from "./study_runner.ts";
import type { SurveyRecord } from "./survey.ts";
import type { SurveySummary } from "./survey_aggregate.ts";
import { PAPER_TABLES_4_5, paperTableRows } from "./survey_paper.ts";
import {
  COVERAGE_METHODS,
  type CoverageMethod,
  type Method,
  QUANTITIES,
  type Quantity,
  SURVEY_METHODS,
  SURVEY_SETTINGS,
  SURVEY_SYNTHESIZERS,
  type SurveySettings,
} from "./survey_settings.ts";

const LABELS: Record<CoverageMethod, string> = {
  sample: "Sample",
  fbs: "FBS",
  fbp: "FBP",
  laplace: "Laplace",
};

function cellLabel(labels: SurveySummary["labels"], c: number): string {
  const [f, g] = [labels[0][c], labels[1][c]];
  if (f === MARGIN_LABEL) return g === MARGIN_LABEL ? "All fields" : `All fields, ${g}`;
  return g === MARGIN_LABEL ? `${f} total` : `${f}, ${g}`;
}

/** Mean over the 24 paper cells of FBP's mean CI length over FBS's. */
function lengthRatio(fbp: readonly number[], fbs: readonly number[]): number {
  const rows = paperTableRows();
  return rows.reduce((s, c) => s + fbp[c] / fbs[c], 0) / rows.length;
}

/** A note naming the settings that differ from {@linkcode SURVEY_SETTINGS} (none: no note). */
function nonDefault(settings: SurveySettings): string[] {
  const keys = (Object.keys(SURVEY_SETTINGS) as (keyof SurveySettings)[]).filter((key) =>
    JSON.stringify(settings[key]) !== JSON.stringify(SURVEY_SETTINGS[key])
  );
  if (keys.length === 0) return [];
  const show = (value: unknown) => JSON.stringify(value).replaceAll('"', "");
  return [
    "- **Reduced settings**: this run differs from the defaults of `deno task study survey` in " +
    keys.map((key) => `${key} = ${show(settings[key])} (default ${show(SURVEY_SETTINGS[key])})`)
      .join(", ") +
    ".",
  ];
}

/**
 * The markdown report of the survey study.
 *
 * @param result The study result.
 * @param footer Machine-dependent lines (wall time).
 */
export function surveyMarkdown(
  result: StudyResult<SurveySettings, SurveyRecord, SurveySummary>,
  footer: string,
): string {
  const { settings, summary, replicates } = result;
  const eps = (m: number) => md.fmt(2 * settings.lipschitz * m, 1);
  // The ε of each row: 2·Δ·m with Δ of replicate 0's fit (pooled: the largest Δ), 2·Δ*·m for
  // Laplace.
  const epsOf = (method: Method, m: number, pooled: boolean) => {
    if (method === "laplace") return `ε = ${eps(m)}`;
    const delta = pooled
      ? summary.fits[method].lipschitz.max
      : result.records[0].fits[method].lipschitz;
    return `ε ${pooled ? "≤ " : "= "}${md.fmt(2 * delta * m, 1)}`;
  };
  const ratioRows = (source: SurveySummary["ratios"], kind: Quantity) =>
    SURVEY_METHODS.flatMap((method) =>
      settings.ms.map((m) => {
        const s = source[method][`m${m}`][kind];
        return [
          LABELS[method],
          `${m} (${epsOf(method, m, source === summary.ratiosPooled)})`,
          ...md.quantileCells(s, 2),
        ];
      })
    );
  const ratioHeader = ["method", "m", "min", "q25", "median", "q75", "max"];
  const rows = paperTableRows();
  const coverageTable = (kind: Quantity) => {
    const paper = PAPER_TABLES_4_5[kind];
    const digits = 0;
    return md.markdownTable(
      [
        "cell",
        "Pop. (ours)",
        "Pop. (paper)",
        "FBS cov.",
        "(paper)",
        "FBS CI",
        "(paper)",
        "FBP cov.",
        "(paper)",
        "FBP CI",
        "(paper)",
        "Sample cov.",
        "Laplace cov.",
        "FBS CV",
        "FBP CV",
      ],
      rows.map((c, k) => {
        const cov = (method: CoverageMethod) => summary.coverage[method];
        return [
          cellLabel(summary.labels, c),
          md.fmt(summary.truth[kind][c], digits),
          md.fmt(paper[k][0], 0),
          md.fmt(cov("fbs").coverage[kind][c], 2),
          md.fmt(paper[k][1], 2),
          md.fmt(cov("fbs").length[kind][c], 0),
          md.fmt(paper[k][2], 0),
          md.fmt(cov("fbp").coverage[kind][c], 2),
          md.fmt(paper[k][3], 2),
          md.fmt(cov("fbp").length[kind][c], 0),
          md.fmt(paper[k][4], 0),
          md.fmt(cov("sample").coverage[kind][c], 2),
          md.fmt(cov("laplace").coverage[kind][c], 2),
          md.fmt(cov("fbs").cv[kind][c], 3),
          md.fmt(cov("fbp").cv[kind][c], 3),
        ];
      }),
    );
  };
  const meanCoverage = (method: CoverageMethod, kind: Quantity) =>
    rows.reduce((s, c) => s + summary.coverage[method].coverage[kind][c], 0) / rows.length;
  const paperMean = (kind: Quantity, column: 1 | 3) =>
    PAPER_TABLES_4_5[kind].reduce((s, row) => s + row[column], 0) / rows.length;
  const paperLengthRatio = (kind: Quantity) =>
    PAPER_TABLES_4_5[kind].reduce((s, row) => s + row[4] / row[2], 0) / rows.length;
  const overview = QUANTITIES.map((kind) => [
    kind === "count" ? "counts" : "mean salaries",
    ...COVERAGE_METHODS.map((method) => md.fmt(meanCoverage(method, kind), 3)),
    `${md.fmt(paperMean(kind, 1), 3)} / ${md.fmt(paperMean(kind, 3), 3)}`,
    md.fmt(
      lengthRatio(
        summary.coverage.fbp.length[kind],
        summary.coverage.fbs.length[kind],
      ),
      2,
    ),
    md.fmt(paperLengthRatio(kind), 2),
  ]);
  const fitRows = SURVEY_SYNTHESIZERS.map((method) => {
    const f = summary.fits[method];
    return [
      LABELS[method],
      md.medianRange(f.lipschitz, 3),
      `${md.fmt(2 * f.lipschitz.max * settings.coverageM, 2)}`,
      md.medianRange(f.unweightedLipschitz, 2),
      `${f.missedTarget} of ${replicates}`,
    ];
  });
  const first = result.records[0];
  const missed = SURVEY_SYNTHESIZERS.filter((method) => summary.fits[method].missedTarget > 0);
  return md.studyDocument([
    "# Study 4: private survey tables under informative sampling",
    "",
    "SPEC §9.4; survey paper §4.1–4.4 (Figures 5–6), Appendix F (Tables 4–5). Population of " +
    `N = ${settings.populationSize} units (field × gender shares of the SDR Table 2 Sample ` +
    "column, log-salary ~ N(log μ_fg, 0.4²), log π = log y + N(0, 0.4²)); R = " +
    `${replicates} stratified PPS samples of n = ${settings.n} (fields as strata, proportional ` +
    "allocation, with replacement). FBS and FBP with LW_final weights calibrated once per sample " +
    `to Δ ≤ Δ* = ${settings.lipschitz} (ε = 2·Δ*·m = ${
      settings.ms.map((m) => eps(m)).join(", ")
    } for m = ${settings.ms.join(", ")}; the first m of ${
      settings.ms[settings.ms.length - 1]
    } synthetic samples); Laplace at the same total ε (R = ${settings.laplaceReplicates} random-group replicates). ` +
    `All errors against the POPULATION values. Seed ${result.seed}.`,
    "",
    ...(missed.length === 0 ? [] : [
      `**Target not reached:** ${
        missed.map((method) =>
          `${LABELS[method]} missed Δ* = ${settings.lipschitz} on ${
            summary.fits[method].missedTarget
          } of ${replicates} samples and ran with its cap just above the smallest Δ its ` +
          `calibration reached (the records' \`cap\`): Δ up to ${
            md.fmt(summary.fits[method].lipschitz.max, 3)
          }, so its ε at m = ` +
          `${settings.coverageM} is up to ${
            md.fmt(2 * summary.fits[method].lipschitz.max * settings.coverageM, 2)
          }, not ${eps(settings.coverageM)}`
        ).join("; ")
      }. Its numbers below are at that larger ε; Laplace stays at ε = 2·Δ*·m.`,
      "",
    ]),
    "## Calibration",
    "",
    md.markdownTable(
      [
        "synthesizer",
        "Δ_{α,x}: median [min, max]",
        `largest ε at m = ${settings.coverageM}`,
        "unweighted Δ_x: median [min, max]",
        "missed Δ*",
      ],
      fitRows,
    ),
    "",
    `The paper: both Δ_α ≈ 1.8 (ε = 10.8 at m = 3); unweighted Δ_x 8.89 (FBS) and 9.92 (FBP). ` +
    `Sample correlation of salary and weight: median ${
      md.fmt(summary.sampleCorrelation.median, 3)
    } (paper: −0.58 in its sample, −0.57 in the population).`,
    "",
    `Replicate 0: FBS Δ = ${md.fmt(first.fits.fbs.lipschitz, 3)} (${first.fits.fbs.finalFit}), ` +
    `FBP Δ = ${md.fmt(first.fits.fbp.lipschitz, 3)} (${first.fits.fbp.finalFit}).`,
    "",
    "## Figures 5–6: RMSE ratios over the 27 cells (one sample: replicate 0)",
    "",
    "RMSE = √(bias² + SE²) per cell against the population value; ratio = method / confidential " +
    "sample (Taylor SE). Below 1: the private table beats the confidential sample.",
    "",
    "### Counts",
    "",
    md.markdownTable(ratioHeader, ratioRows(summary.ratios, "count")),
    "",
    "### Mean salaries",
    "",
    md.markdownTable(ratioHeader, ratioRows(summary.ratios, "mean")),
    "",
    `### Pooled over all ${replicates} samples (27·R ratios)`,
    "",
    md.markdownTable(
      ["quantity", ...ratioHeader],
      [
        ...ratioRows(summary.ratiosPooled, "count").map((row) => ["counts", ...row]),
        ...ratioRows(summary.ratiosPooled, "mean").map((row) => ["means", ...row]),
      ],
    ),
    "",
    "The paper prints no numbers for Figures 5–6 (violin plots); what it states: on counts FBS " +
    "has the smallest ratios, FBP next, Laplace clearly worse; on mean salaries FBS and FBP are " +
    "dramatically better than Laplace and FBP is the more contracted; many FBS count ratios and " +
    "FBP mean ratios are below 1; raising m from 1 to 3 to 5 contracts the ratios slightly " +
    "(counts; FBP means), with little effect on FBS means. Figure 6's count axis reaches 2.",
    "",
    `## Tables 4–5: coverage over R = ${replicates} samples (m = ${settings.coverageM}, ε = ${
      eps(settings.coverageM)
    })`,
    "",
    "Mean coverage of the nominal 95% intervals over the 24 cells of Tables 4–5 (field totals and " +
    "field × gender), and FBP's mean CI length relative to FBS's (mean over cells of the ratio):",
    "",
    md.markdownTable(
      [
        "quantity",
        ...COVERAGE_METHODS.map((m) => LABELS[m]),
        "paper FBS / FBP",
        "FBP/FBS CI length",
        "(paper)",
      ],
      overview,
    ),
    "",
    "The paper's captions say FBP's intervals are 1.38× FBS's for counts and 0.97× for means " +
    "(mean over its printed cells of the ratio: the last column). Sample and Laplace intervals " +
    "are q ± 1.96·SE; FBS and FBP use t_ν of the combining rules.",
    "",
    "### Table 4: counts",
    "",
    coverageTable("count"),
    "",
    "### Table 5: mean salaries",
    "",
    coverageTable("mean"),
    "",
    "## Differences from the paper",
    "",
    "- **Population**: our cell sizes are the SDR Table 2 Sample shares rounded to N exactly " +
    "(SPEC §9.4); the paper's Pop. column has other shares (e.g. Field 1 total 27,963 vs our " +
    "≈27,300; Field 2 2,734 vs ≈4,440), so the paper's population did not follow Table 2's " +
    "weighted shares exactly. Our mean salaries are lognormal means μ_fg·e^{0.08}, ≈8% above " +
    "Table 3; the paper's Pop. means differ from both by a few percent.",
    "- **Weights**: π*_i = n_h·π_i/Σ_h π (the paper's footnote-5 approximation), not the exact " +
    "inclusion probabilities of R's `sampling::inclusionprobabilities`.",
    "- **Calibration**: LW_final with an automatic search of the shift g (c = 1) and Algorithm 3 " +
    "re-weighting; the paper tunes (c₁, c₂) by hand. Δ is the maximum over all S posterior draws.",
    "- **FBP's likelihood scale**: ℓ_i is eq. (6) plus log π_i, the density of (log y, log π) " +
    "rather than of (log y, π), so that Δ does not change with the units of the weights " +
    "(docs/decisions.md). The posterior is the same, but Δ is not: eq. (6)'s Δ_x moves with " +
    "the scale of π, which the paper does not state, so its 9.92 is not strictly comparable " +
    "to our unweighted Δ_x.",
    "- **FBS counts**: FBS's smoothed weight is exp(E(log w | ỹ)) (SPEC §5), the median of the " +
    "lognormal weight, not its mean: Σw* falls short of N by about e^{−σ_w²(1−ρ²)/2} ≈ 0.92 " +
    "at σ_w² ≈ 0.32, ρ ≈ −0.71 (measured: Σw*/N = 0.91–0.94 on three samples), and FBS's intervals for large counts (field totals) then miss " +
    "far more often than the paper's. FBP's weights are scaled to the public stratum sizes, " +
    "which is the likely reason its counts cover and beat FBS's on RMSE, against the paper's " +
    "ranking.",
    "- **FBP margin means**: FBP draws y* from the population model and then weights the margins " +
    "by w* ∝ e^{−κ_y ỹ*}, which tilts a margin's mean salary down (by κ_yσ_y² on the log " +
    "scale; measured on one sample, field 1's margin mean came out 11% below the population's " +
    "with κ_y = 0.99); its field × gender means are unweighted and cover. The paper's FBP margins also " +
    "cover less than its cells, but by less than ours. Both weight rules follow SPEC §5/§8 and " +
    "were left as they are for this run.",
    "- **Priors and sampler**: the project's FBS uses N(0, 10²) coefficients (SPEC §5), not the " +
    "paper's LKJ/half-t hierarchy; our NUTS with a dense metric for both synthesizers, not Stan.",
    `- **Replicates**: R = ${replicates}${
      replicates < 100
        ? ` only, against the paper's 100: a coverage rate from ${replicates} samples has a ` +
          `standard error of up to ${md.fmt(Math.sqrt(0.25 / replicates), 2)}. The full run is ` +
          "`deno task study survey --replicates 100` (hours on a few cores)"
        : ""
    }.`,
    ...nonDefault(settings),
    md.samplerParagraph(settings.sampler, summary.fitStats, {
      note: false,
      likelihood: "on a likelihood parameter.",
    }),
  ], footer);
}
