/**
 * The release a report is about, as the first section of report.html states it (issue 24: a
 * page a release officer can sign): the mechanism and the settings it was asked for, ε, the
 * guarantee and its neighbour relation, Δ, m, n, and the health of the final fit.
 *
 * What each audience sees follows report.json: the page is given the public manifest as its
 * reader's report states it (on registered data the charged cap as ε and no Δ) and, for the data
 * owner only (the command line; the API's page, which needs the diagnostics scope), the achieved
 * values and the fit's diagnostics, which are the owner's diagnostics already.
 *
 * @module
 */
import type { MechanismName } from "../mechanisms/mechanism.ts";
import type { ReleaseManifest } from "./report.ts";
import { planOf, type SynthesisPlan } from "./plan.ts";
import type { SynthesisSpec } from "./spec.ts";

/** One setting of the request, as text for the page. */
export interface ReleaseSetting {
  readonly label: string;
  readonly value: string;
}

/** The health of the final fit (the owner's diagnostics). */
export interface FitHealth {
  readonly flagged: boolean;
  readonly divergences: number;
  readonly rhatMax: number;
  readonly essBulkMin: number;
}

/** The achieved privacy of a release on registered data (the owner's diagnostics). */
export interface AchievedPrivacy {
  readonly lipschitz: number | null;
  readonly epsilonPerDataset: number;
  readonly epsilon: number;
}

/** What the release section of report.html states. */
export interface ReleaseSummary {
  /** The public manifest (report.json) as the page's reader's report states it. */
  readonly report: ReleaseManifest;
  /** The request's settings ({@linkcode releaseSettings}); absent: not recorded. */
  readonly settings?: readonly ReleaseSetting[];
  /**
   * On registered data, where the public report states the cap: the achieved Δ and ε (the
   * owner's diagnostics `achieved`). Absent where the report states the achieved values itself.
   */
  readonly achieved?: AchievedPrivacy;
  /** The final fit's health; null when no posterior was fitted; absent: not recorded. */
  readonly fit?: FitHealth | null;
}

/** The limits the final fit must meet to release (SPEC §12; `src/mcmc/fit.ts`). */
export const FIT_LIMITS = { rhatMax: 1.01, essBulkMin: 400, divergences: 0 } as const;

/** The warning atop report.html of a release from a flagged fit (`allowFlagged`, research). */
export const FLAGGED_WARNING = "Not a release: the final fit failed its diagnostics (a " +
  "divergence, R̂ > 1.01 or bulk ESS < 400), so its Δ, a maximum over draws that may not have " +
  "explored the tails, and the ε resting on it are not established. Written only because " +
  "--allow-flagged (allowFlagged) asked for it (research).";

/** A short description of each mechanism (SPEC §1–4). */
export const MECHANISM_DESCRIPTIONS: Readonly<Record<MechanismName, string>> = {
  "unweighted": "the unweighted posterior (every α_i = 1)",
  "lw": "likelihood-weighted (LW): α_i = clamp(c·(1 − f̃_i) + g, 0, 1)",
  "cw": "count-weighted (CW): α_i = clamp(c·(1 − IR_i) + g, 0, 1) over a ball of radius r",
  "sw": "scalar-weighted (SW): one α for every record",
  "lw-final": "LW re-weighted toward the target (LW_final, Algorithm 3)",
  "cw-final": "CW re-weighted toward the target (CW_final, Algorithm 3)",
  "weighted-e": "Weighted-e: LW, then records with Δ_i > ε/2 truncated to α_i = 0",
  "censored": "censored likelihood, unweighted (Censor uw): each |ℓ_i| clamped to ε/2",
  "censored-w": "censored likelihood with LW weights (Censor w): each |α_i·ℓ_i| clamped to ε/2",
  "histogram": "perturbed histogram (Wasserman & Zhou 2010): Laplace noise on bin counts",
};

/** Mechanisms whose weights take c and g. */
const SCALED = ["lw", "cw", "lw-final", "cw-final", "weighted-e", "censored-w"];

/**
 * The settings of a synthesis request as the release section lists them: every one is the
 * requester's (or the release policy's public declaration), none is computed from the data.
 *
 * @param request The plan of the request as it ran, or the request (its settings as asked: "auto"
 *   lists none of the chosen mechanism's).
 * @returns Label and text of each setting that applies to its mechanism.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { synthesisPlan } from "./plan.ts";
 * import { releaseSettings } from "./release_summary.ts";
 * import { SynthesisSpec } from "./spec.ts";
 * const settings = releaseSettings(synthesisPlan(
 *   SynthesisSpec.parse({ y: "y", model: "poisson", mechanism: "lw-final", epsilon: 5, m: 2 }),
 * ));
 * assert.equal(settings[0].value, "y (poisson)");
 * assert.deepEqual(settings.find((s) => s.label === "target ε"), { label: "target ε", value: "5" });
 * ```
 */
export function releaseSettings(request: SynthesisPlan | SynthesisSpec): ReleaseSetting[] {
  const plan = planOf(request);
  const spec = plan.requested;
  const out: ReleaseSetting[] = [];
  const add = (label: string, value: string | number) => out.push({ label, value: String(value) });
  add(
    "outcomes and models",
    plan.outcomes.map(({ y, model }) => `${y} (${model})`).join(", "),
  );
  add("public covariates", spec.x.join(", ") || "none");
  add("target ε", spec.epsilon ?? "none (not calibrated to a target)");
  if (SCALED.includes(spec.mechanism)) {
    add("weight scale c", spec.c ?? "1 (default)");
    add(
      "weight shift g",
      spec.g ?? (spec.epsilon === undefined ? "0 (default)" : "calibrated to the target ε"),
    );
  }
  if (spec.mechanism === "cw" || spec.mechanism === "cw-final") {
    add("ball radius", `${spec.radius} (${spec.radiusMode})`);
  }
  if (spec.mechanism === "weighted-e") add("re-truncations", spec.retruncations ?? 0);
  if (spec.mechanism === "sw" && spec.matchLipschitz !== undefined) {
    add("match Δ", spec.matchLipschitz);
  }
  if (spec.mechanism === "histogram") {
    if (spec.lower !== undefined && spec.upper !== undefined) {
      add("public bounds", `[${spec.lower}, ${spec.upper}]`);
    }
    add("bins", spec.bins ?? "default (about n^(1/3); one per level of a level outcome)");
  }
  if (spec.weight !== undefined && plan.survey === null) {
    add("survey weight", spec.weight);
    add(
      "synthetic weights",
      "drawn from the last conditional, log weight given the covariates and the outcomes " +
        "(lognormal); no weight, stratum or PSU is released as it is",
    );
  } else if (spec.weight !== undefined) {
    add("survey weight", spec.weight);
    if (spec.strata !== undefined) add("strata", spec.strata);
    add(
      "synthetic weights",
      spec.stratumSizes !== undefined && spec.strata !== undefined
        ? "scaled so Σ w* is the declared population Σ N_h"
        : "not scaled (no declared stratum sizes): totals from them run low; means do not",
    );
  }
  if (spec.mechanism !== "histogram") {
    add(
      "sampler",
      `${spec.sampler}, ${spec.chains ?? (spec.sampler === "gpu-hmc" ? 64 : 4)} chains, ` +
        `${spec.warmup} warmup, ${spec.draws} draws`,
    );
  }
  return out;
}
