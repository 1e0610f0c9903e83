/**
 * Study 1, contraction of the local Lipschitz bound (SPEC §9.1; vector-weighted paper Supp 5;
 * JSM 2024 slides "Monte Carlo Simulation at Increasing n"): for n ∈ {100, 400, 1600, 6400} and
 * R databases x_r of n Poisson(100) counts, the local bound Δ_{α,x_r} of the Poisson
 * intercept-only synthesizer under the unweighted posterior, LW weights and Weighted-e (LW
 * truncated at the global target ε = 7, i.e. Δ ≤ 3.5, m = 1). The local bounds contract onto a
 * global Δ_α when their spread max_r − min_r shrinks as n grows (aDP, Savitsky et al. 2022).
 *
 * The LW rule is fixed, not calibrated per database: contraction is about how one weighting rule's
 * Δ behaves as n grows. It is the paper's Algorithm 1 without a shift, c = 1 and g = 0: a pilot on
 * six Poisson(100) databases of n = 1000 (seeds 100–105, 2 × (500 + 500) draws) gave LW bounds
 * 3.41–3.98 (median 3.44) at g = 0, against 3.00–3.44 at g = −0.1 and 3.82–4.58 at g = 0.1, so
 * the unshifted rule sits where the slides put the Poisson contraction (Δ ≈ 3.5, ε = 7).
 *
 * Streams of replicate r's generator: data for the j-th size from split(j); fits from
 * `fitSeedOf`. Every fit of a replicate shares its seed (one seed for all sizes).
 *
 * @module
 */
import type { MechanismName } from "../mechanisms/mechanism.ts";
import { runMechanism } from "../mechanisms/run_mechanism.ts";
import { createModel } from "../models/mod.ts";
import { samplePoisson } from "../random/distributions.ts";
import {
  fitSeedOf,
  type FitStats,
  fmt,
  markdownTable,
  replicateFits,
  replicateRng,
  SAMPLER_NOTE,
  type SamplerSettings,
  type Study,
  STUDY_SAMPLER,
  type StudyResult,
  summarize,
  type Summary,
  totalFitStats,
} from "./study_runner.ts";

/** Settings of the contraction study. */
export interface ContractionSettings {
  /** Database sizes n. */
  readonly sizes: readonly number[];
  /** Mean μ of the Poisson data. */
  readonly mean: number;
  /** The fixed LW rule α_i = clamp(c·(1 − f̃_i) + g, 0, 1). */
  readonly c: number;
  readonly g: number;
  /** Global target ε of Weighted-e (m = 1): records with Δ_{α,x_i} > ε/2 get α_i = 0. */
  readonly epsilon: number;
  readonly sampler: SamplerSettings;
}

/** SPEC §9.1 at full size: n ∈ {100, 400, 1600, 6400}, Poisson(100), c = 1, g = 0, ε = 7. */
export const CONTRACTION_SETTINGS: ContractionSettings = Object.freeze({
  sizes: [100, 400, 1600, 6400],
  mean: 100,
  c: 1,
  g: 0,
  epsilon: 7,
  sampler: STUDY_SAMPLER,
});

/** The mechanisms compared, by their `runMechanism` names. */
export const CONTRACTION_MECHANISMS = ["unweighted", "lw", "weighted-e"] as const;

/** One mechanism on one database. */
export interface ContractionEntry {
  /** Δ_{α,x_r} of the final fit (max over its S draws and n records). */
  readonly lipschitz: number;
  /** Posterior mean of μ = e^{β₀} under the final fit (the slides' utility figure). */
  readonly muMean: number;
  /** Records with α_i = 0 (LW gives the riskiest record 0; truncation adds more). */
  readonly zeroWeights: number;
  /** Fits behind the result (Weighted-e: the LW fit and its truncation refits). */
  readonly refits: number;
}

/** Replicate r: one database per size, three mechanisms on each. */
export interface ContractionRecord {
  readonly r: number;
  readonly sizes: readonly {
    readonly n: number;
    readonly mechanisms: Readonly<Record<typeof CONTRACTION_MECHANISMS[number], ContractionEntry>>;
  }[];
  readonly fits: FitStats;
}

/**
 * Runs replicate r of the contraction study.
 *
 * @param r Replicate index (0-based).
 * @param seed The study seed.
 * @param settings Sizes, data mean, the LW rule, ε and the sampler.
 * @param stage Progress callback.
 */
export async function contractionReplicate(
  r: number,
  seed: number,
  settings: ContractionSettings,
  stage: (stage: string) => void = () => {},
): Promise<ContractionRecord> {
  const rng = replicateRng(seed, r);
  const fitSeed = fitSeedOf(rng);
  const stats: FitStats[] = [];
  const sizes = [];
  for (const [j, n] of settings.sizes.entries()) {
    const data = rng.split(j);
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) y[i] = samplePoisson(data, settings.mean);
    const model = createModel("poisson", {
      n,
      k: 1,
      y,
      x: new Float64Array(n).fill(1),
      coefficientNames: ["intercept"],
    });
    const fits = replicateFits(model, fitSeed, {
      sampler: settings.sampler,
      laplace: () => {
        throw new RangeError("Invalid mechanism: the contraction study draws no noise");
      },
    });
    const mechanisms = {} as Record<MechanismName, ContractionEntry>;
    for (const mechanism of CONTRACTION_MECHANISMS) {
      stage(`n=${n} ${mechanism}`);
      const outcome = await runMechanism({
        mechanism,
        m: 1,
        c: settings.c,
        g: settings.g,
        epsilon: mechanism === "weighted-e" ? settings.epsilon : undefined,
        radius: 0.1,
        relativeRadius: true,
      }, fits.context);
      const fit = outcome.fit!;
      let mu = 0;
      for (let s = 0; s < fit.S; s++) mu += Math.exp(fit.draws[s * fit.dim]);
      mechanisms[mechanism] = {
        lipschitz: outcome.lipschitz,
        muMean: mu / fit.S,
        zeroWeights: outcome.alpha === null ? 0 : outcome.alpha.filter((a) => a === 0).length,
        refits: outcome.refits.length - (mechanism === "unweighted" ? 0 : 1),
      };
    }
    stats.push(fits.stats());
    sizes.push({ n, mechanisms });
  }
  const fits = totalFitStats(stats);
  return {
    r,
    sizes,
    fits: {
      fits: fits.fits,
      flagged: fits.flagged,
      flaggedLikelihood: fits.flaggedLikelihood,
      divergences: fits.divergences,
    },
  };
}

/** Δ over replicates for one (n, mechanism). */
export interface ContractionCell {
  readonly lipschitz: Summary;
  /** max − min of Δ over replicates. */
  readonly spread: number;
  /** q75 − q25 of Δ over replicates. */
  readonly iqr: number;
  /** Share of replicates with Δ > ε/2 (the global target 3.5). */
  readonly shareAbove: number;
  readonly muMean: Summary;
  /** Number of zero weights over replicates. */
  readonly zeroWeights: Summary;
  /** Replicates in which every weight is 0 (the fit is the prior; Δ = 0). */
  readonly allWeightsZero: number;
}

/** The aggregate: per size and mechanism, and whether each mechanism's spread shrinks. */
export interface ContractionSummary {
  /** The global target Δ = ε/2. */
  readonly target: number;
  readonly sizes: readonly {
    readonly n: number;
    readonly mechanisms: Readonly<Record<typeof CONTRACTION_MECHANISMS[number], ContractionCell>>;
  }[];
  readonly contraction: Readonly<
    Record<typeof CONTRACTION_MECHANISMS[number], {
      /** max − min per size, in size order. */
      readonly spreads: readonly number[];
      /** q75 − q25 per size, in size order. */
      readonly iqrs: readonly number[];
      /** Spread at the largest n below that at the smallest n. */
      readonly contracts: boolean;
      /** Spread strictly shrinking from each size to the next. */
      readonly monotone: boolean;
    }>
  >;
  readonly fits: ReturnType<typeof totalFitStats>;
}

/**
 * Aggregates contraction records (pure).
 *
 * @param records The replicates' records, in replicate order.
 * @param settings The study settings.
 */
export function contractionAggregate(
  records: readonly ContractionRecord[],
  settings: ContractionSettings,
): ContractionSummary {
  const target = settings.epsilon / 2;
  const sizes = settings.sizes.map((n, j) => {
    const mechanisms = {} as Record<MechanismName, ContractionCell>;
    for (const mechanism of CONTRACTION_MECHANISMS) {
      const entries = records.map((record) => {
        const size = record.sizes[j];
        if (size.n !== n) {
          throw new RangeError(`Invalid record ${record.r}: size ${j} is not n=${n}`);
        }
        return size.mechanisms[mechanism];
      });
      const lipschitz = summarize(entries.map((e) => e.lipschitz));
      mechanisms[mechanism] = {
        lipschitz,
        spread: lipschitz.max - lipschitz.min,
        iqr: lipschitz.q75 - lipschitz.q25,
        shareAbove: entries.filter((e) => e.lipschitz > target).length / entries.length,
        muMean: summarize(entries.map((e) => e.muMean)),
        zeroWeights: summarize(entries.map((e) => e.zeroWeights)),
        allWeightsZero: entries.filter((e) => e.zeroWeights === n).length,
      };
    }
    return { n, mechanisms };
  });
  const contraction = {} as Record<
    typeof CONTRACTION_MECHANISMS[number],
    { spreads: number[]; iqrs: number[]; contracts: boolean; monotone: boolean }
  >;
  for (const mechanism of CONTRACTION_MECHANISMS) {
    const spreads = sizes.map((s) => s.mechanisms[mechanism].spread);
    contraction[mechanism] = {
      spreads,
      iqrs: sizes.map((s) => s.mechanisms[mechanism].iqr),
      contracts: spreads[spreads.length - 1] < spreads[0],
      monotone: spreads.every((s, j) => j === 0 || s < spreads[j - 1]),
    };
  }
  return { target, sizes, contraction, fits: totalFitStats(records.map((r) => r.fits)) };
}

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
      const l = cell.lipschitz;
      return [
        String(n),
        LABELS[mechanism],
        fmt(l.min, 3),
        fmt(l.q25, 3),
        fmt(l.median, 3),
        fmt(l.q75, 3),
        fmt(l.max, 3),
        fmt(cell.spread, 3),
        fmt(cell.iqr, 3),
        `${fmt(100 * cell.shareAbove, 0)}%`,
        fmt(cell.muMean.median, 2),
        `${fmt(cell.zeroWeights.median, 0)} (${fmt(cell.zeroWeights.max, 0)})`,
        String(cell.allWeightsZero),
      ];
    })
  );
  const verdicts = CONTRACTION_MECHANISMS.map((mechanism) => {
    const c = summary.contraction[mechanism];
    const word = c.contracts
      ? (c.monotone ? "contracts (monotonically)" : "contracts")
      : "does not contract";
    const chain = (values: readonly number[]) => values.map((v) => fmt(v, 3)).join(" → ");
    return `- **${LABELS[mechanism]}** ${word}: max − min = ${chain(c.spreads)} and IQR = ` +
      `${chain(c.iqrs)} over n = ${settings.sizes.join(", ")}; median Δ ${
        chain(summary.sizes.map((s) => s.mechanisms[mechanism].lipschitz.median))
      }.`;
  });
  const first = summary.sizes[0];
  const last = summary.sizes[summary.sizes.length - 1];
  const lwLast = summary.sizes[summary.sizes.length - 1].mechanisms.lw;
  const weLast = summary.sizes[summary.sizes.length - 1].mechanisms["weighted-e"];
  const fits = summary.fits;
  return [
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
    `${summary.target} get α_i = 0, refit, up to five rounds). Seed ${result.seed}.`,
    "",
    markdownTable(
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
    `At n = ${settings.sizes[settings.sizes.length - 1]}, ${fmt(100 * lwLast.shareAbove, 0)}% of ` +
    `the LW databases and ${fmt(100 * weLast.shareAbove, 0)}% of the Weighted-e databases have ` +
    `Δ > ${summary.target}.`,
    "",
    "**Why the fixed LW rule drifts.** LW rescales each database's record bounds by that " +
    "database's own extremes, f̃_i = (f_i − min f)/(max f − min f), so with c = 1, g = 0 the " +
    "largest α_i f_i is about max f²/(4(max f − min f)) (at f = max f/2). min f stays near " +
    "|ℓ| at the mode, but max f grows with n as larger databases hold more extreme counts, so " +
    "the rule's bound tends to rise with n: here its median goes from " +
    `${fmt(first.mechanisms.lw.lipschitz.median, 3)} at n = ${first.n} to ` +
    `${fmt(last.mechanisms.lw.lipschitz.median, 3)} at n = ${last.n}.`,
    "",
    "**Truncation cascades.** Weighted-e refits after zeroing the records above 3.5; the refit " +
    "with fewer records has a wider posterior, which pushes further records above 3.5, and so " +
    "on for up to five rounds. The zero-weight columns show how many records it drops: a median " +
    `of ${fmt(last.mechanisms["weighted-e"].zeroWeights.median, 0)} of ${last.n} at n = ` +
    `${last.n}; at n = ${first.n}, ${first.mechanisms["weighted-e"].allWeightsZero} of ` +
    `${result.replicates} databases lost every record (the fit is then the prior, Δ = 0).`,
    "",
    "**The papers.** The vector-weighted paper (Supp 5, Figure 11) reports that LW on Poisson " +
    "data contracts onto the global ε = 2Δ_α = 7 (Δ_α = 3.5), with little mass above 3.5 and " +
    "the probability of exceeding it nearly 0 at n = 1000; the slides add that truncation " +
    "(Weighted-e) contracts faster. Here the fixed LW rule " +
    `${summary.contraction.lw.contracts ? "contracts" : "does not contract"}, with ` +
    `${fmt(100 * first.mechanisms.lw.shareAbove, 0)}% of databases above ${summary.target} at ` +
    `n = ${first.n} and ${fmt(100 * last.mechanisms.lw.shareAbove, 0)}% at n = ${last.n}; ` +
    `Weighted-e ${
      summary.contraction["weighted-e"].contracts ? "contracts" : "does not contract"
    }` +
    `, its median Δ staying at ${fmt(last.mechanisms["weighted-e"].lipschitz.median, 3)} at ` +
    `n = ${last.n} at the price of the dropped records.`,
    "",
    "## Choices",
    "",
    "- **LW rule** c = 1, g = 0, fixed for every database: a pilot on six Poisson(100) databases " +
    "of n = 1000 (not part of this run) gave LW bounds 3.41–3.98 (median 3.44) at g = 0, " +
    "3.00–3.44 at g = −0.1 and 3.82–4.58 at g = 0.1, so the unshifted rule sits near the slides' " +
    "Δ ≈ 3.5.",
    `- **Sampler**: ${settings.sampler.chains} chains × (${settings.sampler.warmup} warmup + ` +
    `${settings.sampler.draws} draws). ${SAMPLER_NOTE} ` +
    `Of ${fits.fits} distinct fits, ${fits.flagged} (${fmt(100 * fits.flaggedShare, 1)}%) are ` +
    `flagged by SPEC §6 (R̂ > 1.01 or bulk ESS < 400 for some parameter), ` +
    `${fits.flaggedLikelihood} (${fmt(100 * fits.flaggedLikelihoodShare, 1)}%) on the ` +
    "intercept itself; the rest only on the prior scale σ_β, which does not enter ℓ_i. " +
    `Divergences: ${fits.divergences}.`,
    "- Memoised fits: the LW fit is shared by LW and Weighted-e, so Weighted-e equals LW on every " +
    "database whose LW bound is already ≤ 3.5.",
    "",
    footer,
    "",
  ].join("\n");
}

/** The contraction study, for `runStudy` and the worker. */
export const study: Study<ContractionSettings, ContractionRecord, ContractionSummary> = {
  name: "contraction",
  module: import.meta.url,
  replicate: contractionReplicate,
  aggregate: contractionAggregate,
  markdown: contractionMarkdown,
};
