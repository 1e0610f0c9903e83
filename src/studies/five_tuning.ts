/**
 * The five-synthesizer study's two tunings (issue 25): the slides calibrate Weighted and give
 * Weighted-e and Censor w the fixed rule, and the study runs each of the three the other way too
 * (`retuned`). These pick a synthesizer's entry or cell under one tuning, so that comparisons are
 * made with every synthesizer tuned the same way.
 *
 * @module
 */
import type { FiveCell, FiveEntry, FiveRecord, FiveSummary } from "./five_result.ts";
import {
  FIVE_LABELS,
  FIVE_MECHANISMS,
  FIVE_TUNABLE,
  type FiveMechanism,
  type FiveTunable,
} from "./five_settings.ts";

/**
 * How a tunable synthesizer's weights are set: the slides' fixed rule (c = ε/5, g = 0), Weighted's
 * calibrated shift, or "native", as the slides run each (Weighted calibrated, the others fixed).
 */
export type Tuning = "fixed" | "calibrated" | "native";

/** The tuning each tunable synthesizer runs under in `mechanisms` (the rest in `retuned`). */
const NATIVE: Readonly<Record<FiveTunable, Tuning>> = {
  lw: "calibrated",
  "weighted-e": "fixed",
  "censored-w": "fixed",
};

const isTunable = (m: FiveMechanism): m is FiveTunable =>
  (FIVE_TUNABLE as readonly string[]).includes(m);

/** Where a synthesizer under a tuning is kept: `mechanisms` or `retuned`. */
const inRetuned = (m: FiveMechanism, tuning: Tuning) =>
  isTunable(m) && tuning !== "native" && NATIVE[m] !== tuning;

/**
 * A synthesizer under a tuning in one ε's `mechanisms` and `retuned`: a database's entry or the
 * summary's cell (null: not released, or not run).
 */
function under<T>(
  eps: {
    readonly mechanisms: Readonly<Record<FiveMechanism, T | null>>;
    readonly retuned: Readonly<Record<FiveTunable, T | null>>;
  },
  m: FiveMechanism,
  tuning: Tuning,
): T | null {
  return inRetuned(m, tuning) ? eps.retuned[m as FiveTunable] : eps.mechanisms[m];
}

/** A synthesizer's entry under a tuning in one database's ε entry (null: not released). */
export const entryUnder: (
  eps: FiveRecord["epsilons"][number],
  m: FiveMechanism,
  tuning: Tuning,
) => FiveEntry | null = under;

/** A synthesizer's cell under a tuning at one ε (null: none released or not run). */
export const cellUnder: (
  eps: FiveSummary["epsilons"][number],
  m: FiveMechanism,
  tuning: Tuning,
) => FiveCell | null = under;

/** The synthesizers under a tuning from best to worst by mean max-ECDF. */
export function rankUnder(eps: FiveSummary["epsilons"][number], tuning: Tuning): FiveMechanism[] {
  return FIVE_MECHANISMS.filter((m) => cellUnder(eps, m, tuning) !== null)
    .sort((p, q) =>
      cellUnder(eps, p, tuning)!.ecdfMax.mean - cellUnder(eps, q, tuning)!.ecdfMax.mean
    );
}

/** A synthesizer's label, with its tuning where it is not the slides' own. */
export function labelUnder(m: FiveMechanism, tuning: Tuning): string {
  return inRetuned(m, tuning) ? `${FIVE_LABELS[m]} (${tuning})` : FIVE_LABELS[m];
}
