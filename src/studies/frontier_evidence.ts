/**
 * What the frontier shows, decided in code from its JSON (`frontier.ts`): at each file, m and ε,
 * the record mechanism with the best general utility (lowest S_pMSE among released syntheses
 * whose final fit passed its diagnostics), overall and among the pure-DP ones, and over the whole
 * grid the mechanism that wins most often under each guarantee — the rule `--mechanism auto`
 * follows (`src/mechanisms/auto.ts`).
 *
 * @module
 */
import type { MechanismName } from "../mechanisms/mechanism.ts";
import type { Guarantee } from "../mechanisms/privacy.ts";
import { lookupMechanism, MECHANISMS } from "../mechanisms/registry.ts";
import {
  type FrontierArm,
  type FrontierMechanism,
  type FrontierResult,
  isReleased,
  RECORD_MECHANISMS,
} from "./frontier_settings.ts";

/**
 * The guarantee of a record mechanism, as its privacy map in the mechanism registry states it
 * (the censored ones pure DP, the rest aDP); throws for the Laplace table, which is not in it.
 */
export function recordGuarantee(mechanism: FrontierMechanism): Guarantee {
  return lookupMechanism(MECHANISMS, mechanism as MechanismName).privacy.guarantee;
}

/** The best record mechanisms at one file, m and ε. */
export interface FrontierCell {
  readonly file: string;
  readonly m: number;
  readonly epsilon: number;
  /** Lowest S_pMSE of any guarantee (null: no mechanism released an unflagged synthesis). */
  readonly best: FrontierMechanism | null;
  readonly bestSPMSE: number | null;
  /** Lowest S_pMSE among the pure-DP mechanisms. */
  readonly bestDP: FrontierMechanism | null;
  readonly bestDPSPMSE: number | null;
}

/** A synthesis that counts: released, its final fit unflagged, with an S_pMSE. */
function usable(arm: FrontierArm): boolean {
  return arm.finalFit !== null && !arm.finalFit.flagged && arm.metrics.sPMSE !== null;
}

/** The arg-min of S_pMSE over `arms` (ties: the earlier mechanism of the list). */
function lowest(arms: readonly FrontierArm[]): FrontierArm | null {
  let best: FrontierArm | null = null;
  for (const arm of arms) if (best === null || arm.metrics.sPMSE! < best.metrics.sPMSE!) best = arm;
  return best;
}

/**
 * The best record mechanisms at every (file, m, ε) of a result.
 *
 * @param result A frontier result.
 * @returns One cell per file, m and ε, in the settings' order.
 */
export function frontierCells(result: FrontierResult): FrontierCell[] {
  const cells: FrontierCell[] = [];
  const arms = result.arms.filter(isReleased).filter(usable)
    .filter((arm) => RECORD_MECHANISMS.includes(arm.mechanism));
  for (const file of result.settings.files) {
    for (const m of result.settings.ms) {
      for (const epsilon of result.settings.epsilons) {
        const here = arms.filter((a) => a.file === file.key && a.m === m && a.epsilon === epsilon);
        const best = lowest(here);
        const bestDP = lowest(here.filter((a) => recordGuarantee(a.mechanism) === "DP"));
        cells.push({
          file: file.key,
          m,
          epsilon,
          best: best?.mechanism ?? null,
          bestSPMSE: best?.metrics.sPMSE ?? null,
          bestDP: bestDP?.mechanism ?? null,
          bestDPSPMSE: bestDP?.metrics.sPMSE ?? null,
        });
      }
    }
  }
  return cells;
}

/** How often each mechanism is best, over the grid, when aDP is allowed and when only DP is. */
export interface FrontierWinners {
  readonly any: Readonly<Partial<Record<FrontierMechanism, number>>>;
  readonly dp: Readonly<Partial<Record<FrontierMechanism, number>>>;
  /** The most frequent winner of each (ties: the earlier mechanism of `RECORD_MECHANISMS`). */
  readonly anyWinner: FrontierMechanism | null;
  readonly dpWinner: FrontierMechanism | null;
}

/**
 * Tallies {@linkcode frontierCells}' winners.
 *
 * @param cells The cells of a result.
 * @returns The counts and the most frequent winner under each guarantee.
 */
export function frontierWinners(cells: readonly FrontierCell[]): FrontierWinners {
  const tally = (pick: (cell: FrontierCell) => FrontierMechanism | null) => {
    const counts: Partial<Record<FrontierMechanism, number>> = {};
    for (const cell of cells) {
      const mechanism = pick(cell);
      if (mechanism !== null) counts[mechanism] = (counts[mechanism] ?? 0) + 1;
    }
    let winner: FrontierMechanism | null = null;
    for (const mechanism of RECORD_MECHANISMS) {
      if ((counts[mechanism] ?? 0) > (winner === null ? 0 : counts[winner]!)) winner = mechanism;
    }
    return { counts, winner };
  };
  const any = tally((cell) => cell.best);
  const dp = tally((cell) => cell.bestDP);
  return { any: any.counts, dp: dp.counts, anyWinner: any.winner, dpWinner: dp.winner };
}
