/**
 * The mechanisms, by name: one entry per name of `MECHANISM_NAMES` (`mechanism.ts`), each a value
 * from its file under `kinds/` (`kinds/kind.ts` says what a mechanism is). `runMechanism` looks
 * the settings' name up here; {@linkcode withMechanism} makes a registry with one more mechanism
 * (a test's, or an experiment's) without touching this one.
 *
 * @module
 */
import type { Mechanism } from "./kinds/kind.ts";
import { CENSORED, CENSORED_W } from "./kinds/censored.ts";
import { HISTOGRAM } from "./kinds/histogram.ts";
import { SW } from "./kinds/sw.ts";
import { UNWEIGHTED } from "./kinds/unweighted.ts";
import { CW, LW } from "./kinds/vector.ts";
import { CW_FINAL, LW_FINAL } from "./kinds/vector_final.ts";
import { WEIGHTED_E } from "./kinds/weighted_e.ts";
import type { MechanismName } from "./mechanism.ts";

export type { Mechanism, MechanismAccepts, PrivacyMap } from "./kinds/kind.ts";

/** A registry: each name to the mechanism of that name. */
export type MechanismRegistry<N extends string = MechanismName> = {
  readonly [K in N]: Mechanism<K>;
};

/** Every mechanism of `MECHANISM_NAMES` (the type checker asks for a new name's line here). */
export const MECHANISMS: MechanismRegistry = Object.freeze({
  "unweighted": UNWEIGHTED,
  "lw": LW,
  "cw": CW,
  "sw": SW,
  "lw-final": LW_FINAL,
  "cw-final": CW_FINAL,
  "weighted-e": WEIGHTED_E,
  "censored": CENSORED,
  "censored-w": CENSORED_W,
  "histogram": HISTOGRAM,
});

/**
 * A registry with one more mechanism; the given one is not changed.
 *
 * @param registry The mechanisms so far.
 * @param mechanism The one to add, under its name (not already taken).
 * @returns A new, frozen registry.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MECHANISMS, withMechanism } from "./registry.ts";
 * const registry = withMechanism(MECHANISMS, { ...MECHANISMS.sw, name: "sw-again" as const });
 * assert.equal(registry["sw-again"].privacy.guarantee, "aDP");
 * assert.equal("sw-again" in MECHANISMS, false);
 * ```
 */
export function withMechanism<N extends string, K extends string>(
  registry: MechanismRegistry<N>,
  mechanism: Mechanism<K>,
): MechanismRegistry<N | K> {
  if (Object.hasOwn(registry, mechanism.name)) {
    throw new RangeError(`Invalid mechanism: "${mechanism.name}" is already registered`);
  }
  return Object.freeze({
    ...registry,
    [mechanism.name]: mechanism,
  }) as unknown as MechanismRegistry<
    N | K
  >;
}

/**
 * The mechanism of a name.
 *
 * @param registry The registry to look in.
 * @param name The mechanism's name.
 * @returns Its entry; throws a RangeError for a name the registry lacks.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { lookupMechanism, MECHANISMS } from "./registry.ts";
 * assert.equal(lookupMechanism(MECHANISMS, "censored").privacy.guarantee, "DP");
 * ```
 */
export function lookupMechanism<N extends string>(
  registry: MechanismRegistry<N>,
  name: N,
): Mechanism<N> {
  const mechanism = Object.hasOwn(registry, name) ? registry[name] : undefined;
  if (mechanism === undefined) throw new RangeError(`Invalid mechanism: unknown "${name}"`);
  return mechanism as Mechanism<N>;
}
