/**
 * Exact draws of the Bayesian network's pseudo posterior π_α(G, θ | x) (`src/models/bayes_net.ts`):
 *
 * 1. for each column t, the log posterior of each candidate parent set g,
 *    log p(G_t = g | x) = Σ_c [log Γ(L_t a) − log Γ(L_t a + W_{t,g,c})
 *                              + Σ_l (log Γ(a + w_{t,g,c,l}) − log Γ(a))] + const,
 *    with the α-weighted counts w and W_c = Σ_l w_{c,l} (uniform prior over the candidates);
 * 2. per draw, each G_t from those probabilities, then each table row of G_t from
 *    Dirichlet(a + w_{t,G_t,c,·}) (`sampleLogDirichlet`).
 *
 * Independent draws on `chains` streams of the seed; the fit's checks (R̂, bulk ESS) are computed
 * on the label-free quantities Σ_i u_i and each column's parent count, as any fit's, so an exact
 * fit is held to the same rule (a fit of too few draws is flagged). There is no warmup and no
 * thinning; `gradientEvaluations` counts draws.
 *
 * @module
 */
import { type BayesNetModel } from "../models/bayes_net.ts";
import { type StopFlag, throwIfStopRequested } from "../data/worker_stop.ts";
import { checkInteger } from "../random/arguments.ts";
import { sampleLogDirichlet } from "../random/distributions.ts";
import { Rng } from "../random/rng.ts";
import { lgamma } from "../stats/special.ts";
import type { Fit } from "./fit.ts";
import { TERM_SUM } from "./latent_class_gibbs.ts";
import { quantityFit } from "./quantity_fit.ts";

/** Settings of an exact fit. */
export interface BayesNetSampleOptions {
  readonly seed: number;
  /** Independent streams the draws are split over (the checks compare them). */
  readonly chains: number;
  /** Draws per stream. */
  readonly draws: number;
  /** Progress: draws done of the total, about a hundred times per fit. */
  readonly onDraw?: (done: number, total: number) => void;
  /** Read once a draw: when set (the job was stopped), the fit throws (`worker_stop.ts`). */
  readonly stop?: StopFlag;
}

/**
 * log p(G_t = g | x) up to a constant: the Dirichlet–multinomial marginal of candidate g's
 * α-weighted counts (step 1 of the module doc).
 *
 * @param counts The weighted counts, configs × levels, row-major.
 * @param levels L_t.
 * @param dirichlet a.
 */
export function logMarginal(counts: Float64Array, levels: number, dirichlet: number): number {
  const configs = counts.length / levels;
  const rowPrior = lgamma(levels * dirichlet);
  const cellPrior = lgamma(dirichlet);
  let sum = 0;
  for (let c = 0; c < configs; c++) {
    let total = 0;
    for (let l = 0; l < levels; l++) {
      const w = counts[c * levels + l];
      if (w === 0) continue;
      total += w;
      sum += lgamma(dirichlet + w) - cellPrior;
    }
    if (total > 0) sum += rowPrior - lgamma(levels * dirichlet + total);
  }
  return sum;
}

/**
 * Draws S = chains × draws independent (G, θ) from the α-weighted pseudo posterior.
 *
 * @param model The network bound to the file.
 * @param alpha α_i ∈ [0, 1] per record (null: all 1).
 * @param options Seed, streams and draws.
 * @returns A `Fit` whose draws are self-describing (`BayesNetModel`'s layout), padded to the
 *   longest.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BayesNetModel } from "../models/bayes_net.ts";
 * import { sampleBayesNet } from "./bayes_net_exact.ts";
 * const a = Int32Array.of(0, 1, 1, 0, 1, 1), b = Int32Array.of(0, 1, 1, 0, 1, 0);
 * const file = { n: 6, columns: [{ name: "a", levels: 2, codes: a }, { name: "b", levels: 2, codes: b }] };
 * const fit = sampleBayesNet(new BayesNetModel(file), null, { seed: 1, chains: 2, draws: 300 });
 * assert.equal(fit.S, 600);
 * assert.ok(!fit.flagged);
 * ```
 */
export function sampleBayesNet(
  model: BayesNetModel,
  alpha: Float64Array | null,
  options: BayesNetSampleOptions,
): Fit {
  const { seed, chains, draws } = options;
  checkInteger("chains", chains, 1);
  checkInteger("draws", draws, 2);
  const T = model.order.length;
  const a = model.prior.dirichlet;
  const counts = model.candidates.map((sets, t) =>
    sets.map((_, g) => model.weightedCounts(t, g, alpha))
  );
  const cumulative = counts.map((sets, t) => {
    const logPost = sets.map((w) => logMarginal(w, model.levelsAt(t), a));
    const max = Math.max(...logPost);
    const cdf = new Float64Array(logPost.length);
    let total = 0;
    logPost.forEach((v, g) => cdf[g] = total += Math.exp(v - max));
    return cdf.map((v) => v / total);
  });
  const S = chains * draws;
  const root = new Rng(seed);
  const streams = Array.from({ length: chains }, (_, c) => root.split(c));
  const structures = new Int32Array(S * T);
  for (let s = 0; s < S; s++) {
    const rng = streams[Math.floor(s / draws)];
    for (let t = 0; t < T; t++) {
      const u = rng.uniform();
      const cdf = cumulative[t];
      let g = 0;
      while (g < cdf.length - 1 && u > cdf[g]) g++;
      structures[s * T + t] = g;
    }
  }
  let dim = T;
  for (let s = 0; s < S; s++) {
    let length = T;
    for (let t = 0; t < T; t++) length += model.candidates[t][structures[s * T + t]].cells;
    dim = Math.max(dim, length);
  }
  const out = new Float64Array(S * dim);
  const quantityNames = [
    TERM_SUM,
    ...model.order.map((j) => `parents:${model.file.columns[j].name}`),
  ];
  const quantities = quantityNames.map(() => new Float64Array(S));
  const ell = new Float64Array(model.n);
  const every = Math.max(1, Math.floor(S / 100));
  const { stop } = options;
  for (let s = 0; s < S; s++) {
    throwIfStopRequested(stop);
    const rng = streams[Math.floor(s / draws)];
    const theta = out.subarray(s * dim, (s + 1) * dim);
    let offset = T;
    for (let t = 0; t < T; t++) {
      const g = structures[s * T + t];
      theta[t] = g;
      const levels = model.levelsAt(t);
      const w = counts[t][g];
      const shapes = new Float64Array(levels);
      const row = new Float64Array(levels);
      for (let c = 0; c < w.length / levels; c++) {
        for (let l = 0; l < levels; l++) shapes[l] = a + w[c * levels + l];
        theta.set(sampleLogDirichlet(rng, shapes, row), offset + c * levels);
      }
      offset += w.length;
      quantities[1 + t][s] = model.candidates[t][g].parents.length;
    }
    model.logLik(theta, ell);
    let termSum = 0;
    for (let i = 0; i < model.n; i++) termSum += (alpha === null ? 1 : alpha[i]) * ell[i];
    quantities[0][s] = termSum;
    if (options.onDraw !== undefined && ((s + 1) % every === 0 || s + 1 === S)) {
      options.onDraw(s + 1, S);
    }
  }
  return quantityFit({
    draws: out,
    chains,
    drawsPerChain: draws,
    dim,
    paramNames: model.paramNames(dim),
    quantityNames,
    quantities,
    // A column whose parent set never varies has a constant count: nothing to check.
    unchecked: (q, entry) => q > 0 && entry.sd === 0,
    gradientEvaluations: S,
    warmup: 0,
    lastPositions: new Float64Array(0),
  });
}
