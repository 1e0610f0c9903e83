/**
 * Several NUTS chains with Stan-style warmup (SPEC §6), run one after another.
 *
 * Chain c draws every random number from `new Rng(seed).split(c)`: its jittered start, the
 * step-size heuristic, momenta and tree building. The same seed therefore gives the same draws,
 * and a chain's draws do not depend on how many other chains run.
 *
 * Starting points: Stan starts unconstrained coordinates at uniform(−2, 2) when no initial
 * values are given and exactly at them when they are. Here the model supplies a reasonable
 * point, so chain c starts at init + uniform(−r, r) per coordinate with r = `initJitter`
 * (default 1): dispersed enough for R̂ to see chains that disagree, close enough that
 * regression coefficients of unscaled covariates do not overflow. A start whose log density
 * or gradient is not finite is redrawn, up to 100 times (as Stan retries random inits), the
 * radius halving every 10 attempts so that a finite `init` is reached in the end.
 *
 * Exact coordinates: a model may name coordinates of u that are independent of the others under
 * the target with a known law (`models/exact_coordinates.ts`). NUTS then runs on the other
 * coordinates only, with the exact ones held at `init`'s values (their independence makes the
 * gradient of the rest the same wherever they are held), and each kept draw gets an exact,
 * independent draw of them from the chain's stream `split(chain).split(0)`. The joint law of a
 * draw is the target's; warmup, the preconditioner and a warm start see the NUTS coordinates.
 *
 * @module
 */
import type { ExactCoordinates } from "../models/exact_coordinates.ts";
import { Rng } from "../random/rng.ts";
import { cholesky } from "../stats/cholesky.ts";
import { DEFAULT_MAX_TREE_DEPTH, type LogDensityFn, nutsStep } from "./nuts.ts";
import type { NutsState } from "./nuts.ts";
import { warmupFinal, warmupInit, warmupParams, warmupUpdate } from "./warmup.ts";
import type { WarmupOptions } from "./warmup.ts";
import { checkMetricKind, type MetricKind } from "./metric.ts";
import { preconditioned, type Preconditioner, toLatent, toPosition } from "./precondition.ts";
import { checkInteger } from "../random/arguments.ts";

/** Options of `sample`; Stan's defaults where Stan has one. */
export interface SampleOptions {
  /** Seed of every chain's stream (non-negative safe integer). */
  readonly seed: number;
  /** Unconstrained starting point the chains jitter around. */
  readonly init: Float64Array;
  /** Number of chains K (4). */
  readonly chains?: number;
  /** Warmup iterations per chain (1000). */
  readonly warmup?: number;
  /** Kept draws per chain (1000). */
  readonly draws?: number;
  /**
   * Iterations per kept draw (1): each chain runs draws·thin post-warmup iterations and keeps
   * every thin-th (a longer chain with the same number of draws).
   */
  readonly thin?: number;
  /** Half-width r of the uniform jitter around `init` (1; 0 starts every chain at `init`). */
  readonly initJitter?: number;
  /** NUTS maximum tree depth (10). */
  readonly maxTreeDepth?: number;
  /**
   * The Euclidean metric warmup adapts and sampling uses: `diag` (Stan's `diag_e`, the
   * default) or `dense` (`dense_e`, a full covariance; for strongly correlated posteriors).
   */
  readonly metric?: MetricKind;
  /** Warmup schedule and dual-averaging constants (its `metric` is replaced by `metric`). */
  readonly adaptation?: WarmupOptions;
  /**
   * Sample z with u = μ + L·z (see `precondition.ts`); `init`, the jitter (applied to z) and
   * `start` are mapped accordingly, and the draws are returned as u. Null: sample u directly.
   */
  readonly precondition?: Preconditioner | null;
  /** A warm start: each chain starts exactly at its position, with its step size. */
  readonly start?: ChainStart | null;
  /** Called with (iterations done, total iterations) over all chains, about 100 times. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Coordinates drawn exactly instead of by NUTS (see the module doc); absent: none. */
  readonly exact?: ExactCoordinates;
}

/** Where each chain starts and with which step size (a warm start from an earlier fit). */
export interface ChainStart {
  /** chains × dim, unconstrained u, one starting point per chain. */
  readonly positions: Float64Array;
  /** The step size each chain's warmup starts from. */
  readonly stepSizes: readonly number[];
}

/** What one chain did. */
export interface ChainInfo {
  /** Adapted step size ε̄. */
  readonly stepSize: number;
  /**
   * Diagonal of the adapted inverse metric M⁻¹ (for `dense`, the adapted variances), of z when
   * the chain was preconditioned.
   */
  readonly inverseMassDiag: number[];
  /**
   * Kind of the adapted metric (absent means `diag`). A `dense` fit reports `diag` when the
   * last window's covariance estimate had no Cholesky factor (see `mass_matrix.ts`).
   */
  readonly metric?: MetricKind;
  /** Divergent transitions after warmup. */
  readonly divergences: number;
  /** Divergent transitions during warmup. */
  readonly warmupDivergences: number;
  /** Post-warmup transitions that reached the maximum tree depth. */
  readonly treeDepthHits: number;
  /** Mean acceptance statistic after warmup. */
  readonly meanAcceptance: number;
  /** Log-density (and gradient) evaluations of the chain, warmup and start included. */
  readonly gradientEvaluations: number;
}

/** The draws of every chain with the sampler's diagnostics. */
export interface SampleResult {
  /** chains·drawsPerChain × dim, chain-major then draw then coordinate, unconstrained. */
  readonly draws: Float64Array;
  readonly dim: number;
  readonly chains: number;
  readonly drawsPerChain: number;
  /** Adapted step size per chain. */
  readonly stepSizes: number[];
  /** Post-warmup divergences over all chains. */
  readonly divergences: number;
  /** Post-warmup maximum-tree-depth hits over all chains. */
  readonly treeDepthHits: number;
  /** Log-density evaluations over all chains. */
  readonly gradientEvaluations: number;
  readonly chainInfo: ChainInfo[];
}

/** Stan's number of attempts at a random starting point. */
const MAX_INIT_ATTEMPTS = 100;

function startingState(
  rng: Rng,
  init: Float64Array,
  jitter: number,
  logDensity: LogDensityFn,
): NutsState {
  const dim = init.length;
  const u = new Float64Array(dim);
  const g = new Float64Array(dim);
  const attempts = jitter === 0 ? 1 : MAX_INIT_ATTEMPTS;
  let lp = NaN;
  for (let attempt = 0; attempt < attempts; attempt++) {
    // The radius halves every 10 failed attempts, so a finite init is reached in the end.
    const radius = jitter * 0.5 ** Math.floor(attempt / 10);
    for (let j = 0; j < dim; j++) u[j] = init[j] + radius * (2 * rng.uniform() - 1);
    lp = logDensity(u, g);
    if (Number.isFinite(lp) && g.every(Number.isFinite)) {
      return { position: u, logDensity: lp, gradient: g };
    }
  }
  throw new RangeError(
    `Cannot start a chain as the log density or its gradient is not finite at ${attempts} ` +
      `starting point(s) around init=[${[...init].join(", ")}]: last logDensity=${lp}`,
  );
}

/** One chain's post-warmup draws (drawsPerChain × dim, unconstrained) and what it did. */
export interface ChainResult {
  readonly draws: Float64Array;
  readonly info: ChainInfo;
}

/** Settings of `sample` with every default filled in and checked. */
export type ResolvedSampleOptions = Required<Omit<SampleOptions, "onProgress" | "exact">>;

/**
 * Fills in `sample`'s defaults and checks every setting.
 *
 * @param dim Dimension of the target.
 * @param options The caller's options.
 */
export function resolveSampleOptions(dim: number, options: SampleOptions): ResolvedSampleOptions {
  const {
    seed,
    init,
    chains = 4,
    warmup = 1000,
    draws = 1000,
    thin = 1,
    initJitter = 1,
    maxTreeDepth = DEFAULT_MAX_TREE_DEPTH,
    metric = "diag",
    adaptation = {},
    precondition = null,
    start = null,
  } = options;
  checkInteger("dim", dim, 1);
  checkInteger("chains", chains, 1);
  checkInteger("warmup", warmup, 0);
  checkInteger("draws", draws, 1);
  checkInteger("thin", thin, 1);
  checkInteger("maxTreeDepth", maxTreeDepth, 1);
  if (init.length !== dim) {
    throw new RangeError(`Invalid init: length must equal dim=${dim}: length=${init.length}`);
  }
  if (!(initJitter >= 0 && Number.isFinite(initJitter))) {
    throw new RangeError(`Invalid initJitter: must be finite and ≥ 0: initJitter=${initJitter}`);
  }
  checkMetricKind(metric);
  if (precondition !== null && precondition.mean.length !== dim) {
    throw new RangeError(`Invalid precondition: its dimension must equal dim=${dim}`);
  }
  if (
    start !== null &&
    (start.positions.length !== chains * dim || start.stepSizes.length !== chains ||
      !start.stepSizes.every((e) => e > 0 && Number.isFinite(e)))
  ) {
    throw new RangeError(
      `Invalid start: needs ${chains} positions of length ${dim} and ${chains} positive step sizes`,
    );
  }
  return {
    seed,
    init,
    chains,
    warmup,
    draws,
    thin,
    initJitter,
    maxTreeDepth,
    metric,
    adaptation,
    precondition,
    start,
  };
}

/**
 * Runs chain `chain` (warmup, then draws) on its own stream `new Rng(seed).split(chain)`.
 *
 * @param logDensity The target on the unconstrained scale.
 * @param chain The chain's index, which picks its random stream.
 * @param options Resolved settings (see {@linkcode resolveSampleOptions}).
 * @param tick Called once per iteration (warmup and draws).
 * @param exact Coordinates drawn exactly instead of by NUTS (see the module doc), or null.
 */
export function runChain(
  logDensity: LogDensityFn,
  chain: number,
  options: ResolvedSampleOptions,
  tick: () => void = () => {},
  exact: ExactCoordinates | null = null,
): ChainResult {
  if (exact === null || exact.indices.length === 0) {
    return runNutsChain(logDensity, chain, options, tick);
  }
  const dim = options.init.length;
  const held = Float64Array.from(options.init);
  const isExact = new Uint8Array(dim);
  for (const j of exact.indices) isExact[j] = 1;
  const free = Array.from({ length: dim }, (_, j) => j).filter((j) => isExact[j] === 0);
  const pick = (u: Float64Array) => Float64Array.from(free, (j) => u[j]);
  const u = new Float64Array(dim);
  const grad = new Float64Array(dim);
  const reduced: LogDensityFn = (z, g) => {
    u.set(held);
    for (let j = 0; j < free.length; j++) u[free[j]] = z[j];
    const lp = logDensity(u, grad);
    for (let j = 0; j < free.length; j++) g[j] = grad[free[j]];
    return lp;
  };
  const { start, precondition } = options;
  const result = runNutsChain(reduced, chain, {
    ...options,
    init: pick(options.init),
    precondition: precondition === null ? null : marginalPreconditioner(precondition, free),
    start: start === null ? null : {
      positions: Float64Array.from(
        { length: options.chains * free.length },
        (_, q) => start.positions[Math.floor(q / free.length) * dim + free[q % free.length]],
      ),
      stepSizes: start.stepSizes,
    },
  }, tick);
  const rng = new Rng(options.seed).split(chain).split(0);
  const drawn = new Float64Array(exact.indices.length);
  const draws = new Float64Array(options.draws * dim);
  for (let s = 0; s < options.draws; s++) {
    const row = draws.subarray(s * dim, (s + 1) * dim);
    for (let j = 0; j < free.length; j++) row[free[j]] = result.draws[s * free.length + j];
    exact.draw(rng, drawn);
    exact.indices.forEach((index, j) => (row[index] = drawn[j]));
  }
  return { draws, info: result.info };
}

/**
 * The preconditioner of the marginal of u's coordinates `free`: its mean's entries and the
 * Cholesky factor of the covariance block Σ_FF of Σ = LLᵀ (null if that block has none).
 */
function marginalPreconditioner(p: Preconditioner, free: readonly number[]): Preconditioner | null {
  const dim = p.mean.length;
  const k = free.length;
  const block = new Float64Array(k * k);
  for (let a = 0; a < k; a++) {
    for (let b = 0; b <= a; b++) {
      let sum = 0;
      for (let j = 0; j < dim; j++) {
        sum += p.factor[free[a] * dim + j] * p.factor[free[b] * dim + j];
      }
      block[a * k + b] = sum;
      block[b * k + a] = sum;
    }
  }
  const factor = cholesky(block, k);
  return factor === null
    ? null
    : { mean: Float64Array.from(free, (j) => p.mean[j]), factor, source: p.source };
}

/** {@linkcode runChain} without exact coordinates: NUTS on every coordinate. */
function runNutsChain(
  logDensity: LogDensityFn,
  chain: number,
  options: ResolvedSampleOptions,
  tick: () => void,
): ChainResult {
  const { seed, init, warmup, draws, thin, initJitter, maxTreeDepth, metric, adaptation } = options;
  const { precondition, start } = options;
  const dim = init.length;
  const rng = new Rng(seed).split(chain);
  const out = new Float64Array(draws * dim);
  let evaluations = 0;
  const counted: LogDensityFn = (u, g) => {
    evaluations++;
    return logDensity(u, g);
  };
  const target = precondition === null ? counted : preconditioned(counted, precondition);
  const latent = (u: Float64Array) =>
    precondition === null ? u : toLatent(precondition, u, new Float64Array(dim));

  let state = start === null ? startingState(rng, latent(init), initJitter, target) : startingState(
    rng,
    latent(start.positions.subarray(chain * dim, (chain + 1) * dim)),
    0,
    target,
  );
  const initialStepSize = start === null ? adaptation.initialStepSize : start.stepSizes[chain];
  const adapt = warmupInit(rng, state, warmup, target, { ...adaptation, initialStepSize, metric });
  let warmupDivergences = 0;
  for (let i = 0; i < warmup; i++) {
    const step = nutsStep(rng, state, warmupParams(adapt, maxTreeDepth), target);
    state = step.state;
    if (step.info.divergent) warmupDivergences++;
    warmupUpdate(adapt, rng, state, step.info, target);
    tick();
  }

  const params = warmupFinal(adapt, maxTreeDepth);
  let divergences = 0;
  let treeDepthHits = 0;
  let acceptance = 0;
  for (let t = 0; t < draws * thin; t++) {
    const step = nutsStep(rng, state, params, target);
    state = step.state;
    if ((t + 1) % thin === 0) {
      const s = (t + 1) / thin - 1;
      const row = out.subarray(s * dim, (s + 1) * dim);
      if (precondition === null) row.set(state.position);
      else toPosition(precondition, state.position, row);
    }
    if (step.info.divergent) divergences++;
    if (step.info.hitMaxDepth) treeDepthHits++;
    acceptance += step.info.acceptanceRate;
    tick();
  }
  return {
    draws: out,
    info: {
      stepSize: params.stepSize,
      inverseMassDiag: [...adapt.metric.inverseDiagonal()],
      metric: adapt.metric.kind,
      divergences,
      warmupDivergences,
      treeDepthHits,
      meanAcceptance: acceptance / (draws * thin),
      gradientEvaluations: evaluations,
    },
  };
}

/**
 * Stacks per-chain results (in chain order) into one {@linkcode SampleResult}.
 *
 * @param chains The chains' results, chain 0 first.
 * @param dim Dimension of the target.
 */
export function combineChains(chains: readonly ChainResult[], dim: number): SampleResult {
  const drawsPerChain = chains[0].draws.length / dim;
  const draws = new Float64Array(chains.length * drawsPerChain * dim);
  chains.forEach((chain, c) => draws.set(chain.draws, c * drawsPerChain * dim));
  const chainInfo = chains.map((chain) => chain.info);
  return {
    draws,
    dim,
    chains: chains.length,
    drawsPerChain,
    stepSizes: chainInfo.map((info) => info.stepSize),
    divergences: chainInfo.reduce((sum, info) => sum + info.divergences, 0),
    treeDepthHits: chainInfo.reduce((sum, info) => sum + info.treeDepthHits, 0),
    gradientEvaluations: chainInfo.reduce((sum, info) => sum + info.gradientEvaluations, 0),
    chainInfo,
  };
}

/** A progress counter over `total` iterations that calls `onProgress` about 100 times. */
export function progressCounter(
  total: number,
  onProgress?: (done: number, total: number) => void,
): () => void {
  const every = Math.max(1, Math.ceil(total / 100));
  let done = 0;
  return () => {
    done++;
    if (onProgress !== undefined && (done % every === 0 || done === total)) {
      onProgress(done, total);
    }
  };
}

/**
 * Runs K NUTS chains with Stan's windowed warmup, one after another, and returns the
 * post-warmup draws.
 *
 * @param logDensity The target on the unconstrained scale.
 * @param dim Its dimension.
 * @param options Seed, starting point, chains, warmup, draws and sampler settings.
 * @returns The draws and diagnostics.
 *
 * @example A standard normal
 * ```ts
 * import assert from "node:assert/strict";
 * import { sample } from "./sample.ts";
 * const f = (u: Float64Array, g: Float64Array) => ((g[0] = -u[0]), -0.5 * u[0] * u[0]);
 * const r = sample(f, 1, { seed: 1, init: Float64Array.of(0), chains: 2, warmup: 200, draws: 200 });
 * assert.equal(r.draws.length, 400);
 * assert.equal(r.divergences, 0);
 * ```
 */
export function sample(
  logDensity: LogDensityFn,
  dim: number,
  options: SampleOptions,
): SampleResult {
  const resolved = resolveSampleOptions(dim, options);
  const tick = progressCounter(
    resolved.chains * (resolved.warmup + resolved.draws * resolved.thin),
    options.onProgress,
  );
  const chains = Array.from(
    { length: resolved.chains },
    (_, c) => runChain(logDensity, c, resolved, tick, options.exact ?? null),
  );
  return combineChains(chains, dim);
}
