/**
 * Runs one mechanism of the papers end to end on the confidential data: the fits, the weights,
 * the refits, and the privacy map of the final fit (SPEC §1–§4). Each mechanism is a value in
 * its own file under `kinds/` that carries its privacy map (`kinds/kind.ts`); `registry.ts` lists
 * them; this module looks one up, runs it over the shared steps (`kinds/steps.ts`) and applies
 * its map.
 *
 * Privacy guarantees (the neighbour relation is the papers' δ(x, x′) = 1, add/remove):
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
import { MechanismRun } from "./kinds/steps.ts";
import type {
  MechanismContext,
  MechanismName,
  MechanismOutcome,
  MechanismSettings,
} from "./mechanism.ts";
import { lookupMechanism, type MechanismRegistry, MECHANISMS } from "./registry.ts";

/**
 * Runs `settings.mechanism` on the model's data.
 *
 * @param settings The mechanism and its parameters.
 * @param context The model, the sampler, the Lipschitz backend and the noise source.
 * @param registry Where the name is looked up (default {@linkcode MECHANISMS}; a registry made
 *   with `withMechanism` runs a mechanism of its own).
 * @returns The final fit, its weights and bounds, every refit, and the privacy loss.
 */
export async function runMechanism<N extends string = MechanismName>(
  settings: MechanismSettings<N>,
  context: MechanismContext,
  registry: MechanismRegistry<N> = MECHANISMS as unknown as MechanismRegistry<N>,
): Promise<MechanismOutcome<N>> {
  const mechanism = lookupMechanism(registry, settings.mechanism);
  const run = new MechanismRun(settings, context);
  const result = await mechanism.run(run);
  const { final } = result;
  return {
    mechanism: settings.mechanism,
    privacy: mechanism.privacy.map(result.privacyInput, settings.m),
    lipschitz: result.lipschitz,
    privacyLipschitz: result.privacyLipschitz ?? result.lipschitz,
    finalFit: final === null ? null : final.label,
    alpha: final === null ? null : final.alpha,
    fit: final === null ? null : final.fit,
    bound: final === null ? null : final.bound,
    unweightedLipschitz: result.unweightedLipschitz,
    refits: run.refits,
    ...result.extra,
  };
}
