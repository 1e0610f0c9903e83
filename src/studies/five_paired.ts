/**
 * The five-synthesizer study's paired comparisons (issue 25): one synthesizer's utility against
 * another's on the databases where both released, under one tuning, with its z and whether the
 * difference is a tie within Monte Carlo error, and the sentences the report and the verdicts
 * build from them.
 *
 * @module
 */
import type { FiveResult } from "./five_result.ts";
import { FIVE_LABELS, type FiveMechanism } from "./five_settings.ts";
import { entryUnder, labelUnder, type Tuning } from "./five_tuning.ts";
import * as md from "./markdown.ts";
import { type PairedDifference, pairedDifference } from "../stats/paired_difference.ts";
import { isTie } from "./verdict.ts";

/** The utility measures: max-ECDF and avg-ECDF. */
export type Utility = "ecdfMax" | "ecdfMeanSquared";

export type Lower = PairedDifference & { readonly tie: boolean };

/**
 * `a` against `b` at ε index e under one tuning, paired on the databases where both released: how
 * much lower `a`'s utility measure is (positive when `a` is better), its z and the databases
 * (null when fewer than two databases have both).
 */
export function lowerBy(
  result: FiveResult,
  e: number,
  a: FiveMechanism,
  b: FiveMechanism,
  key: Utility,
  tuning: Tuning = "native",
): Lower | null {
  const pairs = result.records.map((r) => {
    const eps = r.epsilons[e];
    return [
      entryUnder(eps, b, tuning)?.[key] ?? null,
      entryUnder(eps, a, tuning)?.[key] ?? null,
    ] as const;
  });
  if (pairs.filter(([x, y]) => x !== null && y !== null).length < 2) return null;
  const d = pairedDifference(pairs);
  return { ...d, tie: isTie(d) };
}

/** The same comparison the other way round. */
export const flip = (d: Lower): Lower => ({ ...d, mean: -d.mean, z: -d.z });

/** "Censor w lower than Weighted by 0.0021 (paired z = 1.1, 100 databases)". */
export function lowerText(
  a: FiveMechanism,
  b: FiveMechanism,
  d: Lower,
  tuning: Tuning = "native",
): string {
  return `${labelUnder(a, tuning)} lower than ${labelUnder(b, tuning)} by ${md.fmt(d.mean, 4)} ` +
    `(paired z = ${md.fmt(d.z, 1)}, ${d.n} databases)`;
}

/** "; ties within Monte Carlo error (z < 2): …", or "" when there are none. */
export const tiesText = (ties: readonly string[]) =>
  ties.length === 0 ? "" : `; ties within Monte Carlo error (z < 2): ${ties.join("; ")}`;

/**
 * Weighted against the synthesizer with the best mean at ε index e, paired: "best by max-ECDF",
 * "tied for best …" (|z| < 2 is not a loss) or "not best …" (the slides' "Weighted best").
 */
export function weightedAgainstBest(
  result: FiveResult,
  e: number,
  rank: readonly FiveMechanism[],
  measure: string,
  key: Utility,
): string {
  if (rank[0] === "lw") return `best by ${measure}`;
  const d = lowerBy(result, e, rank[0], "lw", key);
  if (d === null) return `not best by ${measure} (${FIVE_LABELS[rank[0]]} is)`;
  const z = `paired z = ${md.fmt(d.z, 1)}, ${d.n} databases`;
  if (!d.tie && d.mean < 0) {
    return `best by ${measure} on the databases both released (paired z = ` +
      `${md.fmt(-d.z, 1)} against ${FIVE_LABELS[rank[0]]}, ${d.n} databases)`;
  }
  return d.tie
    ? `tied for best by ${measure} (${FIVE_LABELS[rank[0]]}'s mean is lower, ${z}: a tie ` +
      "within Monte Carlo error)"
    : `not best by ${measure} (${FIVE_LABELS[rank[0]]} is, ${z})`;
}
