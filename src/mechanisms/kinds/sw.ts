/**
 * SW: one scalar weight α for every record, α = target Δ / unweighted Δ, lowered by up to
 * {@linkcode EXTRA_ROUNDS} refits while the fit lands above the target (2·Δ·m = ε, or the Δ to
 * match), α ← 0.99·α·(target/Δ) each; then by up to {@linkcode STEEP_ROUNDS} more, α ←
 * 0.99·α·(target/Δ)², the step that lands on the target where Δ ∝ √α. Δ falls more slowly than α
 * where a lower weight widens the posterior (a whole file's centred term): there the linear step
 * only takes r = Δ/target to r^{1−p} and can end above the target after its rounds. The squared
 * step lands at or below the target wherever Δ ∝ α^p with p ≥ 1/2, and the linear rounds come
 * first, so every release that met its target within them is unchanged.
 *
 * @module
 */
import { lipschitzTarget } from "../calibrate.ts";
import { swAlphaForLipschitz } from "../weights.ts";
import { defineMechanism, type Mechanism, PSEUDO_POSTERIOR_MAP } from "./kind.ts";
import { released } from "./steps.ts";

/** Extra SW rounds when a refit lands above the target. */
const EXTRA_ROUNDS = 4;

/** Further rounds, with the squared step, when the linear ones end above the target. */
const STEEP_ROUNDS = 4;

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
    for (let round = 0; round < EXTRA_ROUNDS + STEEP_ROUNDS; round++) {
      if (result.bound.overall <= target) break;
      const power = round < EXTRA_ROUNDS ? 1 : 2;
      scalar *= (target / result.bound.overall) ** power * 0.99;
      result = await run.stage(`sw alpha=${scalar.toPrecision(4)}`, {
        alpha: new Float64Array(n).fill(scalar),
      });
    }
    return released(result, unweighted);
  },
});
