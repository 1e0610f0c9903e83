/**
 * The censored likelihood, unweighted ("censored") or with LW weights ("censored-w"): every
 * record's contribution is clamped to [−C, C], C = ε/(2m), so each draw is 2C-DP for every
 * database (SPEC §3). The privacy map takes C, not the Δ observed on the draws: the outcome's
 * `privacyLipschitz` is C, its `lipschitz` the clamped contributions' bound min(C, max|α_i ℓ_i|).
 *
 * @module
 */
import { lipschitzTarget } from "../calibrate.ts";
import { CENSORED_MAP, defineMechanism, type Mechanism } from "./kind.ts";
import { vectorWeights } from "./steps.ts";

/**
 * The censored mechanism, with or without LW weights.
 *
 * @param weighted Whether the censored fit uses LW weights at shift g.
 * @returns "censored-w" when weighted, else "censored".
 */
function censoredMechanism<W extends boolean>(
  weighted: W,
): Mechanism<W extends true ? "censored-w" : "censored"> {
  return defineMechanism({
    name: (weighted ? "censored-w" : "censored") as W extends true ? "censored-w" : "censored",
    summary: weighted
      ? "LW weights and every record's ℓ clamped to ±ε/(2m) (DP)"
      : "every record's ℓ clamped to ±ε/(2m) (DP)",
    accepts: { outcomes: "several", numericOutcome: false, bounds: false, epsilon: "required" },
    privacy: CENSORED_MAP,
    run: async (run) => {
      const unweighted = await run.unweighted();
      const censor = lipschitzTarget(run.needEpsilon("censoring"), run.m);
      const g = run.settings.g ?? 0;
      const alpha = weighted ? vectorWeights(run, unweighted, "lw", g) : null;
      const result = await run.stage(`censored C=${censor.toPrecision(4)}`, { alpha, censor });
      return {
        privacyInput: censor,
        lipschitz: Math.min(censor, result.bound.overall),
        privacyLipschitz: censor,
        final: result,
        unweightedLipschitz: unweighted.bound.overall,
        extra: weighted ? { censor, g } : { censor },
      };
    },
  });
}

/** The censored likelihood (DP). */
export const CENSORED: Mechanism<"censored"> = censoredMechanism(false);
/** The censored likelihood with LW weights (DP). */
export const CENSORED_W: Mechanism<"censored-w"> = censoredMechanism(true);
