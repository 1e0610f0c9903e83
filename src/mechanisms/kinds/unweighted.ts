/**
 * The unweighted mechanism: one draw of the posterior per dataset, no weights (α = 1); the
 * baseline of the papers, aDP with ε = 2·Δ_x·m.
 *
 * @module
 */
import { defineMechanism, type Mechanism, PSEUDO_POSTERIOR_MAP } from "./kind.ts";
import { released } from "./steps.ts";

/** The unweighted posterior. */
export const UNWEIGHTED: Mechanism<"unweighted"> = defineMechanism({
  name: "unweighted",
  summary: "the posterior itself, no weights",
  accepts: { outcomes: "several", numericOutcome: false, bounds: false, epsilon: "optional" },
  privacy: PSEUDO_POSTERIOR_MAP,
  run: async (run) => {
    const unweighted = await run.unweighted();
    return released(unweighted, unweighted);
  },
});
