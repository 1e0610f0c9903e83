/**
 * SW: one scalar weight α for every record, α = target Δ / unweighted Δ, lowered by up to
 * {@linkcode EXTRA_ROUNDS} refits while the fit lands above the target (2·Δ·m = ε, or the Δ to
 * match).
 *
 * @module
 */
import { lipschitzTarget } from "../calibrate.ts";
import { swAlphaForLipschitz } from "../weights.ts";
import { defineMechanism, type Mechanism, PSEUDO_POSTERIOR_MAP } from "./kind.ts";
import { released } from "./steps.ts";

/** Extra SW rounds when a refit lands above the target. */
const EXTRA_ROUNDS = 4;

/** Scalar-weighted (SW). */
export const SW: Mechanism<"sw"> = defineMechanism({
  name: "sw",
  summary: "scalar-weighted: one α for every record",
  accepts: {
    outcomes: "several",
    numericOutcome: false,
    bounds: false,
    epsilon: "unless-match-lipschitz",
  },
  privacy: PSEUDO_POSTERIOR_MAP,
  run: async (run) => {
    const unweighted = await run.unweighted();
    const { n, m } = run;
    const target = run.settings.matchLipschitz ??
      lipschitzTarget(run.needEpsilon("SW without --match-lipschitz"), m);
    let scalar = swAlphaForLipschitz(target, unweighted.bound.overall);
    let result = await run.stage(`sw alpha=${scalar.toPrecision(4)}`, {
      alpha: new Float64Array(n).fill(scalar),
    });
    for (let round = 0; round < EXTRA_ROUNDS && result.bound.overall > target; round++) {
      scalar *= (target / result.bound.overall) * 0.99;
      result = await run.stage(`sw alpha=${scalar.toPrecision(4)}`, {
        alpha: new Float64Array(n).fill(scalar),
      });
    }
    return released(result, unweighted);
  },
});
