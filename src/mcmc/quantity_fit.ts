/**
 * The `Fit` of a sampler with no tuning and no gradient (the latent class Gibbs sampler, the
 * Bayesian network's exact draws): its checks (R̂, bulk ESS) are computed on label-free
 * quantities traced per draw, chain by chain; it has no divergences, tree depths, step sizes or
 * preconditioner.
 *
 * @module
 */
import {
  ESS_BULK_THRESHOLD,
  type Fit,
  type ParamSummary,
  RHAT_THRESHOLD,
  summarizeChains,
} from "./fit.ts";

/** The fields of the fit its sampler gives as they are. */
type Given =
  | "draws"
  | "chains"
  | "drawsPerChain"
  | "dim"
  | "paramNames"
  | "gradientEvaluations"
  | "warmup"
  | "lastPositions";

/** The fit's draws and counts, and the quantities its checks read. */
export interface QuantityFitOptions extends Pick<Fit, Given> {
  /** The checked quantities' names. */
  readonly quantityNames: readonly string[];
  /** Each quantity's S values, chain by chain. */
  readonly quantities: readonly Float64Array[];
  /** Whether quantity q (with its summary) stays out of the checks (default: none does). */
  readonly unchecked?: (q: number, entry: ParamSummary) => boolean;
}

/**
 * Summarises the quantities and builds the fit (see the module).
 *
 * @param options The draws, quantities and counts.
 * @returns The fit; flagged when R̂ max or bulk ESS min of the checked quantities fails.
 */
export function quantityFit(options: QuantityFitOptions): Fit {
  const { draws, chains, drawsPerChain, quantities } = options;
  const summary: Record<string, ParamSummary> = {};
  let rhatMax = -Infinity;
  let essBulkMin = Infinity;
  options.quantityNames.forEach((name, q) => {
    const perChain = Array.from(
      { length: chains },
      (_, c) => quantities[q].subarray(c * drawsPerChain, (c + 1) * drawsPerChain),
    );
    const entry = summarizeChains(perChain);
    summary[name] = entry;
    if (options.unchecked?.(q, entry)) return;
    rhatMax = Math.max(rhatMax, entry.rhat);
    essBulkMin = Math.min(essBulkMin, entry.essBulk);
  });
  return {
    draws,
    S: chains * drawsPerChain,
    dim: options.dim,
    paramNames: options.paramNames,
    chains,
    drawsPerChain,
    summary,
    rhatMax,
    essBulkMin,
    divergences: 0,
    treeDepthHits: 0,
    flagged: !(rhatMax <= RHAT_THRESHOLD) || !(essBulkMin >= ESS_BULK_THRESHOLD),
    gradientEvaluations: options.gradientEvaluations,
    stepSizes: [],
    warmup: options.warmup,
    setup: { precondition: "none", setupEvaluations: 0 },
    lastPositions: options.lastPositions,
  };
}
