/**
 * Fits a model's (pseudo) posterior with NUTS and summarises it (SPEC §6).
 *
 * The sampler runs on the unconstrained scale from `model.initialPoint()`; the draws are mapped
 * to θ with `model.constrain` and summarised per parameter: mean, sd, 5% and 95% quantiles
 * (R's type 7), rank-normalised split-R̂ and bulk/tail ESS (Vehtari et al. 2021). A fit with
 * R̂ > 1.01 or bulk ESS < 400 for some parameter, or any divergent transition, is flagged.
 *
 * @module
 */
import type { Model, Weighting } from "../models/model.ts";
import { quantile } from "../stats/quantile.ts";
import { essBulk, essTail, splitRhat } from "./diagnostics.ts";
import { laplacePreconditioner, type Preconditioner } from "./precondition.ts";
import { sample, type SampleOptions, type SampleResult } from "./sample.ts";

/**
 * Options of `fitModel`: those of `sample` except the starting point, which the model gives, and
 * the preconditioner: `laplace` (the default) samples around the Laplace approximation of the
 * weighted posterior, `none` samples u directly (Stan's way), and a given
 * {@linkcode Preconditioner} is used as it is (a warm start's, from an earlier fit's draws).
 */
export type FitOptions = Omit<SampleOptions, "init" | "precondition" | "exact"> & {
  readonly precondition?: "laplace" | "none" | Preconditioner;
};

/** How a fit was set up, beyond its sample options (reported with the fit). */
export interface FitSetup {
  /** Where the preconditioner came from, `none` when u was sampled directly. */
  readonly precondition: "laplace" | "draws" | "none";
  /** Why the Laplace approximation was not used (it failed), when it was asked for. */
  readonly preconditionFailure?: string;
  /**
   * Log-density evaluations spent besides this fit's chains: the mode search, and a discarded
   * warm-started attempt.
   */
  readonly setupEvaluations: number;
  /** Whether the chains started from an earlier fit (short warmup; see `warm_start.ts`). */
  readonly warmStart?: boolean;
  /**
   * Why this refit ran cold with the full warmup: a warm-started attempt was discarded, none was
   * tried because the fit before it had divergent transitions, or a first run had divergent
   * transitions and this one adapted to a higher target acceptance (`refitDivergent`).
   */
  readonly warmStartRejected?: string;
  /**
   * Why the fit was run on from its own end: its first run's chains had not mixed (R̂, bulk
   * ESS); these are the continued run's draws, the first run's cost is in `setupEvaluations`.
   */
  readonly continuedAfter?: string;
}

/**
 * Resolves a fit's preconditioner: runs the Laplace mode search under `weighting` when asked.
 *
 * @param model The model.
 * @param weighting The weights of the fit.
 * @param choice `laplace`, `none` or a preconditioner.
 * @returns The preconditioner to sample with (null: none) and the setup to report.
 */
export function resolvePreconditioner(
  model: Model,
  weighting: Weighting,
  choice: FitOptions["precondition"] = "laplace",
): { preconditioner: Preconditioner | null; setup: FitSetup } {
  if (choice === "none") {
    return { preconditioner: null, setup: { precondition: "none", setupEvaluations: 0 } };
  }
  if (choice !== "laplace") {
    return { preconditioner: choice, setup: { precondition: choice.source, setupEvaluations: 0 } };
  }
  const laplace = laplacePreconditioner(
    (u, grad) => model.logDensity(u, grad, weighting),
    model.initialPoint(),
  );
  const setupEvaluations = laplace.evaluations;
  return {
    preconditioner: laplace.preconditioner,
    setup: laplace.preconditioner === null
      ? { precondition: "none", preconditionFailure: laplace.failure, setupEvaluations }
      : { precondition: "laplace", setupEvaluations },
  };
}

/** Posterior summary of one parameter on the constrained scale. */
export interface ParamSummary {
  readonly mean: number;
  readonly sd: number;
  readonly q5: number;
  readonly q95: number;
  readonly rhat: number;
  readonly essBulk: number;
  readonly essTail: number;
}

/** A fitted posterior: draws of θ and their diagnostics. */
export interface Fit {
  /** S × dim, row-major, constrained θ, chains stacked (chain 0's draws first). */
  readonly draws: Float64Array;
  /** Number of draws S = chains · drawsPerChain. */
  readonly S: number;
  readonly dim: number;
  readonly paramNames: readonly string[];
  readonly chains: number;
  readonly drawsPerChain: number;
  readonly summary: Record<string, ParamSummary>;
  /** Largest R̂ over parameters (NaN if any is NaN). */
  readonly rhatMax: number;
  /** Smallest bulk ESS over parameters (NaN if any is NaN). */
  readonly essBulkMin: number;
  readonly divergences: number;
  readonly treeDepthHits: number;
  /**
   * Whether R̂ > 1.01 or bulk ESS < 400 for some parameter, or either is NaN (SPEC §6), or any
   * post-warmup transition diverged (its draws may miss part of the posterior).
   */
  readonly flagged: boolean;
  /** Log-density evaluations: the chains' and the setup's (the Laplace mode search). */
  readonly gradientEvaluations: number;
  /** Adapted step size per chain. */
  readonly stepSizes: number[];
  /** Warmup iterations per chain. */
  readonly warmup: number;
  /** How the fit was set up: its preconditioner and what finding it cost. */
  readonly setup: FitSetup;
  /**
   * Each chain's last unconstrained position (chains × dim): where a warm-started refit begins.
   */
  readonly lastPositions: Float64Array;
}

/** SPEC §6 thresholds for flagging a fit. */
export const RHAT_THRESHOLD = 1.01;
/** SPEC §6: smallest acceptable bulk ESS. */
export const ESS_BULK_THRESHOLD = 400;

/** What the checks of a fit read: its worst R̂ and bulk ESS and its divergent transitions. */
export interface FitChecks {
  readonly rhatMax: number;
  readonly essBulkMin: number;
  readonly divergences: number;
}

/**
 * A final fit that failed its diagnostics (any divergence, R̂ > 1.01 or bulk ESS < 400): its
 * draws may not have explored the tails, so Δ, a maximum over them, and the ε resting on it may
 * be understated, and nothing is released from it. The message names what failed, with the
 * fit's figures (the owner's: on registered data analysts see only `data_rejected`).
 */
export class FitFlaggedError extends Error {
  override name = "FitFlaggedError";

  /** @param fit The flagged fit's checks. */
  constructor(fit: FitChecks) {
    const failed = [
      ...(fit.divergences > 0 ? [`${fit.divergences} divergent transitions`] : []),
      ...(!(fit.rhatMax <= RHAT_THRESHOLD)
        ? [`R̂ ${fit.rhatMax.toFixed(3)} > ${RHAT_THRESHOLD}`]
        : []),
      ...(!(fit.essBulkMin >= ESS_BULK_THRESHOLD)
        ? [`bulk ESS ${Math.floor(fit.essBulkMin)} < ${ESS_BULK_THRESHOLD}`]
        : []),
    ];
    super(
      `the final fit failed its diagnostics (${failed.join(", ")}), so its Δ and ε are not ` +
        "established and nothing was released",
    );
  }
}

/**
 * Samples the posterior of `model` under `weighting` with K NUTS chains and summarises it.
 *
 * @param model The model, bound to its data.
 * @param weighting Record weights α (null for all ones) and optional censoring.
 * @param options Seed, chains, warmup, draws and sampler settings.
 * @returns The constrained draws and their summary.
 *
 * @example A Poisson intercept model
 * ```ts
 * import assert from "node:assert/strict";
 * import { createModel } from "../models/mod.ts";
 * import { fitModel } from "./fit.ts";
 * const y = Float64Array.of(3, 5, 2, 4, 6, 3, 4, 5);
 * const x = new Float64Array(8).fill(1);
 * const model = createModel("poisson", { n: 8, k: 1, y, x, coefficientNames: ["intercept"] });
 * const fit = fitModel(model, { alpha: null }, { seed: 1, chains: 2, warmup: 200, draws: 200 });
 * assert.equal(fit.S, 400);
 * assert.ok(Math.abs(fit.summary.intercept.mean - Math.log(4)) < 0.3);
 * ```
 */
export function fitModel(model: Model, weighting: Weighting, options: FitOptions): Fit {
  const logDensity = (u: Float64Array, grad: Float64Array) => model.logDensity(u, grad, weighting);
  const { preconditioner, setup } = resolvePreconditioner(model, weighting, options.precondition);
  return summarizeFit(
    model,
    sample(logDensity, model.dim, {
      ...options,
      init: preconditioner?.mean ?? model.initialPoint(),
      metric: options.metric ?? model.metric,
      precondition: preconditioner,
      exact: model.exactCoordinates,
    }),
    setup,
    options.warmup ?? 1000,
  );
}

/**
 * The summary of one quantity's draws: mean, sd, 5% and 95% quantiles (type 7), R̂, bulk and
 * tail ESS.
 *
 * @param perChain Post-warmup draws per chain, all of equal length.
 * @returns The summary.
 */
export function summarizeChains(perChain: readonly Float64Array[]): ParamSummary {
  const S = perChain.reduce((total, chain) => total + chain.length, 0);
  const all = new Float64Array(S);
  let offset = 0;
  for (const chain of perChain) {
    all.set(chain, offset);
    offset += chain.length;
  }
  let sum = 0;
  for (let s = 0; s < S; s++) sum += all[s];
  const mean = sum / S;
  let squares = 0;
  for (let s = 0; s < S; s++) squares += (all[s] - mean) ** 2;
  all.sort(); // `quantile` then skips its own sort
  return {
    mean,
    sd: Math.sqrt(squares / (S - 1)),
    q5: quantile(all, 0.05),
    q95: quantile(all, 0.95),
    rhat: splitRhat(perChain),
    essBulk: essBulk(perChain),
    essTail: essTail(perChain),
  };
}

/**
 * Maps a sampler's unconstrained draws to θ and summarises each parameter.
 *
 * @param model The model whose posterior was sampled.
 * @param result The sampler's draws and diagnostics.
 * @param setup How the fit was set up (default: no preconditioner, nothing spent).
 * @param warmup Warmup iterations per chain, as reported.
 */
export function summarizeFit(
  model: Model,
  result: SampleResult,
  setup: FitSetup = { precondition: "none", setupEvaluations: 0 },
  warmup = NaN,
): Fit {
  const dim = model.dim;
  const { chains, drawsPerChain } = result;
  const S = chains * drawsPerChain;
  const lastPositions = new Float64Array(chains * dim);
  for (let c = 0; c < chains; c++) {
    const last = ((c + 1) * drawsPerChain - 1) * dim;
    lastPositions.set(result.draws.subarray(last, last + dim), c * dim);
  }

  const draws = new Float64Array(S * dim);
  for (let s = 0; s < S; s++) {
    model.constrain(
      result.draws.subarray(s * dim, (s + 1) * dim),
      draws.subarray(s * dim, (s + 1) * dim),
    );
  }

  const summary: Record<string, ParamSummary> = {};
  let rhatMax = -Infinity;
  let essBulkMin = Infinity;
  model.paramNames.forEach((name, j) => {
    const perChain = Array.from({ length: chains }, (_, c) => {
      const x = new Float64Array(drawsPerChain);
      for (let s = 0; s < drawsPerChain; s++) x[s] = draws[(c * drawsPerChain + s) * dim + j];
      return x;
    });
    const entry = summarizeChains(perChain);
    summary[name] = entry;
    rhatMax = Math.max(rhatMax, entry.rhat); // NaN propagates
    essBulkMin = Math.min(essBulkMin, entry.essBulk);
  });

  return {
    draws,
    S,
    dim,
    paramNames: model.paramNames,
    chains,
    drawsPerChain,
    summary,
    rhatMax,
    essBulkMin,
    divergences: result.divergences,
    treeDepthHits: result.treeDepthHits,
    flagged: !(rhatMax <= RHAT_THRESHOLD) || !(essBulkMin >= ESS_BULK_THRESHOLD) ||
      result.divergences > 0,
    gradientEvaluations: result.gradientEvaluations + setup.setupEvaluations,
    stepSizes: result.stepSizes,
    warmup,
    setup,
    lastPositions,
  };
}
