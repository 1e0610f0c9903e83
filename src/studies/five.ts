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
 * Censor w differ only in how they enforce ε/2: truncate and refit, or clamp. Since the slides
 * tune Weighted one way and the other two the other, each of the three is also run under the
 * other tuning (`retuned`): Weighted at the fixed rule (its ε is then what the rule gives), and
 * Weighted-e and Censor w with Weighted's calibrated weights, so that each comparison can be
 * made under one tuning. At ε = 4 (`downscaling`) Weighted-e and Censor w run with and without
 * the slides' downscaling (c = ε/5 or c = 1, g = 0), measured where each ends whether or not the
 * cap would release it: their "fine tuning with downscaling" comparison (`five_verdicts.ts`).
 *
 * For each ε and synthesizer: the Lipschitz bound (for censoring the bound of the clamped
 * contributions, min(C, max|α_i ℓ_i|) ≤ ε/2; none for PH), the ECDF utility (max and mean
 * squared difference, Woo et al. 2009) and the synthetic median against the analytic median of
 * Beta(0.5, 3), found by bisection on the regularized incomplete beta function.
 *
 * Streams of replicate r's generator (`src/random/streams.ts`): data split(0); fits `fitSeedOf`;
 * the synthetic dataset of ε index e and synthesizer j REPLICATE_SYNTHESIS_STREAM + 5e + j, of its
 * retuned synthesizer t REPLICATE_SYNTHESIS_STREAM + 5E + 3e + t (E the number of ε's), of the
 * downscaling comparison's synthesizer t with (u = 0) and without (u = 1) downscaling
 * REPLICATE_SYNTHESIS_STREAM + 8E + 2t + u; the histogram noise REPLICATE_NOISE_STREAM + e.
 *
 * Files: the settings and the record and summary types in `five_settings.ts`, the
 * verdicts (with the tunings, paired comparisons and downscaling they read) in `five_verdicts.ts`,
 * the report as data in `five_document.ts` and its prose in `templates/five.md`, the Beta median
 * in `stats/incomplete_beta.ts`; this module runs a replicate, aggregates, and exports the
 * settings and the report with them.
 *
 * @module
 */
import { CalibrationError } from "../mechanisms/calibrate.ts";
import type { MechanismOutcome } from "../mechanisms/mechanism.ts";
import { createModel } from "../models/mod.ts";
import { sampleBeta, sampleLaplace } from "../random/distributions.ts";
import { REPLICATE_NOISE_STREAM, REPLICATE_SYNTHESIS_STREAM } from "../random/streams.ts";
import { betaMedian } from "../stats/incomplete_beta.ts";
import { runMechanismUnderCap, syntheticDatasets } from "../synthesis/release.ts";
import { utilityOf } from "../synthesis/utility.ts";
import { fiveDocument } from "./five_document.ts";
import {
  FIVE_DOWNSCALED,
  FIVE_LABELS,
  FIVE_MECHANISMS,
  FIVE_SETTINGS,
  FIVE_TUNABLE,
  type FiveCell,
  type FiveDownscaled,
  type FiveEntry,
  type FiveMechanism,
  type FiveRecord,
  type FiveSettings,
  type FiveSummary,
  type FiveTunable,
  RETUNED_LABELS,
} from "./five_settings.ts";
import * as runner from "./study_runner.ts";
import type { StageFn, Study } from "./study.ts";
import template from "./templates/five.md" with { type: "text" };

export { FIVE_LABELS, FIVE_MECHANISMS, FIVE_SETTINGS, type FiveMechanism, type FiveSettings };
export { fiveDocument };

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
  stage: StageFn = () => {},
): Promise<FiveRecord> {
  const rng = runner.replicateRng(seed, r);
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
  const noise = settings.epsilons.map((_, e) => rng.split(REPLICATE_NOISE_STREAM + e));
  let current = 0;
  const fits = runner.replicateFits(model, runner.fitSeedOf(rng), {
    sampler: settings.sampler,
    laplace: (scale) => sampleLaplace(noise[current], 0, scale),
  });
  /** One synthesizer at one ε with its weights' c and g (g undefined: calibrated), scored. */
  const arm = async (
    mechanism: FiveMechanism,
    epsilon: number,
    tuning: { readonly c: number; readonly g: number | undefined },
    stream: number,
    enforceCap = true,
  ): Promise<FiveEntry | null> => {
    let outcome: MechanismOutcome;
    try {
      outcome = await runMechanismUnderCap(
        {
          mechanism,
          m: 1,
          epsilon,
          ...tuning,
          radius: 0.1,
          relativeRadius: true,
          lower: 0,
          upper: 1,
          bins: settings.bins ?? undefined,
        },
        fits.context,
        { enforceCap },
      );
    } catch (error) {
      if (!(error instanceof CalibrationError)) throw error;
      return null;
    }
    const [{ y: synthetic }] =
      syntheticDatasets(model, outcome, 1, () => rng.split(stream)).datasets;
    const utility = utilityOf(y, synthetic);
    return {
      lipschitz: outcome.bound === null ? null : outcome.lipschitz,
      epsilon: outcome.privacy.epsilon,
      unclamped: outcome.censor === undefined ? null : outcome.bound!.overall,
      g: mechanism === "lw" ? outcome.g ?? null : null,
      zeroWeights: outcome.alpha === null ? 0 : outcome.alpha.filter((v) => v === 0).length,
      synthetic: utility.synthetic,
      ecdfMax: utility.ecdfMax,
      ecdfMeanSquared: utility.ecdfMeanSquared,
    };
  };
  const epsilons = [];
  const retunedStream = REPLICATE_SYNTHESIS_STREAM + 5 * settings.epsilons.length;
  const downscalingStream = retunedStream + FIVE_TUNABLE.length * settings.epsilons.length;
  for (const [e, epsilon] of settings.epsilons.entries()) {
    current = e;
    const slides = { c: epsilon / settings.reference, g: 0 };
    const mechanisms = {} as Record<FiveMechanism, FiveEntry | null>;
    for (const [j, mechanism] of FIVE_MECHANISMS.entries()) {
      stage(`ε=${epsilon} ${FIVE_LABELS[mechanism]}`);
      const fixed = mechanism === "weighted-e" || mechanism === "censored-w";
      mechanisms[mechanism] = await arm(
        mechanism,
        epsilon,
        fixed ? slides : { c: 1, g: undefined },
        REPLICATE_SYNTHESIS_STREAM + 5 * e + j,
      );
    }
    // The other tuning: Weighted at the fixed rule (the same weights as Weighted-e's first fit),
    // Weighted-e and Censor w with Weighted's calibrated weights (none where calibration failed).
    const calibrated = mechanisms.lw?.g ?? null;
    const retuned = {} as Record<FiveTunable, FiveEntry | null>;
    for (const [t, mechanism] of FIVE_TUNABLE.entries()) {
      stage(`ε=${epsilon} ${RETUNED_LABELS[mechanism]}`);
      const tuning = mechanism === "lw" ? slides : { c: 1, g: calibrated ?? undefined };
      retuned[mechanism] = mechanism !== "lw" && calibrated === null
        ? null
        : await arm(mechanism, epsilon, tuning, retunedStream + FIVE_TUNABLE.length * e + t);
    }
    // The slides' downscaling comparison: the fixed rule with and without c₁ = ε/5, measured
    // where each ends, above ε/2 included (as the slides' violins show), not released.
    const downscaling = { scaled: {}, unscaled: {} } as Record<
      "scaled" | "unscaled",
      Record<FiveDownscaled, FiveEntry | null>
    >;
    if (epsilon === settings.downscaling) {
      for (const [t, mechanism] of FIVE_DOWNSCALED.entries()) {
        for (const [u, scaled] of [true, false].entries()) {
          stage(`ε=${epsilon} ${FIVE_LABELS[mechanism]} (c = ${scaled ? slides.c : 1})`);
          downscaling[scaled ? "scaled" : "unscaled"][mechanism] = await arm(
            mechanism,
            epsilon,
            scaled ? slides : { c: 1, g: 0 },
            downscalingStream + 2 * t + u,
            false,
          );
        }
      }
    }
    epsilons.push({
      epsilon,
      mechanisms,
      retuned,
      ...(epsilon === settings.downscaling ? { downscaling } : {}),
    });
  }
  return { r, data: utilityOf(y, y).confidential, epsilons, fits: fits.stats() };
}

/** One synthesizer's entries at one ε over the replicates that released (null: none did). */
function cellOf(entries: readonly FiveEntry[], epsilon: number, truth: number): FiveCell | null {
  if (entries.length === 0) return null;
  const bounds = entries.map((x) => x.lipschitz).filter((l) => l !== null);
  const medians = entries.map((x) => x.synthetic.median);
  return {
    replicates: entries.length,
    lipschitz: bounds.length === 0 ? null : runner.summarize(bounds),
    shareAbove: bounds.length === 0
      ? null
      : bounds.filter((l) => l > epsilon / 2).length / bounds.length,
    ecdfMax: runner.summarize(entries.map((x) => x.ecdfMax)),
    ecdfMeanSquared: runner.summarize(entries.map((x) => x.ecdfMeanSquared)),
    median: runner.summarize(medians),
    medianBias: medians.reduce((s, m) => s + (m - truth), 0) / medians.length,
    medianRmse: Math.sqrt(medians.reduce((s, m) => s + (m - truth) ** 2, 0) / medians.length),
    zeroWeightsMean: entries.reduce((s, x) => s + x.zeroWeights, 0) / entries.length,
  };
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
    const entriesOf = (pick: (record: FiveRecord) => FiveEntry | null) =>
      records.map((record) => {
        if (record.epsilons[e].epsilon !== epsilon) {
          throw new RangeError(`Invalid record ${record.r}: entry ${e} is not ε=${epsilon}`);
        }
        return pick(record);
      }).filter((entry) => entry !== null);
    // One cell per mechanism named, from the entries `pick` reads off each record at this ε.
    const cells = <M extends FiveMechanism>(
      names: readonly M[],
      pick: (at: FiveRecord["epsilons"][number], mechanism: M) => FiveEntry | null,
    ) => {
      const out = {} as Record<M, FiveCell | null>;
      for (const mechanism of names) {
        out[mechanism] = cellOf(entriesOf((r) => pick(r.epsilons[e], mechanism)), epsilon, truth);
      }
      return out;
    };
    const mechanisms = cells(FIVE_MECHANISMS, (at, mechanism) => at.mechanisms[mechanism]);
    const retuned = cells(FIVE_TUNABLE, (at, mechanism) => at.retuned[mechanism]);
    const rank = (key: "ecdfMax" | "ecdfMeanSquared") =>
      FIVE_MECHANISMS.filter((m) => mechanisms[m] !== null)
        .sort((p, q) => mechanisms[p]![key].mean - mechanisms[q]![key].mean);
    return {
      epsilon,
      mechanisms,
      retuned,
      rankEcdfMax: rank("ecdfMax"),
      rankEcdfMeanSquared: rank("ecdfMeanSquared"),
    };
  });
  return {
    analyticMedian: truth,
    dataMedian: runner.summarize(records.map((r) => r.data.median)),
    epsilons,
    fits: runner.totalFitStats(records.map((r) => r.fits)),
  };
}

/** The five-synthesizer study, for `runStudy` and the worker. */
export const study: Study<FiveSettings, FiveRecord, FiveSummary> = {
  name: "five",
  module: import.meta.url,
  replicate: fiveReplicate,
  aggregate: fiveAggregate,
  document: fiveDocument,
  template,
};
