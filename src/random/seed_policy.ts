/**
 * Seed policy of every release, in one place: a given seed makes the output reproducible (the
 * CLI, the studies, inline data; a registered dataset never takes one, see `release_policy.ts`),
 * and without one a fresh 53-bit seed comes from the operating system's CSPRNG and is never
 * released. The report states which (`seedPolicy`).
 *
 * @module
 */

/** The report's words for a seeded release. */
export const SEEDED = "seeded: the output is reproducible from the seed, which must stay secret";

/** The report's words for a release with a fresh secret seed. */
export const FRESH = "fresh: a secret seed drawn from the operating system's CSPRNG, not released";

/**
 * A fresh seed: 53 uniform bits from `crypto.getRandomValues` (a safe integer, as `Rng` takes).
 *
 * @returns An integer in [0, 2^53).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { freshSeed } from "./seed_policy.ts";
 * assert.ok(Number.isSafeInteger(freshSeed()));
 * ```
 */
export function freshSeed(): number {
  const [high, low] = crypto.getRandomValues(new Uint32Array(2));
  return (high & 0x1fffff) * 2 ** 32 + low;
}

/**
 * The seed a release runs with and the policy its report states.
 *
 * @param seed The caller's seed, or undefined for a fresh secret one.
 * @returns The seed and whether it was given.
 */
export function releaseSeed(seed: number | undefined): { seed: number; policy: string } {
  return seed === undefined ? { seed: freshSeed(), policy: FRESH } : { seed, policy: SEEDED };
}
