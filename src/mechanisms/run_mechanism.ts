/**
 * Runs one mechanism of the papers end to end on the confidential data: the fits, the weights,
 * the refits, and the privacy map of the final fit (SPEC §1–§4).
 *
 * Privacy guarantees (the neighbour relation is the papers' δ(x, x′) = 1):
 * - unweighted, lw, cw, sw, lw-final, cw-final, weighted-e: each synthetic dataset comes from
 *   one draw of an α-weighted pseudo posterior, ε_x = 2·Δ_{α,x} with Δ_{α,x} the maximum over
 *   the final fit's S draws and n records of |α_i·ℓ_i(θ_s)|; m datasets cost 2·Δ_{α,x}·m.
 *   The guarantee is asymptotic DP ("aDP"): local to this database (Savitsky, Williams & Hu
 *   2022; vector-weighted paper §2).
 * - censored, censored-w: every record's contribution is clamped to [−C, C] with C = ε/(2m),
 *   so Δ ≤ C for every θ and every database: each draw is 2C-DP, m draws ε-DP (SPEC §3).
 * - histogram: ε-DP for the public bounds (Wasserman & Zhou 2010), charged once for any m.
 *
 * @module
 */
import type { Fit } from "../mcmc/fit.ts";
import type { Weighting } from "../models/model.ts";
import {
  calibrateShift,
  CalibrationError,
  lipschitzTarget,
  shiftForWeightSum,
  type ShiftPrediction,
} from "./calibrate.ts";
import { perturbedHistogram } from "./histogram.ts";
import type { LipschitzResult } from "./lipschitz.ts";
import type { MechanismContext, MechanismOutcome, MechanismSettings, Refit } from "./mechanism.ts";
import {
  censoredPrivacy,
  histogramPrivacy,
  type PrivacyLoss,
  pseudoPosteriorPrivacy,
} from "./privacy.ts";
import { acceptReweight, reweight, reweightToward } from "./reweight.ts";
import { truncateWeights } from "./truncate.ts";
import { cwWeights, lwWeights, swAlphaForLipschitz } from "./weights.ts";

/** A fit with the Lipschitz bounds of its draws and the weights it used. */
interface Stage {
  readonly label: string;
  readonly alpha: Float64Array | null;
  readonly fit: Fit;
  readonly bound: LipschitzResult;
}

/**
 * Re-weighting constants tried, largest (least down-weighting) first: k = 0.95^j, j = 1..8. The
 * paper's Algorithm 3 requires k < 1 and uses k = 0.95 (§3.2, §4.2), so that is the first try.
 */
const REWEIGHT_KS = Array.from({ length: 8 }, (_, j) => 0.95 ** (j + 1));
/** Refits of re-weighting toward the target, and its k. */
const TARGET_ROUNDS = 5;
const TARGET_K = 0.95;
/** Extra SW rounds when a refit lands above the target. */
const EXTRA_ROUNDS = 4;

function alphaSum(alpha: Float64Array | null, n: number): number {
  return alpha === null ? n : alpha.reduce((s, a) => s + a, 0);
}

/**
 * Runs `settings.mechanism` on the model's data.
 *
 * @param settings The mechanism and its parameters.
 * @param context The model, the sampler, the Lipschitz backend and the noise source.
 * @returns The final fit, its weights and bounds, every refit, and the privacy loss.
 */
export async function runMechanism(
  settings: MechanismSettings,
  context: MechanismContext,
): Promise<MechanismOutcome> {
  const { model } = context;
  const n = model.design.n;
  const refits: Refit[] = [];

  async function stage(
    label: string,
    weighting: Weighting,
    predicted?: { lipschitz: number; paretoK: number },
  ): Promise<Stage> {
    const fit = await context.fit(weighting, label);
    const bound = await context.lipschitz.compute(model, fit.draws, { alpha: weighting.alpha });
    refits.push({
      label,
      lipschitz: bound.overall,
      alphaSum: alphaSum(weighting.alpha, n),
      warmup: fit.warmup,
      warmStart: fit.setup.warmStart === true,
      ...(fit.setup.warmStartRejected === undefined
        ? {}
        : { warmStartRejected: fit.setup.warmStartRejected }),
      gradientEvaluations: fit.gradientEvaluations,
      ...(predicted === undefined
        ? {}
        : { predicted: { lipschitz: predicted.lipschitz, paretoK: predicted.paretoK } }),
    });
    return { label, alpha: weighting.alpha, fit, bound };
  }

  function outcome(final: Stage, privacy: PrivacyLoss, extra: Partial<MechanismOutcome>) {
    return {
      mechanism: settings.mechanism,
      privacy,
      lipschitz: final.bound.overall,
      finalFit: final.label,
      alpha: final.alpha,
      fit: final.fit,
      bound: final.bound,
      unweightedLipschitz: null,
      refits,
      ...extra,
    } satisfies MechanismOutcome;
  }

  const { m, epsilon } = settings;
  const c = settings.c ?? 1;
  const needEpsilon = (what: string): number => {
    if (epsilon === undefined) throw new RangeError(`Invalid epsilon: ${what} needs --epsilon`);
    return epsilon;
  };

  if (settings.mechanism === "histogram") {
    const total = needEpsilon("the perturbed histogram");
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
    return {
      mechanism: "histogram",
      privacy: histogramPrivacy(total),
      lipschitz: NaN,
      finalFit: null,
      alpha: null,
      fit: null,
      bound: null,
      unweightedLipschitz: null,
      refits,
      histogram,
    };
  }

  const unweighted = await stage("unweighted", { alpha: null });
  const unweightedLipschitz = unweighted.bound.overall;
  const aDP = (s: Stage) => pseudoPosteriorPrivacy(s.bound.overall, m);

  /** LW (f = the unweighted fit's record bounds) or CW (isolation risk) weights at shift g. */
  const weightsFor = (kind: "lw" | "cw", g: number): Float64Array =>
    kind === "lw" ? lwWeights(unweighted.bound.perRecord, { c, g }) : cwWeights(model.design.y, {
      c,
      g,
      radius: settings.radius,
      relative: settings.relativeRadius,
    });

  /** LW/CW with the given g, or g calibrated to ε, or g = 0. */
  async function vectorWeighted(kind: "lw" | "cw"): Promise<Stage & { g: number }> {
    if (settings.g !== undefined || epsilon === undefined) {
      const g = settings.g ?? 0;
      return { ...await stage(`${kind} g=${g}`, { alpha: weightsFor(kind, g) }), g };
    }
    const evaluate = async (g: number, predicted?: ShiftPrediction) => {
      const alpha = weightsFor(kind, g);
      const result = alpha.every((a) => a === 1)
        ? unweighted
        : await stage(`${kind} calibration g=${g.toFixed(4)}`, { alpha }, predicted);
      return { ...result, g, lipschitz: result.bound.overall };
    };
    const options = {
      epsilon,
      m,
      shiftForShare: (share: number) =>
        share === 1 ? 1 : shiftForWeightSum((g) => weightsFor(kind, g), c, share * n),
    };
    const predict = context.predict;
    return await calibrateShift(
      evaluate,
      options,
      predict === undefined
        ? undefined
        : (base, shifts) =>
          predict(base.fit.draws, base.alpha, shifts.map((g) => weightsFor(kind, g))),
    );
  }

  /**
   * Algorithm 3 with the target in place of Δ_{α,x}: α ← clamp(k·α·Δ* / Δ_i), refit, until the
   * fit's Δ ≤ Δ* (at most {@linkcode TARGET_ROUNDS} refits), else the calibration error stands.
   */
  async function driveToTarget(
    start: Stage & { g: number },
    target: number,
  ): Promise<MechanismOutcome> {
    let current: Stage = start;
    let closest = start.bound.overall;
    for (let round = 1; round <= TARGET_ROUNDS; round++) {
      const alpha = reweightToward(
        current.alpha ?? new Float64Array(n).fill(1),
        current.bound.perRecord,
        target,
        TARGET_K,
      );
      current = await stage(`reweight toward target round ${round}`, { alpha });
      closest = Math.min(closest, current.bound.overall);
      if (current.bound.overall <= target) {
        return outcome(current, aDP(current), { unweightedLipschitz, g: start.g, k: TARGET_K });
      }
    }
    throw new CalibrationError(
      epsilon!,
      2 * closest * m,
      `m=${m}; no shift of the weights reached the target, nor ${TARGET_ROUNDS} rounds of ` +
        "re-weighting toward it",
    );
  }

  switch (settings.mechanism) {
    case "unweighted":
      return outcome(unweighted, aDP(unweighted), { unweightedLipschitz });

    case "lw":
    case "cw": {
      const result = await vectorWeighted(settings.mechanism);
      return outcome(result, aDP(result), { unweightedLipschitz, g: result.g });
    }

    case "lw-final":
    case "cw-final": {
      const kind = settings.mechanism === "lw-final" ? "lw" : "cw";
      const cap = epsilon === undefined ? Infinity : lipschitzTarget(epsilon, m);
      let base: Stage & { g: number };
      try {
        base = await vectorWeighted(kind);
      } catch (error) {
        if (!(error instanceof CalibrationError) || error.closest === undefined) throw error;
        // No shift of the weights reaches ε: re-weight toward the target from the closest fit.
        return await driveToTarget(error.closest as Stage & { g: number }, cap);
      }
      const tolerance = settings.reweightTolerance ?? 0.01;
      const accepted = (lipschitz: number) =>
        acceptReweight(base.bound.overall, lipschitz, tolerance) && lipschitz <= cap;
      const candidates = REWEIGHT_KS.map((k) =>
        reweight(
          base.alpha ?? new Float64Array(n).fill(1),
          base.bound.perRecord,
          base.bound.overall,
          k,
        )
      );
      // A trusted prediction of rejection skips that k's refit; every accepted k is a real fit.
      const predictions = await context.predict?.(base.fit.draws, base.alpha, candidates);
      for (const [j, k] of REWEIGHT_KS.entries()) {
        const predicted = predictions?.[j];
        if (predicted?.trusted && !accepted(predicted.lipschitz)) continue;
        const refit = await stage(
          `reweight k=${k.toFixed(4)}`,
          { alpha: candidates[j] },
          predicted,
        );
        if (accepted(refit.bound.overall)) {
          return outcome(refit, aDP(refit), { unweightedLipschitz, g: base.g, k });
        }
      }
      return outcome(base, aDP(base), { unweightedLipschitz, g: base.g, k: null });
    }

    case "sw": {
      const target = settings.matchLipschitz ??
        lipschitzTarget(needEpsilon("SW without --match-lipschitz"), m);
      let scalar = swAlphaForLipschitz(target, unweightedLipschitz);
      let result = await stage(`sw alpha=${scalar.toPrecision(4)}`, {
        alpha: new Float64Array(n).fill(scalar),
      });
      for (let round = 0; round < EXTRA_ROUNDS && result.bound.overall > target; round++) {
        scalar *= (target / result.bound.overall) * 0.99;
        result = await stage(`sw alpha=${scalar.toPrecision(4)}`, {
          alpha: new Float64Array(n).fill(scalar),
        });
      }
      return outcome(result, aDP(result), { unweightedLipschitz });
    }

    case "weighted-e": {
      // One truncation of the LW weights (JSM slides); `retruncations` more rounds only on
      // request, each from the fit before it, stopping at the first that does not lower Δ.
      // The lowest-Δ fit is released, so never one above the LW fit it started from.
      const total = needEpsilon("Weighted-e truncation");
      const g = settings.g ?? 0;
      let current = await stage(`lw g=${g}`, { alpha: weightsFor("lw", g) });
      let best = current;
      const rounds = 1 + (settings.retruncations ?? 0);
      for (let round = 1; round <= rounds; round++) {
        if (current.bound.overall <= lipschitzTarget(total, m)) break;
        const alpha = truncateWeights(current.alpha!, current.bound.perRecord, total / m);
        const next = await stage(`truncate round ${round}`, { alpha });
        if (next.bound.overall < best.bound.overall) best = next;
        if (!(next.bound.overall < current.bound.overall)) break;
        current = next;
      }
      return outcome(best, aDP(best), { unweightedLipschitz, g });
    }

    case "censored":
    case "censored-w": {
      const censor = lipschitzTarget(needEpsilon("censoring"), m);
      const g = settings.g ?? 0;
      const alpha = settings.mechanism === "censored" ? null : weightsFor("lw", g);
      const result = await stage(`censored C=${censor.toPrecision(4)}`, { alpha, censor });
      return {
        ...outcome(result, censoredPrivacy(censor, m), { unweightedLipschitz, censor }),
        lipschitz: censor,
        ...(settings.mechanism === "censored-w" ? { g } : {}),
      };
    }
  }
}
