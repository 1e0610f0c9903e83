/**
 * SW: one scalar weight α for every record, α = target Δ / unweighted Δ, lowered by up to
 * {@linkcode EXTRA_ROUNDS} refits while the fit lands above the target (2·Δ·m = ε, or the Δ to
 * match). Each round's α is 0.99 of the one a power law Δ ∝ α^p through the last two fits puts on
 * the target (p = 1, the linear rescale, until two weighted fits exist; p kept in [0.25, 2]): Δ
 * falls more slowly than α where a lower weight widens the posterior (a whole file's centred
 * term), and the linear rescale then needs many refits.
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
    let previous: { scalar: number; bound: number } | null = null;
    for (let round = 0; round < EXTRA_ROUNDS && result.bound.overall > target; round++) {
      const bound = result.bound.overall;
      const power = previous === null ? 1 : powerThrough(previous, { scalar, bound });
      previous = { scalar, bound };
      scalar *= (target / bound) ** (1 / power) * 0.99;
      result = await run.stage(`sw alpha=${scalar.toPrecision(4)}`, {
        alpha: new Float64Array(n).fill(scalar),
      });
    }
    return released(result, unweighted);
  },
});

/**
 * The exponent p of Δ ∝ α^p through two weighted fits, kept in [0.25, 2]; 1 (linear) when the two
 * do not determine it (equal α, a non-finite or non-positive Δ, or Δ not rising with α).
 */
function powerThrough(
  a: { scalar: number; bound: number },
  b: { scalar: number; bound: number },
): number {
  const p = Math.log(a.bound / b.bound) / Math.log(a.scalar / b.scalar);
  return Number.isFinite(p) && p > 0 ? Math.min(2, Math.max(0.25, p)) : 1;
}
