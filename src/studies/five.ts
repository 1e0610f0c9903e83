/**
 * Study 3, five synthesizers on bounded skewed data (SPEC §9.3; JSM censoring slides "Simulation
 * design" and the results that follow): R databases of n = 2000 draws from Beta(0.5, 3), the beta
 * intercept-only synthesizer, ε ∈ {5, 4, 3} and m = 1, with
 *
 * 1. Weighted: LW weights (c = 1) with the shift g calibrated per database to ε (aDP);
 * 2. Weighted-e: a fixed LW rule, c_ε = ε/5 and g = 0, truncated at ε/2 (aDP);
 * 3. Censor w: the same fixed LW weights with every contribution clamped to ±ε/2 (DP);
 * 4. Censor uw: α = 1, clamped to ±ε/2 (DP);
 * 5. PH: the perturbed histogram on [0, 1] with ⌈n^{1/3}⌉ bins (DP; seeded noise here).
 *
 * Weighted-e's rule is fixed per ε, not calibrated per database. It is the paper's Algorithm 1
 * (c = 1, g = 0) at ε = 5, where that rule's Δ already sits near ε/2 = 2.5 (a pilot on eight
 * databases gave 2.17–2.64), downscaled at smaller ε by c₁ = ε/5 (the slides' "fine tuning with
 * downscaling α̃_i = c₁·α_i"), so its Δ before truncation is near ε/2 at every ε and truncation
 * trims the databases and records above it. Censor w uses the same weights, so Weighted-e and
 * Censor w differ only in how they enforce ε/2: truncate and refit, or clamp.
 *
 * For each ε and synthesizer: the Lipschitz bound (for censoring the bound of the clamped
 * contributions, min(C, max|α_i ℓ_i|) ≤ ε/2; none for PH), the ECDF utility (max and mean
 * squared difference, Woo et al. 2009) and the synthetic median against the analytic median of
 * Beta(0.5, 3), found by bisection on the regularized incomplete beta function.
 *
 * Streams of replicate r's generator: data split(0); fits `fitSeedOf`; the synthetic dataset of
 * ε index e and synthesizer j SYNTHESIS_STREAM + 5e + j; the histogram noise NOISE_STREAM + e.
 *
 * @module
 */
import { CalibrationError } from "../mechanisms/calibrate.ts";
import { sampleFromHistogram } from "../mechanisms/histogram.ts";
import type { MechanismOutcome } from "../mechanisms/mechanism.ts";
import { runMechanism } from "../mechanisms/run_mechanism.ts";
import { createModel } from "../models/mod.ts";
import { lgamma } from "../models/special.ts";
import { sampleBeta, sampleLaplace } from "../random/distributions.ts";
import { datasetDrawIndices } from "../synthesis/synthesize.ts";
import { type SampleSummary, utilityOf } from "../synthesis/utility.ts";
import {
  fitSeedOf,
  type FitStats,
  fmt,
  markdownTable,
  NOISE_STREAM,
  replicateFits,
  replicateRng,
  SAMPLER_NOTE,
  type SamplerSettings,
  type Study,
  STUDY_SAMPLER,
  type StudyResult,
  summarize,
  type Summary,
  SYNTHESIS_STREAM,
  totalFitStats,
} from "./study_runner.ts";

/**
 * The continued fraction of the incomplete beta function (modified Lentz), as in Numerical
 * Recipes §6.4 `betacf`; converges fast for x < (a + 1)/(a + b + 2).
 */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 1000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-16) return h;
  }
  return h;
}

/**
 * The regularized incomplete beta function I_x(a, b) = B(x; a, b)/B(a, b), the CDF of
 * Beta(a, b) at x, by the continued fraction of Numerical Recipes §6.4 (with I_x(a, b) =
 * 1 − I_{1−x}(b, a) where that converges faster).
 *
 * @param x In [0, 1].
 * @param a Positive shape.
 * @param b Positive shape.
 *
 * @example I_x(1, b) = 1 − (1 − x)^b
 * ```ts
 * import assert from "node:assert/strict";
 * import { regularizedIncompleteBeta } from "./five.ts";
 * assert.ok(Math.abs(regularizedIncompleteBeta(0.3, 1, 3) - (1 - 0.7 ** 3)) < 1e-14);
 * ```
 */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (!(a > 0) || !Number.isFinite(a)) throw new RangeError(`Invalid a: must be positive: a=${a}`);
  if (!(b > 0) || !Number.isFinite(b)) throw new RangeError(`Invalid b: must be positive: b=${b}`);
  if (!(x >= 0 && x <= 1)) throw new RangeError(`Invalid x: must lie in [0, 1]: x=${x}`);
  if (x === 0 || x === 1) return x;
  const front = Math.exp(
    lgamma(a + b) - lgamma(a) - lgamma(b) + a * Math.log(x) + b * Math.log1p(-x),
  );
  return x < (a + 1) / (a + b + 2)
    ? (front * betaContinuedFraction(x, a, b)) / a
    : 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
}

/**
 * The median of Beta(a, b): the x with I_x(a, b) = 1/2, by bisection on [0, 1] until the bracket
 * stops shrinking in floating point.
 *
 * @example Beta(1, b) has median 1 − 2^{−1/b}
 * ```ts
 * import assert from "node:assert/strict";
 * import { betaMedian } from "./five.ts";
 * assert.ok(Math.abs(betaMedian(1, 3) - (1 - 2 ** (-1 / 3))) < 1e-14);
 * ```
 */
export function betaMedian(a: number, b: number): number {
  let lo = 0;
  let hi = 1;
  for (let iteration = 0; iteration < 200; iteration++) {
    const mid = (lo + hi) / 2;
    if (mid <= lo || mid >= hi) break;
    if (regularizedIncompleteBeta(mid, a, b) < 0.5) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Settings of the five-synthesizer study. */
export interface FiveSettings {
  /** Records per database. */
  readonly n: number;
  /** Shapes (a, b) of the Beta data. */
  readonly shape: readonly [number, number];
  /** Targets ε (m = 1). */
  readonly epsilons: readonly number[];
  /** Weighted-e and Censor w use LW weights with c = ε/reference, g = 0. */
  readonly reference: number;
  /** Histogram bins (null: ⌈n^{1/3}⌉). */
  readonly bins: number | null;
  readonly sampler: SamplerSettings;
}

/** SPEC §9.3 at full size: n = 2000, Beta(0.5, 3), ε ∈ {5, 4, 3}, c_ε = ε/5. */
export const FIVE_SETTINGS: FiveSettings = Object.freeze({
  n: 2000,
  shape: [0.5, 3] as const,
  epsilons: [5, 4, 3],
  reference: 5,
  bins: null,
  sampler: STUDY_SAMPLER,
});

/** The five synthesizers, by their `runMechanism` names ("lw" is Weighted). */
export const FIVE_MECHANISMS = ["lw", "weighted-e", "censored-w", "censored", "histogram"] as const;
type FiveMechanism = typeof FIVE_MECHANISMS[number];

/** The slides' labels. */
export const FIVE_LABELS: Readonly<Record<FiveMechanism, string>> = Object.freeze({
  lw: "Weighted",
  "weighted-e": "Weighted-e",
  "censored-w": "Censor w",
  censored: "Censor uw",
  histogram: "PH",
});

/** One synthesizer at one ε on one database. */
export interface FiveEntry {
  /** Δ of the released draws (censoring: of the clamped contributions; PH: null). */
  readonly lipschitz: number | null;
  /** ε of the release. */
  readonly epsilon: number;
  /** Censoring only: max_{i,s} |α_i ℓ_i(θ_s)| before clamping. */
  readonly unclamped: number | null;
  /** Weighted: the calibrated g. */
  readonly g: number | null;
  /** Records with α_i = 0. */
  readonly zeroWeights: number;
  readonly synthetic: SampleSummary;
  readonly ecdfMax: number;
  readonly ecdfMeanSquared: number;
}

/** Replicate r: the data's summary and, per ε, each synthesizer (null if calibration failed). */
export interface FiveRecord {
  readonly r: number;
  readonly data: SampleSummary;
  readonly epsilons: readonly {
    readonly epsilon: number;
    readonly mechanisms: Readonly<Record<FiveMechanism, FiveEntry | null>>;
  }[];
  readonly fits: FitStats;
}

function lipschitzOf(outcome: MechanismOutcome): number | null {
  if (outcome.bound === null) return null;
  return outcome.censor === undefined
    ? outcome.lipschitz
    : Math.min(outcome.censor, outcome.bound.overall);
}

/**
 * Runs replicate r of the five-synthesizer study.
 *
 * @param r Replicate index (0-based).
 * @param seed The study seed.
 * @param settings n, the Beta shapes, the ε's, the Weighted-e reference, bins and the sampler.
 * @param stage Progress callback.
 */
export async function fiveReplicate(
  r: number,
  seed: number,
  settings: FiveSettings,
  stage: (stage: string) => void = () => {},
): Promise<FiveRecord> {
  const rng = replicateRng(seed, r);
  const data = rng.split(0);
  const [a, b] = settings.shape;
  const y = new Float64Array(settings.n);
  for (let i = 0; i < settings.n; i++) y[i] = sampleBeta(data, a, b);
  const model = createModel("beta", {
    n: settings.n,
    k: 1,
    y,
    x: new Float64Array(settings.n).fill(1),
    coefficientNames: ["intercept"],
  });
  const noise = settings.epsilons.map((_, e) => rng.split(NOISE_STREAM + e));
  let current = 0;
  const fits = replicateFits(model, fitSeedOf(rng), {
    sampler: settings.sampler,
    laplace: (scale) => sampleLaplace(noise[current], 0, scale),
  });
  const epsilons = [];
  for (const [e, epsilon] of settings.epsilons.entries()) {
    current = e;
    const mechanisms = {} as Record<FiveMechanism, FiveEntry | null>;
    for (const [j, mechanism] of FIVE_MECHANISMS.entries()) {
      stage(`ε=${epsilon} ${FIVE_LABELS[mechanism]}`);
      const fixed = mechanism === "weighted-e" || mechanism === "censored-w";
      let outcome: MechanismOutcome;
      try {
        outcome = await runMechanism({
          mechanism,
          m: 1,
          epsilon,
          c: fixed ? epsilon / settings.reference : 1,
          g: fixed ? 0 : undefined,
          radius: 0.1,
          relativeRadius: true,
          lower: 0,
          upper: 1,
          bins: settings.bins ?? undefined,
        }, fits.context);
      } catch (error) {
        if (!(error instanceof CalibrationError)) throw error;
        mechanisms[mechanism] = null;
        continue;
      }
      const synthesis = rng.split(SYNTHESIS_STREAM + 5 * e + j);
      let synthetic: Float64Array;
      if (outcome.fit === null) {
        synthetic = sampleFromHistogram(outcome.histogram!, settings.n, synthesis);
      } else {
        const [draw] = datasetDrawIndices(outcome.fit.S, 1);
        synthetic = model.simulate(
          outcome.fit.draws.subarray(draw * model.dim, (draw + 1) * model.dim),
          synthesis,
          new Float64Array(settings.n),
        );
      }
      const utility = utilityOf(y, synthetic);
      mechanisms[mechanism] = {
        lipschitz: lipschitzOf(outcome),
        epsilon: outcome.privacy.epsilon,
        unclamped: outcome.censor === undefined ? null : outcome.bound!.overall,
        g: mechanism === "lw" ? outcome.g ?? null : null,
        zeroWeights: outcome.alpha === null ? 0 : outcome.alpha.filter((v) => v === 0).length,
        synthetic: utility.synthetic,
        ecdfMax: utility.ecdfMax,
        ecdfMeanSquared: utility.ecdfMeanSquared,
      };
    }
    epsilons.push({ epsilon, mechanisms });
  }
  return { r, data: utilityOf(y, y).confidential, epsilons, fits: fits.stats() };
}

/** One synthesizer at one ε over the replicates. */
export interface FiveCell {
  /** Replicates where it ran (calibration succeeded). */
  readonly replicates: number;
  /** Δ over replicates (null for PH). */
  readonly lipschitz: Summary | null;
  /** Share of replicates with Δ > ε/2 (null for PH). */
  readonly shareAbove: number | null;
  readonly ecdfMax: Summary;
  readonly ecdfMeanSquared: Summary;
  /** The synthetic median over replicates. */
  readonly median: Summary;
  /** Mean of (synthetic median − analytic median). */
  readonly medianBias: number;
  /** √mean (synthetic median − analytic median)². */
  readonly medianRmse: number;
  readonly zeroWeightsMean: number;
}

/** The aggregate of the five-synthesizer study. */
export interface FiveSummary {
  /** The median of Beta(a, b), by bisection on I_x(a, b). */
  readonly analyticMedian: number;
  /** The confidential data's median over replicates. */
  readonly dataMedian: Summary;
  readonly epsilons: readonly {
    readonly epsilon: number;
    readonly mechanisms: Readonly<Record<FiveMechanism, FiveCell | null>>;
    /** Synthesizers from best to worst by mean max-ECDF. */
    readonly rankEcdfMax: readonly FiveMechanism[];
    /** Synthesizers from best to worst by mean mean-squared ECDF. */
    readonly rankEcdfMeanSquared: readonly FiveMechanism[];
  }[];
  readonly fits: ReturnType<typeof totalFitStats>;
}

/**
 * Aggregates five-synthesizer records (pure).
 *
 * @param records The replicates' records, in replicate order.
 * @param settings The study settings.
 */
export function fiveAggregate(
  records: readonly FiveRecord[],
  settings: FiveSettings,
): FiveSummary {
  const truth = betaMedian(settings.shape[0], settings.shape[1]);
  const epsilons = settings.epsilons.map((epsilon, e) => {
    const mechanisms = {} as Record<FiveMechanism, FiveCell | null>;
    for (const mechanism of FIVE_MECHANISMS) {
      const entries = records.map((record) => {
        if (record.epsilons[e].epsilon !== epsilon) {
          throw new RangeError(`Invalid record ${record.r}: entry ${e} is not ε=${epsilon}`);
        }
        return record.epsilons[e].mechanisms[mechanism];
      }).filter((entry) => entry !== null);
      if (entries.length === 0) {
        mechanisms[mechanism] = null;
        continue;
      }
      const bounds = entries.map((x) => x.lipschitz).filter((l) => l !== null);
      const medians = entries.map((x) => x.synthetic.median);
      mechanisms[mechanism] = {
        replicates: entries.length,
        lipschitz: bounds.length === 0 ? null : summarize(bounds),
        shareAbove: bounds.length === 0
          ? null
          : bounds.filter((l) => l > epsilon / 2).length / bounds.length,
        ecdfMax: summarize(entries.map((x) => x.ecdfMax)),
        ecdfMeanSquared: summarize(entries.map((x) => x.ecdfMeanSquared)),
        median: summarize(medians),
        medianBias: medians.reduce((s, m) => s + (m - truth), 0) / medians.length,
        medianRmse: Math.sqrt(medians.reduce((s, m) => s + (m - truth) ** 2, 0) / medians.length),
        zeroWeightsMean: entries.reduce((s, x) => s + x.zeroWeights, 0) / entries.length,
      };
    }
    const rank = (key: "ecdfMax" | "ecdfMeanSquared") =>
      FIVE_MECHANISMS.filter((m) => mechanisms[m] !== null)
        .sort((p, q) => mechanisms[p]![key].mean - mechanisms[q]![key].mean);
    return {
      epsilon,
      mechanisms,
      rankEcdfMax: rank("ecdfMax"),
      rankEcdfMeanSquared: rank("ecdfMeanSquared"),
    };
  });
  return {
    analyticMedian: truth,
    dataMedian: summarize(records.map((r) => r.data.median)),
    epsilons,
    fits: totalFitStats(records.map((r) => r.fits)),
  };
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
          l === null
            ? "–"
            : `${fmt(l.min, 3)} / ${fmt(l.q25, 3)} / ${fmt(l.median, 3)} / ${fmt(l.q75, 3)} / ${
              fmt(l.max, 3)
            }`,
          cell.shareAbove === null ? "–" : `${fmt(100 * cell.shareAbove, 0)}%`,
          fmt(cell.ecdfMax.mean, 4),
          `${fmt(cell.ecdfMax.q25, 4)}–${fmt(cell.ecdfMax.q75, 4)}`,
          fmt(1000 * cell.ecdfMeanSquared.mean, 3),
          `${fmt(1000 * cell.ecdfMeanSquared.q25, 3)}–${fmt(1000 * cell.ecdfMeanSquared.q75, 3)}`,
          fmt(cell.median.median, 4),
          `${fmt(cell.median.min, 4)}–${fmt(cell.median.max, 4)}`,
          fmt(cell.medianBias, 4),
          fmt(cell.medianRmse, 4),
          fmt(cell.zeroWeightsMean, 1),
        ];
      });
      return [
        `## ε = ${epsilon} (Δ target ε/2 = ${epsilon / 2})`,
        "",
        markdownTable(
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
  const best = (rank: readonly FiveMechanism[], measure: string) =>
    rank[0] === "lw" ? `best by ${measure}` : `not best by ${measure} (${FIVE_LABELS[rank[0]]} is)`;
  const verdict = summary.epsilons.map(({ epsilon, rankEcdfMax, rankEcdfMeanSquared }) =>
    `- ε = ${epsilon}: Weighted is ${best(rankEcdfMax, "max-ECDF")} and ` +
    `${best(rankEcdfMeanSquared, "avg-ECDF")}; Censor w ranks ` +
    `${rankEcdfMax.indexOf("censored-w") + 1} and ${
      rankEcdfMeanSquared.indexOf("censored-w") + 1
    }` +
    ` of ${rankEcdfMax.length}.`
  );
  const weightedE = summary.epsilons.map(({ epsilon, mechanisms }) => {
    const cell = mechanisms["weighted-e"];
    return cell === null || cell.lipschitz === null
      ? `ε = ${epsilon}: –`
      : `ε = ${epsilon}: Δ ${fmt(cell.lipschitz.min, 3)}–${fmt(cell.lipschitz.max, 3)}, ` +
        `${fmt(100 * cell.shareAbove!, 0)}% above ε/2, ${fmt(cell.zeroWeightsMean, 1)} records ` +
        "zeroed on average";
  });
  const fits = summary.fits;
  return [
    `# Study 3: five synthesizers on Beta(${a}, ${b}) data`,
    "",
    `SPEC §9.3; JSM censoring slides. R = ${result.replicates} databases of n = ${settings.n} ` +
    `draws from Beta(${a}, ${b}); beta intercept-only synthesizer; one synthetic dataset per ` +
    `synthesizer, ε and replicate (m = 1). Seed ${result.seed}.`,
    "",
    "- **Weighted**: LW weights, c = 1, shift g calibrated per database so that Δ ≤ ε/2 (aDP).",
    `- **Weighted-e**: the fixed LW rule c = ε/${settings.reference}, g = 0, then records with ` +
    "Δ_{α,x_i} > ε/2 get α_i = 0 and the model is refit (up to five rounds) (aDP).",
    `- **Censor w**: the same fixed LW weights (c = ε/${settings.reference}, g = 0), each ` +
    "contribution clamped to ±ε/2 (DP). Its Δ is that of the clamped contributions.",
    "- **Censor uw**: α = 1, clamped to ±ε/2 (DP).",
    `- **PH**: perturbed histogram on [0, 1], ${
      settings.bins ?? "⌈n^{1/3}⌉ = " + Math.ceil(Math.cbrt(settings.n))
    } ` +
    "bins, Laplace(2/ε) per count (DP; seeded noise in this study, never in a release).",
    "",
    `Analytic median of Beta(${a}, ${b}) (bisection on I_x(a, b) = 1/2): ` +
    `**${summary.analyticMedian.toFixed(6)}**; the confidential data's median over replicates: ` +
    `${fmt(summary.dataMedian.median, 4)} (range ${fmt(summary.dataMedian.min, 4)}–` +
    `${fmt(summary.dataMedian.max, 4)}). max-ECDF = max |F − F*| and avg-ECDF = mean (F − F*)² ` +
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
    `- **Sampler**: ${settings.sampler.chains} chains × (${settings.sampler.warmup} warmup + ` +
    `${settings.sampler.draws} draws) per fit. ${SAMPLER_NOTE} ` +
    `Of ${fits.fits} distinct fits, ${fits.flagged} (${fmt(100 * fits.flaggedShare, 1)}%) are ` +
    `flagged (R̂ > 1.01 or bulk ESS < 400), ${fits.flaggedLikelihood} ` +
    `(${fmt(100 * fits.flaggedLikelihoodShare, 1)}%) on a likelihood parameter (β₀ or φ). ` +
    `Divergences: ${fits.divergences}.`,
    "",
    footer,
    "",
  ].join("\n");
}

/** The five-synthesizer study, for `runStudy` and the worker. */
export const study: Study<FiveSettings, FiveRecord, FiveSummary> = {
  name: "five",
  module: import.meta.url,
  replicate: fiveReplicate,
  aggregate: fiveAggregate,
  markdown: fiveMarkdown,
};
