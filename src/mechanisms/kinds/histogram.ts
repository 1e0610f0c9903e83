/**
 * The perturbed histogram (Wasserman & Zhou 2010; `../histogram.ts`): Laplace(1/ε) noise on the
 * counts of public bins, ε-DP for any m. No fit: the datasets are drawn from the noisy histogram.
 * A binary or categorical outcome gets one bin per (public) level; a numeric one needs bounds.
 *
 * @module
 */
import { perturbedHistogram } from "../histogram.ts";
import { defineMechanism, HISTOGRAM_MAP, type Mechanism } from "./kind.ts";

/** The perturbed histogram (DP). */
export const HISTOGRAM: Mechanism<"histogram"> = defineMechanism({
  name: "histogram",
  summary: "Laplace noise on the counts of public bins (DP, once for any m)",
  accepts: { outcomes: "one", numericOutcome: false, bounds: true, epsilon: "required" },
  privacy: HISTOGRAM_MAP,
  run: (run) => {
    const { settings, model, context } = run;
    const total = run.needEpsilon("the perturbed histogram");
    const levels = model.design.outcomeLevels;
    if (levels === undefined && (settings.lower === undefined || settings.upper === undefined)) {
      throw new RangeError("Invalid bounds: the perturbed histogram needs --lower and --upper");
    }
    // A binary or categorical outcome: one bin per (public) level, centred on its code.
    const histogram = levels === undefined
      ? perturbedHistogram(model.design.y, {
        lower: settings.lower!,
        upper: settings.upper!,
        bins: settings.bins,
        epsilon: total,
        noise: context.laplace,
      })
      : {
        ...perturbedHistogram(model.design.y, {
          lower: -0.5,
          upper: levels.length - 0.5,
          bins: levels.length,
          epsilon: total,
          noise: context.laplace,
        }),
        levels: true,
      };
    return Promise.resolve({
      privacyInput: total,
      lipschitz: NaN,
      final: null,
      unweightedLipschitz: null,
      extra: { histogram },
    });
  },
});
