/**
 * Study 1, contraction of the local Lipschitz bound (SPEC §9.1; vector-weighted paper Supp 5
 * "Moving from Local-to-Global Privacy Guarantee"; JSM 2024 slides "Monte Carlo Simulation at
 * Increasing n"). For each data generator of the supplement, Poisson(100) counts and the NB
 * mixture 0.2·NB(100, φ = 5) + 0.8·NB(100, φ = 20), and each n ∈ {100, 400, 1000, 1600, 6400}
 * (the slides' sizes and the supplement's n = 1000), R databases x_r are drawn and the
 * intercept-only synthesizer of the generator's family (Poisson; negative binomial) is fitted
 * under five weighting rules. The local bound Δ_{α,x_r} of each is set against the paper's global
 * value Δ_α (3.5 for Poisson, 6 for the mixture): per n, P(Δ > Δ_α) over databases and the
 * quantiles of Δ. The bounds contract onto a global Δ_α when their upper quantiles and spread
 * fall as n grows (aDP, Savitsky et al. 2022).
 *
 * The rules (`contraction_settings.ts`): unweighted; LW with the fixed rule c = 1, g = 0 on
 * every database (Algorithm 1 unshifted); LW with g calibrated on each database to Δ ≤ Δ_α (the
 * project's calibration, in place of the papers' hand tuning); that calibrated LW re-weighted by
 * Algorithm 3 (LW_final, k = 0.95 first: the supplement's "LW synthesizer and re-weighting
 * strategy"); and Weighted-e, the fixed rule truncated once at Δ_α (the slides).
 *
 * The supplement's own text differs from itself in two places, read here as follows: its
 * procedure loops over r = 1..200 while its text and figures use R = 100 (R = 100 here), and it
 * writes the mixture as π₁NB(100, 5) + π₂NB(100, 5), a single NB; the mixture of its §3.2
 * (φ = 5 and 20, weights 0.2 and 0.8) is used, the one whose global Δ_α = 6 it reports.
 *
 * Streams of replicate r's generator: the data of generator i at the j-th size from
 * split(256·i + j); fits from `fitSeedOf`. Every fit of a replicate shares its seed.
 *
 * Files: the settings and the record and summary types in `contraction_settings.ts`, the
 * verdicts in `contraction_verdicts.ts`, the report as data in `contraction_document.ts` and its
 * prose in `templates/contraction.md`; this module runs a replicate, aggregates, and exports the
 * settings and the report with them.
 *
 * @module
 */
import { CalibrationError } from "../mechanisms/calibrate.ts";
import type { MechanismSettings } from "../mechanisms/mechanism.ts";
import { createModel } from "../models/mod.ts";
import { samplePoisson } from "../random/distributions.ts";
import type { Rng } from "../random/rng.ts";
import { REPLICATE_SYNTHESIS_STREAM } from "../random/streams.ts";
import { quantile } from "../stats/quantile.ts";
import { type SampleSummary, sampleSummary } from "../stats/sample_summary.ts";
import { runMechanismUnderCap, syntheticDatasets } from "../synthesis/release.ts";
import { contractionDocument } from "./contraction_document.ts";
import {
  CONTRACTION_RULES,
  type ContractionCell,
  type ContractionDatabase,
  type ContractionEntry,
  type ContractionGenerator,
  type ContractionRecord,
  type ContractionRule,
  type ContractionSettings,
  type ContractionSummary,
  type ContractionTrend,
} from "./contraction_settings.ts";
import { simulateNbMixture } from "./nb_mixture.ts";
import {
  fitSeedOf,
  type FitStats,
  replicateFits,
  replicateRng,
  summarize,
  totalFitStats,
} from "./study_runner.ts";
import type { StageFn, Study } from "./study.ts";
import { wilsonInterval } from "../stats/wilson_interval.ts";
import template from "./templates/contraction.md" with { type: "text" };

/** The settings, rules and labels of the study (all of `contraction_settings.ts`). */
export * from "./contraction_settings.ts";
export { contractionDocument };

function simulate(generator: ContractionGenerator, rng: Rng, n: number, mean: number) {
  if (generator.name === "nb-mixture") return simulateNbMixture(rng, n);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[i] = samplePoisson(rng, mean);
  return y;
}

/**
 * Runs replicate r of the contraction study.
 *
 * @param r Replicate index (0-based).
 * @param seed The study seed.
 * @param settings Sizes, generators, the fixed LW rule and the sampler.
 * @param stage Progress callback.
 */
export async function contractionReplicate(
  r: number,
  seed: number,
  settings: ContractionSettings,
  stage: StageFn = () => {},
): Promise<ContractionRecord> {
  const rng = replicateRng(seed, r);
  const fitSeed = fitSeedOf(rng);
  const generators = [];
  for (const [i, generator] of settings.generators.entries()) {
    const stats: FitStats[] = [];
    const sizes: ContractionDatabase[] = [];
    for (const [j, n] of settings.sizes.entries()) {
      const y = simulate(generator, rng.split(256 * i + j), n, settings.mean);
      const model = createModel(generator.name === "poisson" ? "poisson" : "negbin", {
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
      const epsilon = 2 * generator.global;
      const { c } = settings;
      const fixed = { c, g: settings.g };
      const plans: Record<ContractionRule, Partial<MechanismSettings>> = {
        unweighted: { mechanism: "unweighted" },
        "lw-fixed": { mechanism: "lw", ...fixed },
        "lw-calibrated": { mechanism: "lw", c, epsilon },
        "lw-final": { mechanism: "lw-final", c, epsilon },
        "lw-fixed-final": { mechanism: "lw-final", ...fixed },
        "weighted-e": { mechanism: "weighted-e", ...fixed, epsilon },
      };
      const rules = {} as Record<ContractionRule, ContractionEntry | null>;
      let fMin = NaN;
      let fMax = NaN;
      for (const rule of CONTRACTION_RULES) {
        stage(`${generator.name} n=${n} ${rule}`);
        let outcome;
        try {
          outcome = await runMechanismUnderCap(
            { m: 1, radius: 0.1, relativeRadius: true, ...plans[rule] } as MechanismSettings,
            fits.context,
            // The study measures where each rule ends (Weighted-e's truncated fit above Δ_α
            // included); it releases nothing.
            { enforceCap: false },
          );
        } catch (error) {
          if (!(error instanceof CalibrationError)) throw error;
          rules[rule] = null;
          continue;
        }
        const fit = outcome.fit!;
        if (rule === "unweighted") {
          const f = outcome.bound!.perRecord;
          fMin = f.reduce((a, b) => Math.min(a, b), Infinity);
          fMax = outcome.bound!.overall;
        }
        let mu = 0;
        for (let s = 0; s < fit.S; s++) mu += Math.exp(fit.draws[s * fit.dim]);
        const estimands = n === settings.estimandsN
          ? sortedSummary(
            syntheticDatasets(
              model,
              outcome,
              1,
              () =>
                rng.split(
                  REPLICATE_SYNTHESIS_STREAM + 8 * (256 * i + j) + CONTRACTION_RULES.indexOf(rule),
                ),
            ).datasets[0].y,
          )
          : undefined;
        rules[rule] = {
          lipschitz: outcome.lipschitz,
          muMean: mu / fit.S,
          zeroWeights: outcome.alpha === null ? 0 : outcome.alpha.filter((a) => a === 0).length,
          g: outcome.g ?? null,
          k: outcome.k ?? null,
          ...(estimands === undefined ? {} : { estimands }),
        };
      }
      stats.push(fits.stats());
      sizes.push({
        n,
        fMin,
        fMax,
        rules,
        ...(n === settings.estimandsN ? { data: sortedSummary(y) } : {}),
      });
    }
    generators.push({ name: generator.name, sizes, fits: totalFitStats(stats) });
  }
  return {
    r,
    generators: generators.map(({ name, sizes, fits }) => ({
      name,
      sizes,
      fits: {
        fits: fits.fits,
        flagged: fits.flagged,
        flaggedLikelihood: fits.flaggedLikelihood,
        divergences: fits.divergences,
      },
    })),
  };
}

/** The mean, median, 15th and 90th quantiles of values (`sampleSummary` of a sorted copy). */
function sortedSummary(values: Float64Array): SampleSummary {
  return sampleSummary(Float64Array.from(values).sort());
}

/**
 * The bound the fixed LW rule would have if the weighted fit's draws were the unweighted fit's:
 * max over f ∈ [f_min, f_max] of clamp(c·(f_max − f)/(f_max − f_min) + g, 0, 1)·f. For c = 1,
 * g = 0 and f_min ≤ f_max/2 it is f_max²/(4(f_max − f_min)), reached at f = f_max/2: it grows with
 * f_max = Δ_x, the most extreme record's |ℓ|, which grows with n.
 *
 * @param fMin The smallest record bound f_i of the unweighted fit.
 * @param fMax The largest, Δ_x.
 * @param c The rule's scale.
 * @param g The rule's shift.
 * @returns The bound (a maximum over 4001 points of [f_min, f_max], and the closed form's point).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fixedRuleBound } from "./contraction.ts";
 * assert.ok(Math.abs(fixedRuleBound(3, 10, 1, 0) - 100 / 28) < 1e-12);
 * ```
 */
export function fixedRuleBound(fMin: number, fMax: number, c: number, g: number): number {
  if (!(fMax > fMin && fMin >= 0) || !Number.isFinite(fMax)) {
    throw new RangeError(`Invalid range: need 0 ≤ fMin < fMax < ∞: fMin=${fMin}, fMax=${fMax}`);
  }
  const weighted = (f: number) => Math.min(1, Math.max(0, c * (fMax - f) / (fMax - fMin) + g)) * f;
  let best = Math.max(weighted(fMin), weighted(fMax));
  const points = 4000;
  for (let j = 1; j < points; j++) {
    best = Math.max(best, weighted(fMin + (fMax - fMin) * j / points));
  }
  if (fMax / 2 > fMin) best = Math.max(best, weighted(fMax / 2));
  return best;
}

function cellOf(
  entries: readonly ContractionEntry[],
  n: number,
  global: number,
  rule: ContractionRule,
): ContractionCell | null {
  if (entries.length === 0) return null;
  const values = entries.map((e) => e.lipschitz);
  const sorted = Float64Array.from(values).sort();
  const lipschitz = summarize(values);
  const above = values.filter((v) => v > global).length;
  const gs = entries.map((e) => e.g).filter((g) => g !== null);
  const ks = entries.map((e) => e.k).filter((k) => k !== null);
  const calibrated = rule === "lw-calibrated" || rule === "lw-final";
  return {
    replicates: entries.length,
    lipschitz,
    q05: quantile(sorted, 0.05),
    q95: quantile(sorted, 0.95),
    spread: lipschitz.max - lipschitz.min,
    above,
    shareAbove: above / entries.length,
    shareAboveInterval: wilsonInterval(above, entries.length),
    muMean: summarize(entries.map((e) => e.muMean)),
    zeroWeights: summarize(entries.map((e) => e.zeroWeights)),
    allWeightsZero: entries.filter((e) => e.zeroWeights === n).length,
    g: calibrated && gs.length > 0 ? summarize(gs) : null,
    k: rule === "lw-final" || rule === "lw-fixed-final"
      ? { accepted: ks.length === 0 ? null : summarize(ks), none: entries.length - ks.length }
      : null,
  };
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
  const generators = settings.generators.map((generator, i) => {
    const sizes = settings.sizes.map((n, j) => {
      const databases = records.map((record) => {
        const entry = record.generators[i];
        if (entry.name !== generator.name || entry.sizes[j].n !== n) {
          throw new RangeError(
            `Invalid record ${record.r}: generator ${i} size ${j} is not ${generator.name} n=${n}`,
          );
        }
        return entry.sizes[j];
      });
      const rules = {} as Record<ContractionRule, ContractionCell | null>;
      for (const rule of CONTRACTION_RULES) {
        const entries = databases.map((d) => d.rules[rule]).filter((e) => e !== null);
        rules[rule] = cellOf(entries, n, generator.global, rule);
      }
      return {
        n,
        fMax: summarize(databases.map((d) => d.fMax)),
        fMin: summarize(databases.map((d) => d.fMin)),
        fixedRulePredicted: summarize(
          databases.map((d) => fixedRuleBound(d.fMin, d.fMax, settings.c, settings.g)),
        ),
        rules,
      };
    });
    const trends = {} as Record<ContractionRule, ContractionTrend | null>;
    for (const rule of CONTRACTION_RULES) {
      const cells = sizes.map((s) => s.rules[rule]);
      if (cells.some((cell) => cell === null)) {
        trends[rule] = null;
        continue;
      }
      const q95s = cells.map((cell) => cell!.q95);
      const spreads = cells.map((cell) => cell!.spread);
      trends[rule] = {
        q95s,
        medians: cells.map((cell) => cell!.lipschitz.median),
        spreads,
        sharesAbove: cells.map((cell) => cell!.shareAbove),
        q95Falls: q95s[q95s.length - 1] < q95s[0],
        q95Monotone: q95s.every((q, j) => j === 0 || q < q95s[j - 1]),
        spreadFalls: spreads[spreads.length - 1] < spreads[0],
      };
    }
    return {
      name: generator.name,
      global: generator.global,
      sizes,
      trends,
      fits: totalFitStats(records.map((record) => record.generators[i].fits)),
    };
  });
  return {
    generators,
    fits: totalFitStats(records.flatMap((record) => record.generators.map((g) => g.fits))),
  };
}

/** The contraction study, for `runStudy` and the worker. */
export const study: Study<ContractionSettings, ContractionRecord, ContractionSummary> = {
  name: "contraction",
  module: import.meta.url,
  replicate: contractionReplicate,
  aggregate: contractionAggregate,
  document: contractionDocument,
  template,
};
