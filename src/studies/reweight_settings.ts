/**
 * The settings of the re-weighting study (Study 2, SPEC §9.2), its synthesizers and the
 * statistics of its Table 1.
 *
 * @module
 */
import type { MechanismName } from "../mechanisms/mechanism.ts";
import { type SamplerSettings, STUDY_SAMPLER } from "./study_runner.ts";

/** Settings of the re-weighting study. */
export interface ReweightSettings {
  /** Records per database. */
  readonly n: number;
  /** Common target ε (m = 1) of LW and CW and cap of LW_final and CW_final. */
  readonly epsilon: number;
  /** Scale c of the LW and CW weights (g is calibrated, or 0 for the unshifted CW rule). */
  readonly c: number;
  /** CW ball radius ρ (relative) or r (absolute). */
  readonly radius: number;
  readonly relativeRadius: boolean;
  /**
   * Synthetic datasets per synthesizer and database (from distinct, evenly spaced draws): the
   * first is the release whose bootstrap intervals make Table 1; the means over all of them give
   * the intervals over databases reported beside it.
   */
  readonly datasets: number;
  /** Bootstrap resamples B of each dataset's 95% confidence intervals (Table 1). */
  readonly bootstrap: number;
  readonly sampler: SamplerSettings;
}

/**
 * SPEC §9.2 at full size: n = 1000, ε = 12 (Δ ≤ 6), c = 1, ρ = 0.1 relative, 100 synthetic
 * datasets per synthesizer and database, B = 1000 bootstrap resamples.
 */
export const REWEIGHT_SETTINGS: ReweightSettings = Object.freeze({
  n: 1000,
  epsilon: 12,
  c: 1,
  radius: 0.1,
  relativeRadius: true,
  datasets: 100,
  bootstrap: 1000,
  sampler: STUDY_SAMPLER,
});

/**
 * The synthesizers, in the table's order: the paper's five (Unweighted, LW, LW_final, CW,
 * CW_final, LW and CW calibrated to the common ε), SW matched to LW's Δ, and CW with the
 * unshifted rule (c = 1, g = 0, Algorithm 2 as printed) with its re-weighted form.
 */
export const REWEIGHT_MECHANISMS = [
  "unweighted",
  "lw",
  "lw-final",
  "cw",
  "cw-final",
  "sw",
  "cw-g0",
  "cw-final-g0",
] as const;
export type ReweightMechanism = typeof REWEIGHT_MECHANISMS[number];

/** The pipeline mechanism behind each synthesizer and whether its shift is fixed at g = 0. */
export const REWEIGHT_PLANS: Readonly<
  Record<ReweightMechanism, { readonly mechanism: MechanismName; readonly unshifted: boolean }>
> = Object.freeze({
  unweighted: { mechanism: "unweighted", unshifted: false },
  lw: { mechanism: "lw", unshifted: false },
  "lw-final": { mechanism: "lw-final", unshifted: false },
  cw: { mechanism: "cw", unshifted: false },
  "cw-final": { mechanism: "cw-final", unshifted: false },
  sw: { mechanism: "sw", unshifted: false },
  "cw-g0": { mechanism: "cw", unshifted: true },
  "cw-final-g0": { mechanism: "cw-final", unshifted: true },
});

/** The synthesizers' labels in the report. */
export const REWEIGHT_LABELS: Readonly<Record<ReweightMechanism, string>> = Object.freeze({
  unweighted: "Unweighted",
  lw: "LW",
  "lw-final": "LW_final",
  cw: "CW",
  "cw-final": "CW_final",
  sw: "SW",
  "cw-g0": "CW (g = 0)",
  "cw-final-g0": "CW_final (g = 0)",
});

/** The statistics of Table 1, in its row order. */
export const TABLE_STATISTICS = ["q15", "q90", "mean", "median"] as const;
