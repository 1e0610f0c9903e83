/**
 * Stan's windowed warmup for NUTS with a diagonal or dense metric (`windowed_adaptation.hpp`,
 * `var_adaptation.hpp`, `covar_adaptation.hpp`, `adapt_diag_e_nuts.hpp`,
 * `adapt_dense_e_nuts.hpp`, `services/util/run_adaptive_sampler.hpp`).
 *
 * Start: M⁻¹ = I, ε = 1, dual averaging with μ = log(10·1), then the initial step-size
 * heuristic. Every warmup iteration: one NUTS transition, a dual-averaging update of ε with
 * its acceptance statistic, and, inside an adaptation window, the new position joins a
 * Welford variance (diag) or covariance (dense) estimate. Windows: an initial buffer (75
 * iterations, step size only), then windows of 25, 50, 100, … iterations, the last one stretched
 * to the start of the terminal buffer (50 iterations, step size only). At the end of each window
 * M⁻¹ becomes the regularised estimate (n/(n+5))·S + 10⁻³·5/(n+5)·I (S the window's sample
 * variances or covariance; see `mass_matrix.ts` for the dense fallback), the heuristic
 * re-initialises ε, and dual averaging restarts with μ = log(10·ε). After warmup ε is the
 * dual-averaged ε̄.
 *
 * Short warmups scale as Stan's do: with fewer than 20 iterations only ε adapts; when
 * init_buffer + base_window + term_buffer exceeds the warmup, the buffers become 15% and 10% of
 * it (rounded down) and one window fills the rest.
 *
 * The kernel (`nuts.ts`) never sees this module: it only receives the parameters.
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import type { LogDensityFn, NutsInfo, NutsParams, NutsState } from "./nuts.ts";
import { type MetricEstimator, metricEstimator } from "./mass_matrix.ts";
import { checkMetricKind, type Metric, type MetricKind, unitMetric } from "./metric.ts";
import {
  dualAveragingFinal,
  dualAveragingInit,
  type DualAveragingOptions,
  type DualAveragingState,
  dualAveragingUpdate,
  initStepSize,
} from "./step_size.ts";
import { checkInteger } from "../random/arguments.ts";

/** Warmup settings; Stan's defaults. */
export interface WarmupOptions extends DualAveragingOptions {
  /** Iterations before the first metric window (75). */
  readonly initBuffer?: number;
  /** Iterations after the last metric window (50). */
  readonly termBuffer?: number;
  /** Length of the first metric window; each next one doubles (25). */
  readonly baseWindow?: number;
  /** ε before the heuristic (1). */
  readonly initialStepSize?: number;
  /** The metric to adapt: `diag` (Stan's `diag_e`, the default) or `dense` (`dense_e`). */
  readonly metric?: MetricKind;
}

/** The warmup's state (mutated by `warmupUpdate`). */
export interface WarmupState {
  readonly numWarmup: number;
  /** Buffers and first window after scaling for short warmups. */
  readonly initBuffer: number;
  readonly termBuffer: number;
  readonly baseWindow: number;
  /** False when the warmup is under 20 iterations: only ε adapts. */
  readonly adaptMetric: boolean;
  readonly dualAveragingOptions: DualAveragingOptions;
  /** Warmup iterations seen so far. */
  iteration: number;
  windowSize: number;
  /** Iteration index at which the current metric window ends. */
  nextWindowEnd: number;
  stepSize: number;
  /** The current metric: the last window's estimate, the unit metric before the first. */
  metric: Metric;
  dualAveraging: DualAveragingState;
  /** The metric estimate over the current window. */
  readonly estimator: MetricEstimator;
}

/**
 * Starts warmup at `state`: unit metric, ε from Stan's heuristic starting at
 * `initialStepSize`, dual averaging with μ = log(10·initialStepSize), and the window schedule.
 *
 * @param rng The chain's random stream (used by the step-size heuristic).
 * @param state The chain's starting state.
 * @param numWarmup Number of warmup iterations.
 * @param logDensity The target.
 * @param options Buffers, first window, dual-averaging constants and the metric kind.
 * @returns The warmup state.
 *
 * @example Stan's default schedule at 1000 warmup iterations
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "../random/rng.ts";
 * import { nutsInit } from "./nuts.ts";
 * import { warmupInit } from "./warmup.ts";
 * const f = (u: Float64Array, g: Float64Array) => ((g[0] = -u[0]), -0.5 * u[0] * u[0]);
 * const w = warmupInit(new Rng(1), nutsInit(Float64Array.of(0), f), 1000, f);
 * assert.deepEqual([w.initBuffer, w.baseWindow, w.termBuffer, w.nextWindowEnd], [75, 25, 50, 99]);
 * ```
 */
export function warmupInit(
  rng: Rng,
  state: NutsState,
  numWarmup: number,
  logDensity: LogDensityFn,
  options: WarmupOptions = {},
): WarmupState {
  const {
    initBuffer = 75,
    termBuffer = 50,
    baseWindow = 25,
    initialStepSize = 1,
    metric: kind = "diag",
  } = options;
  checkMetricKind(kind);
  checkInteger("numWarmup", numWarmup, 0);
  checkInteger("initBuffer", initBuffer, 0);
  checkInteger("termBuffer", termBuffer, 0);
  checkInteger("baseWindow", baseWindow, 0);
  if (baseWindow < 1) {
    throw new RangeError(`Invalid baseWindow: must be ≥ 1: baseWindow=${baseWindow}`);
  }
  const dim = state.position.length;
  const adaptMetric = numWarmup >= 20;
  let init = initBuffer;
  let term = termBuffer;
  let base = baseWindow;
  if (adaptMetric && initBuffer + baseWindow + termBuffer > numWarmup) {
    init = Math.floor(0.15 * numWarmup);
    term = Math.floor(0.1 * numWarmup);
    base = numWarmup - (init + term);
  }
  const dualAveragingOptions: DualAveragingOptions = {
    targetAcceptance: options.targetAcceptance,
    gamma: options.gamma,
    kappa: options.kappa,
    t0: options.t0,
  };
  const metric = unitMetric(kind, dim);
  const dualAveraging = dualAveragingInit(initialStepSize, dualAveragingOptions);
  const stepSize = initStepSize(rng, state, initialStepSize, metric, logDensity);
  return {
    numWarmup,
    initBuffer: init,
    termBuffer: term,
    baseWindow: base,
    adaptMetric,
    dualAveragingOptions,
    iteration: 0,
    windowSize: base,
    nextWindowEnd: init + base - 1,
    stepSize,
    metric,
    dualAveraging,
    estimator: metricEstimator(kind, dim),
  };
}

/**
 * The kernel parameters for the next warmup transition.
 *
 * @param warmup The warmup state.
 * @param maxTreeDepth Passed through to the kernel.
 * @returns ε and the current metric.
 */
export function warmupParams(warmup: WarmupState, maxTreeDepth?: number): NutsParams {
  return { stepSize: warmup.stepSize, metric: warmup.metric, maxTreeDepth };
}

/** Stan's `compute_next_window`: doubles the window, stretching it if the next would not fit. */
function computeNextWindow(w: WarmupState): void {
  const lastEnd = w.numWarmup - w.termBuffer - 1;
  if (w.nextWindowEnd === lastEnd) return;
  w.windowSize *= 2;
  w.nextWindowEnd = w.iteration + w.windowSize;
  if (w.nextWindowEnd !== lastEnd) {
    const nextWindowBoundary = w.nextWindowEnd + 2 * w.windowSize;
    if (nextWindowBoundary >= w.numWarmup - w.termBuffer) w.nextWindowEnd = lastEnd;
  }
}

/**
 * Adapts after one warmup transition (Stan's `adapt_diag_e_nuts::transition` and
 * `adapt_dense_e_nuts::transition`): updates ε by dual averaging; inside a metric window adds
 * the position to the variance (covariance) estimate; at a window's end sets M⁻¹ to the
 * regularised estimate, re-runs the step-size heuristic at the current position and restarts
 * dual averaging with μ = log(10·ε).
 *
 * @param warmup Mutated.
 * @param rng The chain's random stream.
 * @param state The state the transition produced.
 * @param info The transition's info (its acceptance statistic drives ε).
 * @param logDensity The target.
 * @returns Whether the metric was updated at this iteration.
 */
export function warmupUpdate(
  warmup: WarmupState,
  rng: Rng,
  state: NutsState,
  info: NutsInfo,
  logDensity: LogDensityFn,
): boolean {
  const w = warmup;
  w.stepSize = dualAveragingUpdate(w.dualAveraging, info.acceptanceRate);
  if (!w.adaptMetric) {
    w.iteration++;
    return false;
  }
  const i = w.iteration;
  const inWindow = i >= w.initBuffer && i < w.numWarmup - w.termBuffer && i !== w.numWarmup;
  if (inWindow) w.estimator.add(state.position);
  const windowEnds = i === w.nextWindowEnd && i !== w.numWarmup;
  if (windowEnds) {
    computeNextWindow(w);
    w.metric = w.estimator.endWindow();
  }
  w.iteration++;
  if (windowEnds) {
    w.stepSize = initStepSize(rng, state, w.stepSize, w.metric, logDensity);
    w.dualAveraging = dualAveragingInit(w.stepSize, w.dualAveragingOptions);
  }
  return windowEnds;
}

/**
 * Ends warmup: ε becomes the dual-averaged ε̄ = exp(log ε̄) (Stan's `complete_adaptation`);
 * M⁻¹ is the last window's estimate. If dual averaging has not run since its last restart
 * (no warmup at all, or an empty terminal buffer) the current ε is kept instead of Stan's
 * exp(0) = 1.
 *
 * @param warmup The warmup state.
 * @param maxTreeDepth Passed through to the kernel.
 * @returns The kernel parameters for sampling.
 */
export function warmupFinal(warmup: WarmupState, maxTreeDepth?: number): NutsParams {
  const stepSize = warmup.dualAveraging.counter > 0
    ? dualAveragingFinal(warmup.dualAveraging)
    : warmup.stepSize;
  return { stepSize, metric: warmup.metric, maxTreeDepth };
}
