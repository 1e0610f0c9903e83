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
 * Files: the settings in `five_settings.ts`, the record and summary types in `five_result.ts`, the
 * report in `five_markdown.ts`, the Beta median in `stats/beta.ts`; this module runs a replicate,
 * aggregates, and exports the settings and the report with them.
 *
 * @module
 */
import { CalibrationError } from "../mechanisms/calibrate.ts";
import type { MechanismOutcome } from "../mechanisms/mechanism.ts";
import { createModel } from "../models/mod.ts";
import { sampleBeta, sampleLaplace } from "../random/distributions.ts";
import { betaMedian } from "../stats/beta.ts";
import { datasetDrawIndices, runRelease, simulateDataset } from "../synthesis/release.ts";
import { utilityOf } from "../synthesis/utility.ts";
import { fiveMarkdown } from "./five_markdown.ts";
import type { FiveCell, FiveEntry, FiveRecord, FiveSummary } from "./five_result.ts";
import {
  FIVE_LABELS,
  FIVE_MECHANISMS,
  FIVE_SETTINGS,
  type FiveMechanism,
  type FiveSettings,
} from "./five_settings.ts";
import * as runner from "./study_runner.ts";
import type { Study } from "./study_types.ts";

export { FIVE_LABELS, FIVE_MECHANISMS, FIVE_SETTINGS, type FiveMechanism, type FiveSettings };
export { fiveMarkdown };

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
  const noise = settings.epsilons.map((_, e) => rng.split(runner.NOISE_STREAM + e));
  let current = 0;
  const fits = runner.replicateFits(model, runner.fitSeedOf(rng), {
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
        outcome = await runRelease({
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
      const synthesis = rng.split(runner.SYNTHESIS_STREAM + 5 * e + j);
      const [draw] = outcome.fit === null ? [0] : datasetDrawIndices(outcome.fit.S, 1);
      const synthetic = simulateDataset(model, outcome, draw, synthesis).y;
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
  markdown: fiveMarkdown,
};
