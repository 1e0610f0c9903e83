/**
 * The mechanisms' names, their settings and what running one produces.
 *
 * @module
 */
import type { LipschitzPrediction } from "./predict_lipschitz.ts";
import type { Fit } from "../mcmc/fit.ts";
import type { Model, Weighting } from "../models/model.ts";
import type { NoisyHistogram } from "./histogram.ts";
import type { LipschitzBackend } from "./lipschitz_backend.ts";
import type { LipschitzResult } from "./lipschitz.ts";
import type { PrivacyLoss } from "./privacy.ts";

/** Every mechanism of the papers, by its command-line name. */
export const MECHANISM_NAMES = [
  "unweighted",
  "lw",
  "cw",
  "sw",
  "lw-final",
  "cw-final",
  "weighted-e",
  "censored",
  "censored-w",
  "histogram",
] as const;

/** One of {@linkcode MECHANISM_NAMES}. */
export type MechanismName = typeof MECHANISM_NAMES[number];

/**
 * What a mechanism is asked to do. `N` is the names the registry knows: {@linkcode MechanismName}
 * unless a caller runs a registry of its own (`registry.ts`, `withMechanism`).
 */
export interface MechanismSettings<N extends string = MechanismName> {
  readonly mechanism: N;
  /** Number of synthetic datasets m. */
  readonly m: number;
  /** Target total ε for the m datasets (calibrates, truncates or censors; never exceeded). */
  readonly epsilon?: number;
  /** Scale c of the LW/CW weights (default 1). */
  readonly c?: number;
  /** Shift g of the LW/CW weights; calibrated to ε when absent and ε is given, else 0. */
  readonly g?: number;
  /** CW and risk ball radius: ρ (relative, r_i = ρ|y_i|) or r (absolute). */
  readonly radius: number;
  /** Whether `radius` is relative (the authors' convention, default) or absolute. */
  readonly relativeRadius: boolean;
  /** SW only: match this Lipschitz bound instead of hitting ε. */
  readonly matchLipschitz?: number;
  /**
   * Weighted-e only: truncation rounds after the first (default 0: one truncation, as the slides
   * define it). Each stops the search if it raises Δ; the lowest-Δ fit is released.
   */
  readonly retruncations?: number;
  /** Re-weighting acceptance: Δ_new ≤ Δ_old·(1 + tolerance) (default 0.01). */
  readonly reweightTolerance?: number;
  /** Histogram only: public bounds and bin count. */
  readonly lower?: number;
  readonly upper?: number;
  readonly bins?: number;
}

/** One fit made on the way, with the Lipschitz bound of its draws. */
export interface Refit {
  /** What the fit was for, e.g. "unweighted", "calibration g=-0.31", "reweight k=0.95". */
  readonly label: string;
  /** Δ_{α,x} of its draws. */
  readonly lipschitz: number;
  /** Σ α_i of its weights (n when unweighted). */
  readonly alphaSum: number;
  /** Warmup iterations per chain of the fit. */
  readonly warmup: number;
  /** Whether it was warm-started from the fit before it with that short warmup. */
  readonly warmStart: boolean;
  /**
   * Why the fit ran cold after the fit before it: a warm-started attempt was discarded (see
   * `warm_start.ts`), or none was tried because the fit before it had divergent transitions.
   */
  readonly warmStartRejected?: string;
  /** Why the fit was run on from its own end: its first run's chains had not mixed. */
  readonly continuedAfter?: string;
  /** Log density + gradient evaluations of the fit, its setup and a discarded attempt included. */
  readonly gradientEvaluations: number;
  /** The Δ predicted for these weights from an earlier fit, when a prediction chose them. */
  readonly predicted?: { readonly lipschitz: number; readonly paretoK: number };
}

/** What a mechanism needs from the pipeline: the model, a sampler and a Lipschitz backend. */
export interface MechanismContext {
  readonly model: Model;
  /** Fits the model's pseudo posterior under `weighting` (the same seed every time). */
  readonly fit: (weighting: Weighting, label: string) => Promise<Fit>;
  readonly lipschitz: LipschitzBackend;
  /**
   * Predicts Δ for candidate weights from a fit's draws (`predict_lipschitz.ts`), so that
   * calibration and re-weighting refit only the candidates it picks; absent: every candidate is
   * a real refit (as the papers do it).
   */
  readonly predict?: (
    draws: Float64Array,
    base: Float64Array | null,
    candidates: readonly Float64Array[],
  ) => Promise<LipschitzPrediction[]>;
  /** Draws Laplace(0, scale) noise (histogram): seeded in studies, secure in releases. */
  readonly laplace: (scale: number) => number;
}

/** The result of running a mechanism on the confidential data. */
export interface MechanismOutcome<N extends string = MechanismName> {
  readonly mechanism: N;
  /** The privacy loss of releasing m datasets. */
  readonly privacy: PrivacyLoss;
  /**
   * Δ of the final fit's draws: max_{i,s} |α_i ℓ_i(θ_s)|, of the clamped contributions under
   * censoring (confidential; NaN for the histogram).
   */
  readonly lipschitz: number;
  /**
   * The Lipschitz bound the guarantee rests on, what a release reports: `lipschitz`, or under
   * censoring the censoring level C (NaN for the histogram, whose privacy map takes ε).
   */
  readonly privacyLipschitz: number;
  /** The final record weights (confidential; null when all 1). */
  readonly alpha: Float64Array | null;
  /** The final fit, whose draws generate the data (null for the histogram). */
  readonly fit: Fit | null;
  /** The Lipschitz bounds of the final fit's draws (confidential; null for the histogram). */
  readonly bound: LipschitzResult | null;
  /** Δ_x of the unweighted fit, when one was made. */
  readonly unweightedLipschitz: number | null;
  /** Every fit made, in order, the first (unweighted) one included. */
  readonly refits: readonly Refit[];
  /** The label of the fit whose draws generate the data (null for the histogram). */
  readonly finalFit: string | null;
  /** The shift g used (calibrated or given), for LW/CW-based mechanisms. */
  readonly g?: number;
  /** The accepted re-weighting constant k (null when no k kept Δ). */
  readonly k?: number | null;
  /** The censoring level C = ε/(2m). */
  readonly censor?: number;
  /** The noisy histogram (the histogram mechanism's whole output). */
  readonly histogram?: NoisyHistogram;
}
