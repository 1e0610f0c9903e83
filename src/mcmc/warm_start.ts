/**
 * Warm-started refits (issue 13, "Warmup and draws that fit the problem"). A mechanism refits one
 * model under weights that change a little from fit to fit (calibration, re-weighting); the
 * earlier fit already knows the posterior's location and shape. A warm-started refit samples z
 * with u = μ + L·z from that fit's draws (mean and covariance), starts each chain at that
 * chain's last draw with its adapted step size, and runs a short warmup
 * ({@linkcode WARM_WARMUP} iterations of Stan's schedule) instead of the default 1000.
 *
 * The short warmup is kept only when the refit's diagnostics show it converged:
 * no divergent transition, R̂ ≤ 1.01 and bulk ESS ≥ 400 for every parameter (SPEC §6), and the
 * chains' adapted step sizes within a factor {@linkcode STEP_SIZE_SPREAD} of each other (a chain
 * whose adaptation wandered off adapts a different ε). Otherwise the caller refits cold, with
 * the full warmup, and reports why; after a fit with divergent transitions it refits cold at once. S (chains × draws) never changes: Δ is a maximum over draws.
 *
 * @module
 */
import type { Model } from "../models/model.ts";
import { ESS_BULK_THRESHOLD, type Fit, RHAT_THRESHOLD } from "./fit.ts";
import { drawsPreconditioner, type Preconditioner } from "./precondition.ts";
import type { ChainStart } from "./sample.ts";

/** Warmup iterations per chain of a warm-started refit. */
export const WARM_WARMUP = 250;

/** Largest ratio of the chains' adapted step sizes a short warmup may leave. */
export const STEP_SIZE_SPREAD = 1.5;

/** Where a refit starts: the preconditioner from the draws, and each chain's last state. */
export interface WarmStart {
  readonly precondition: Preconditioner;
  readonly start: ChainStart;
}

/**
 * The warm start an earlier fit of the same model gives, or null when its draws have no
 * positive definite covariance.
 *
 * @param model The model both fits are of.
 * @param previous The earlier fit (any weights).
 */
export function warmStartFrom(model: Model, previous: Fit): WarmStart | null {
  const { S, dim } = previous;
  const unconstrained = new Float64Array(S * dim);
  for (let s = 0; s < S; s++) {
    model.unconstrain(
      previous.draws.subarray(s * dim, (s + 1) * dim),
      unconstrained.subarray(s * dim, (s + 1) * dim),
    );
  }
  const precondition = drawsPreconditioner(unconstrained, dim);
  if (precondition === null) return null;
  return {
    precondition,
    start: { positions: previous.lastPositions, stepSizes: previous.stepSizes },
  };
}

/**
 * Why a short-warmup fit cannot be kept, or null when its diagnostics show it converged.
 *
 * @param fit The warm-started fit.
 * @returns The first failed check, in words.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { warmupProblem } from "./warm_start.ts";
 * const ok = { divergences: 0, rhatMax: 1.002, essBulkMin: 900, stepSizes: [0.5, 0.6] };
 * assert.equal(warmupProblem(ok), null);
 * assert.equal(warmupProblem({ ...ok, divergences: 2 }), "2 divergent transitions");
 * ```
 */
export function warmupProblem(
  fit: Pick<Fit, "divergences" | "rhatMax" | "essBulkMin" | "stepSizes">,
): string | null {
  if (fit.divergences > 0) return `${fit.divergences} divergent transitions`;
  if (!(fit.rhatMax <= RHAT_THRESHOLD)) {
    return `R-hat ${fit.rhatMax.toFixed(4)} > ${RHAT_THRESHOLD}`;
  }
  if (!(fit.essBulkMin >= ESS_BULK_THRESHOLD)) {
    return `bulk ESS ${fit.essBulkMin.toFixed(0)} < ${ESS_BULK_THRESHOLD}`;
  }
  const spread = Math.max(...fit.stepSizes) / Math.min(...fit.stepSizes);
  if (!(spread <= STEP_SIZE_SPREAD)) {
    return `step sizes differ by a factor ${spread.toFixed(2)} > ${STEP_SIZE_SPREAD}`;
  }
  return null;
}
