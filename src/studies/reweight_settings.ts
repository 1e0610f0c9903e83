/**
 * The settings of the re-weighting study (Study 2, SPEC §9.2), its synthesizers and the
 * statistics of its Table 1.
 *
 * @module
 */
import { type SamplerSettings, STUDY_SAMPLER } from "./study_runner.ts";

/** Settings of the re-weighting study. */
export interface ReweightSettings {
  /** Records per database. */
  readonly n: number;
  /** Common target ε (m = 1) of LW and CW and cap of LW_final and CW_final. */
  readonly epsilon: number;
  /** Scale c of the LW and CW weights (g is calibrated). */
  readonly c: number;
  /** CW ball radius ρ (relative) or r (absolute). */
  readonly radius: number;
  readonly relativeRadius: boolean;
  readonly sampler: SamplerSettings;
}

/** SPEC §9.2 at full size: n = 1000, ε = 12 (Δ ≤ 6), c = 1, ρ = 0.1 relative. */
export const REWEIGHT_SETTINGS: ReweightSettings = Object.freeze({
  n: 1000,
  epsilon: 12,
  c: 1,
  radius: 0.1,
  relativeRadius: true,
  sampler: STUDY_SAMPLER,
});

/** The synthesizers, by their `runMechanism` names, in the table's order. */
export const REWEIGHT_MECHANISMS = [
  "unweighted",
  "lw",
  "lw-final",
  "cw",
  "cw-final",
  "sw",
] as const;
export type ReweightMechanism = typeof REWEIGHT_MECHANISMS[number];

/** The statistics of Table 1, in its row order. */
export const TABLE_STATISTICS = ["q15", "q90", "mean", "median"] as const;
