/**
 * LW and CW: the vector-weighted pseudo posterior with the likelihood weights (LW, from the
 * unweighted fit's record bounds) or the isolation-risk weights (CW), at the given shift g or g
 * calibrated to ε (`calibrate.ts`). The same code with the kind of weights as its parameter.
 *
 * @module
 */
import { defineMechanism, type Mechanism, PSEUDO_POSTERIOR_MAP } from "./kind.ts";
import { released, type VectorKind, vectorWeighted } from "./steps.ts";

/**
 * The LW or CW mechanism.
 *
 * @param kind Which weights.
 * @returns The mechanism of that name.
 */
function vectorMechanism<K extends VectorKind>(kind: K): Mechanism<K> {
  return defineMechanism({
    name: kind,
    summary: kind === "lw"
      ? "likelihood-weighted: α_i from the unweighted fit's record bounds"
      : "count-weighted: α_i from the record's isolation risk",
    // CW's ball |y − y_i| ≤ r is defined for one numeric outcome.
    accepts: kind === "lw"
      ? { outcomes: "several", numericOutcome: false, bounds: false, epsilon: "optional" }
      : { outcomes: "one", numericOutcome: true, bounds: false, epsilon: "optional" },
    privacy: PSEUDO_POSTERIOR_MAP,
    run: async (run) => {
      const unweighted = await run.unweighted();
      const result = await vectorWeighted(run, unweighted, kind);
      return released(result, unweighted, { g: result.g });
    },
  });
}

/** Likelihood-weighted (LW). */
export const LW: Mechanism<"lw"> = vectorMechanism("lw");
/** Count-weighted (CW). */
export const CW: Mechanism<"cw"> = vectorMechanism("cw");
