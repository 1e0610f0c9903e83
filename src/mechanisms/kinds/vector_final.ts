/**
 * LW-final and CW-final (Algorithm 3 of the vector-weighted paper): the LW/CW fit, then
 * re-weighting α ← clamp(k·α·Δ/Δ_i) for k = 0.95^j, the first refit whose Δ stays within the
 * tolerance (and under the target) released. When no shift of the weights reaches ε, re-weighting
 * toward the target from the closest fit. The same code with the kind of weights as its parameter.
 *
 * @module
 */
import { CalibrationError, lipschitzTarget } from "../calibrate.ts";
import { acceptReweight, reweight, reweightToward } from "../reweighting.ts";
import { defineMechanism, type Mechanism, PSEUDO_POSTERIOR_MAP } from "./kind.ts";
import {
  type MechanismResult,
  type MechanismRun,
  released,
  type ShiftedStage,
  type Stage,
  type VectorKind,
  vectorWeighted,
} from "./steps.ts";

/**
 * Re-weighting constants tried, largest (least down-weighting) first: k = 0.95^j, j = 1..8. The
 * paper's Algorithm 3 requires k < 1 and uses k = 0.95 (§3.2, §4.2), so that is the first try.
 */
const REWEIGHT_KS = Array.from({ length: 8 }, (_, j) => 0.95 ** (j + 1));
/** Refits of re-weighting toward the target, and its k. */
const TARGET_ROUNDS = 5;
const TARGET_K = 0.95;

/**
 * Algorithm 3 with the target in place of Δ_{α,x}: α ← clamp(k·α·Δ* / Δ_i), refit, until the
 * fit's Δ ≤ Δ* (at most {@linkcode TARGET_ROUNDS} refits), else the calibration error stands.
 */
async function driveToTarget(
  run: MechanismRun,
  unweighted: Stage,
  start: ShiftedStage,
  target: number,
): Promise<MechanismResult> {
  const { n, m } = run;
  let current: Stage = start;
  let closest = start.bound.overall;
  for (let round = 1; round <= TARGET_ROUNDS; round++) {
    const alpha = reweightToward(
      current.alpha ?? new Float64Array(n).fill(1),
      current.bound.perRecord,
      target,
      TARGET_K,
    );
    current = await run.stage(`reweight toward target round ${round}`, { alpha });
    closest = Math.min(closest, current.bound.overall);
    if (current.bound.overall <= target) {
      return released(current, unweighted, { g: start.g, k: TARGET_K });
    }
  }
  throw new CalibrationError(
    run.epsilon!,
    2 * closest * m,
    `m=${m}; no shift of the weights reached the target, nor ${TARGET_ROUNDS} rounds of ` +
      "re-weighting toward it",
  );
}

/**
 * The LW-final or CW-final mechanism.
 *
 * @param kind Which weights the re-weighting starts from.
 * @returns The mechanism named `${kind}-final`.
 */
function finalMechanism<K extends VectorKind>(kind: K): Mechanism<`${K}-final`> {
  return defineMechanism({
    name: `${kind}-final` as const,
    summary: `${kind.toUpperCase()} then Algorithm 3's re-weighting (k = 0.95^j)`,
    accepts: kind === "lw"
      ? { outcomes: "several", numericOutcome: false, bounds: false, epsilon: "optional" }
      : { outcomes: "one", numericOutcome: true, bounds: false, epsilon: "optional" },
    privacy: PSEUDO_POSTERIOR_MAP,
    run: async (run: MechanismRun): Promise<MechanismResult> => {
      const unweighted = await run.unweighted();
      const { n, epsilon, m, context } = run;
      const cap = epsilon === undefined ? Infinity : lipschitzTarget(epsilon, m);
      let base: ShiftedStage;
      try {
        base = await vectorWeighted(run, unweighted, kind);
      } catch (error) {
        if (!(error instanceof CalibrationError) || error.closest === undefined) throw error;
        // No shift of the weights reaches ε: re-weight toward the target from the closest fit.
        return await driveToTarget(run, unweighted, error.closest as ShiftedStage, cap);
      }
      const tolerance = run.settings.reweightTolerance ?? 0.01;
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
        const refit = await run.stage(
          `reweight k=${k.toFixed(4)}`,
          { alpha: candidates[j] },
          predicted,
        );
        if (accepted(refit.bound.overall)) return released(refit, unweighted, { g: base.g, k });
      }
      return released(base, unweighted, { g: base.g, k: null });
    },
  });
}

/** LW then re-weighting (LW_final). */
export const LW_FINAL: Mechanism<"lw-final"> = finalMechanism("lw");
/** CW then re-weighting (CW_final). */
export const CW_FINAL: Mechanism<"cw-final"> = finalMechanism("cw");
