/**
 * What a mechanism is, as a value (OpenDP style: a measurement carries its privacy map): its name,
 * what it accepts, its privacy map and its `run`. One file in this folder per mechanism (or per
 * pair that is the same code with a parameter); `registry.ts` lists them; `runMechanism` looks
 * one up. `docs/adding-a-mechanism.md` walks through adding one.
 *
 * @module
 */
import {
  censoredPrivacy,
  type Guarantee,
  histogramPrivacy,
  NEIGHBOURS,
  type PrivacyLoss,
  pseudoPosteriorPrivacy,
} from "../privacy.ts";
import type { MechanismResult, MechanismRun } from "./steps.ts";

/** What a mechanism accepts, known before it runs (public facts only). */
export interface MechanismAccepts {
  /**
   * "several": any number of outcomes (the joint record's ℓ is bounded); "one": one outcome only
   * (CW's ball |y − y_i| ≤ r and the histogram are defined in one dimension).
   */
  readonly outcomes: "one" | "several";
  /** Whether the outcome must be numeric, not a binary or categorical level (CW's ball). */
  readonly numericOutcome: boolean;
  /**
   * Whether public bounds (`lower`, `upper`) are needed: the histogram's range, for a numeric
   * outcome (levels give their own bins).
   */
  readonly bounds: boolean;
  /**
   * Whether a target ε is needed: "required" (it censors, truncates or sets the noise),
   * "optional" (it calibrates when given; always a cap), or "unless-match-lipschitz" (SW: ε or
   * the Δ to match).
   */
  readonly epsilon: "required" | "optional" | "unless-match-lipschitz";
}

/** A mechanism's privacy map: ε of a release from its bound and m, with its guarantee. */
export interface PrivacyMap {
  /** "DP": ε-DP for every database; "aDP": asymptotic DP, local to this database (SPEC §1). */
  readonly guarantee: Guarantee;
  /** The neighbour relation ε is stated for (one for every mechanism: add/remove). */
  readonly neighbours: typeof NEIGHBOURS;
  /**
   * What the map takes: Δ_{α,x} of the final fit's draws ("lipschitz"), the censoring level C
   * ("censor"), or the noise's ε ("epsilon").
   */
  readonly input: "lipschitz" | "censor" | "epsilon";
  /**
   * ε of one dataset and of the release of m.
   *
   * @param input Δ, C or ε, as `input` says.
   * @param m The number of synthetic datasets.
   */
  readonly map: (input: number, m: number) => PrivacyLoss;
}

/** A mechanism: its name, what it accepts, its privacy map and how it runs. */
export interface Mechanism<N extends string = string> {
  /** The command-line name (one of `MECHANISM_NAMES` for a built-in mechanism). */
  readonly name: N;
  /** One line: what it does. */
  readonly summary: string;
  readonly accepts: MechanismAccepts;
  readonly privacy: PrivacyMap;
  /**
   * Fits (or draws) on the confidential data and says which fit is released and the number its
   * privacy map takes.
   *
   * @param run The settings, the context and the shared steps (`steps.ts`).
   */
  readonly run: (run: MechanismRun) => Promise<MechanismResult>;
}

/**
 * The pseudo posterior map (`pseudoPosteriorPrivacy`): each dataset from one draw of an α-weighted
 * pseudo posterior is 2·Δ_{α,x}-aDP; m datasets cost 2·Δ_{α,x}·m (Savitsky, Williams & Hu 2022).
 */
export const PSEUDO_POSTERIOR_MAP: PrivacyMap = Object.freeze({
  guarantee: "aDP",
  neighbours: NEIGHBOURS,
  input: "lipschitz",
  map: pseudoPosteriorPrivacy,
});

/**
 * The censored likelihood's map (`censoredPrivacy`): every record's contribution is clamped to
 * [−C, C], so each draw is 2C-DP for every database, m draws 2Cm (SPEC §3).
 */
export const CENSORED_MAP: PrivacyMap = Object.freeze({
  guarantee: "DP",
  neighbours: NEIGHBOURS,
  input: "censor",
  map: censoredPrivacy,
});

/**
 * The perturbed histogram's map (`histogramPrivacy`): ε-DP for public bounds, charged once for any
 * m (every dataset is post-processing; Wasserman & Zhou 2010).
 */
export const HISTOGRAM_MAP: PrivacyMap = Object.freeze({
  guarantee: "DP",
  neighbours: NEIGHBOURS,
  input: "epsilon",
  map: (epsilon: number) => histogramPrivacy(epsilon),
});

/**
 * A mechanism value, frozen (its `accepts` too); the one way the files in this folder make one.
 *
 * @param mechanism The mechanism's fields.
 * @returns The same mechanism, frozen.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineMechanism, PSEUDO_POSTERIOR_MAP } from "./kind.ts";
 * const noop = defineMechanism({
 *   name: "noop",
 *   summary: "refuses to run",
 *   accepts: { outcomes: "several", numericOutcome: false, bounds: false, epsilon: "optional" },
 *   privacy: PSEUDO_POSTERIOR_MAP,
 *   run: () => Promise.reject(new Error("noop")),
 * });
 * assert.ok(Object.isFrozen(noop.accepts));
 * ```
 */
export function defineMechanism<N extends string>(mechanism: Mechanism<N>): Mechanism<N> {
  return Object.freeze({ ...mechanism, accepts: Object.freeze({ ...mechanism.accepts }) });
}
