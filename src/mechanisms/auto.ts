/**
 * `--mechanism auto` (issue 24): the mechanism a synthesis uses when its requester leaves the
 * choice to the evidence. The choice reads public facts only — which guarantees the data owner
 * allows, the number of outcomes, m and the ε target — never a confidential value, so that it is
 * the same for every database with the same public facts (and costs no privacy).
 *
 * The rule is the frontier study's verdict (`docs/studies/frontier.md`, decided in
 * `src/studies/frontier_evidence.ts`): over real files, every ε ∈ {1, 2, 5, 10, 20} and m ∈ {1, 3},
 * the record mechanism with the lowest S_pMSE among unflagged syntheses, most often, where aDP is
 * allowed, and the same among the pure-DP mechanisms where only DP is. A test checks that
 * {@linkcode AUTO_RULES} equals the committed frontier's verdict.
 *
 * @module
 */
import type { MechanismName } from "./mechanism.ts";
import type { Guarantee } from "./privacy.ts";

/** The mechanism `auto` picks under each allowed set: aDP allowed, or DP only. */
export const AUTO_RULES: Readonly<Record<Guarantee, MechanismName>> = Object.freeze({
  aDP: "sw",
  DP: "censored-w",
});

/** The public facts the choice may read. */
export interface AutoFacts {
  /** The guarantees the data owner allows (both when no policy restricts them). */
  readonly guarantees: readonly Guarantee[];
  /** The ε target of the m datasets together. */
  readonly epsilon: number | undefined;
  readonly m: number;
}

/** What `auto` chose, and why (in report.json). */
export interface AutoChoice {
  readonly mechanism: MechanismName;
  readonly reason: string;
}

/**
 * The mechanism for a request that asked for `auto`.
 *
 * @param facts The allowed guarantees, ε and m.
 * @returns The mechanism and the reason, in words.
 * @throws {RangeError} Without an ε target, or when no guarantee is allowed.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chooseMechanism } from "./auto.ts";
 * assert.equal(chooseMechanism({ guarantees: ["DP"], epsilon: 5, m: 1 }).mechanism, "censored-w");
 * ```
 */
export function chooseMechanism(facts: AutoFacts): AutoChoice {
  if (facts.epsilon === undefined) {
    throw new RangeError("Invalid epsilon: mechanism auto needs an epsilon target");
  }
  const aDP = facts.guarantees.includes("aDP");
  if (!aDP && !facts.guarantees.includes("DP")) {
    throw new RangeError("Invalid guarantees: mechanism auto needs DP or aDP to be allowed");
  }
  const mechanism = aDP ? AUTO_RULES.aDP : AUTO_RULES.DP;
  const reason = aDP
    ? `aDP is allowed: ${mechanism} had the best utility (lowest S_pMSE among unflagged fits) ` +
      "most often over the real-file frontier (docs/studies/frontier.md)"
    : `only DP is allowed: ${mechanism} had the best utility among the pure-DP mechanisms ` +
      "most often over the real-file frontier (docs/studies/frontier.md)";
  return { mechanism, reason: `${reason}; ε = ${facts.epsilon} for m = ${facts.m}` };
}
