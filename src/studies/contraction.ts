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
 * Files: the settings in `contraction_settings.ts`, the report in `contraction_markdown.ts`; this
 * module runs a replicate, aggregates, and exports them all.
 *
 * @module
 */
import type { MechanismName } from "../mechanisms/mechanism.ts";
import { runRelease } from "../synthesis/release.ts";
import { createModel } from "../models/mod.ts";
import { samplePoisson } from "../random/distributions.ts";
import { contractionMarkdown } from "./contraction_markdown.ts";
import {
  CONTRACTION_MECHANISMS,
  CONTRACTION_SETTINGS,
  type ContractionSettings,
} from "./contraction_settings.ts";
import {
  fitSeedOf,
  type FitStats,
  replicateFits,
  replicateRng,
  type Study,
  summarize,
  type Summary,
  totalFitStats,
} from "./study_runner.ts";

export { CONTRACTION_MECHANISMS, CONTRACTION_SETTINGS, type ContractionSettings };
export { contractionMarkdown };

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
      const outcome = await runRelease(
        {
          mechanism,
          m: 1,
          c: settings.c,
          g: settings.g,
          epsilon: mechanism === "weighted-e" ? settings.epsilon : undefined,
          radius: 0.1,
          relativeRadius: true,
        },
        fits.context,
        {
          // The study measures where each rule ends, Weighted-e's truncated fit above ε/2
          // included; it releases nothing.
          enforceCap: false,
        },
      );
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

/** The contraction study, for `runStudy` and the worker. */
export const study: Study<ContractionSettings, ContractionRecord, ContractionSummary> = {
  name: "contraction",
  module: import.meta.url,
  replicate: contractionReplicate,
  aggregate: contractionAggregate,
  markdown: contractionMarkdown,
};
