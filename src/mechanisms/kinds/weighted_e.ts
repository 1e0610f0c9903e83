/**
 * Weighted-e (JSM slides): the LW fit, then its weights truncated so that no record's
 * contribution exceeds ε/(2m) at the draws (`truncate.ts`); the lowest-Δ fit is released.
 *
 * @module
 */
import { lipschitzTarget } from "../calibrate.ts";
import { truncateWeights } from "../truncate.ts";
import { defineMechanism, type Mechanism, PSEUDO_POSTERIOR_MAP } from "./kind.ts";
import { released, vectorWeights } from "./steps.ts";

/** LW with truncated weights (Weighted-e). */
export const WEIGHTED_E: Mechanism<"weighted-e"> = defineMechanism({
  name: "weighted-e",
  summary: "LW with its weights truncated at ε/(2m) (one round unless asked for more)",
  accepts: { outcomes: "several", numericOutcome: false, bounds: false, epsilon: "required" },
  privacy: PSEUDO_POSTERIOR_MAP,
  run: async (run) => {
    // One truncation of the LW weights (JSM slides); `retruncations` more rounds only on
    // request, each from the fit before it, stopping at the first that does not lower Δ.
    // The lowest-Δ fit is released, so never one above the LW fit it started from.
    const unweighted = await run.unweighted();
    const { m, settings } = run;
    const total = run.needEpsilon("Weighted-e truncation");
    const g = settings.g ?? 0;
    let current = await run.stage(`lw g=${g}`, {
      alpha: vectorWeights(run, unweighted, "lw", g),
    });
    let best = current;
    const rounds = 1 + (settings.retruncations ?? 0);
    for (let round = 1; round <= rounds; round++) {
      if (current.bound.overall <= lipschitzTarget(total, m)) break;
      const alpha = truncateWeights(current.alpha!, current.bound.perRecord, total / m);
      const next = await run.stage(`truncate round ${round}`, { alpha });
      if (next.bound.overall < best.bound.overall) best = next;
      if (!(next.bound.overall < current.bound.overall)) break;
      current = next;
    }
    return released(best, unweighted, { g });
  },
});
