/**
 * Cross-chain warmup of the many-chain HMC sampler (`hmc.ts`): its settings, their defaults and
 * the initial adaptation state. The updates themselves run on the device
 * (`shaders/hmc_adapt.wgsl`), once per iteration, over all chains together:
 *
 * - Trajectories: jittered fixed-length HMC. Iteration n uses L_n = ⌈h_n·T/ε⌉ leapfrog steps
 *   (at least 1, at most `maxLeapfrogSteps`) with h_n the base-2 van der Corput (Halton) number
 *   of n + 1, the same for every chain.
 * - Step size ε: dual averaging (Hoffman & Gelman 2014, Alg. 6; γ = 0.05, t₀ = 10, κ = 0.75,
 *   μ = log 10ε₀) of the acceptance probability averaged over chains (divergent = 0), target
 *   0.75 (TFP's `DualAveragingStepSizeAdaptation` with a mean over chains).
 * - Trajectory length T: ChEES (Hoffman, Radul & Sountsov 2021, "An adaptive-MCMC scheme for
 *   setting trajectory lengths in Hamiltonian Monte Carlo", AISTATS). The per-chain gradient of
 *   ¼(‖q' − q̄'‖² − ‖q − q̄‖²)² with respect to the trajectory length, h_n·(‖q' − q̄'‖² −
 *   ‖q − q̄‖²)·⟨q' − q̄', v'⟩, measured in the metric's whitened coordinates, is averaged over
 *   chains with the acceptance probabilities as weights (chains below 10⁻⁴ left out; q̄' is
 *   acceptance-weighted too), and drives an RMSProp step on log T (decay 0.95, learning rate
 *   `trajectoryLearningRate`, each step clipped to ±0.35), T ≤ ε·`maxLeapfrogSteps`; the
 *   iterate average log T̄_n = n^{-1/2}·log T_n + (1 − n^{-1/2})·log T̄_{n−1} is kept. These
 *   are the constants of TFP's `GradientBasedTrajectoryLengthAdaptation`; T starts at ε₀.
 * - Metric: diagonal M⁻¹ from the cross-chain variance of the positions, tracked as in
 *   SNAPER-HMC (Sountsov & Hoffman 2022, TFP's `_update_state_ema`): Welford's update of the
 *   mean and variance with the number of points clamped to ⌊n/`metricEmaFactor`⌋, so the
 *   window is the latest 1/`metricEmaFactor` of the warmup; M⁻¹ = variance / its maximum
 *   (so ε stays in units of the widest coordinate's scale).
 * - The first ⌈`adaptFraction`·warmup⌉ iterations adapt; the last of them fixes ε = ε̄ and
 *   T = T̄; the remaining warmup iterations and all draws use the fixed ε, T and M⁻¹.
 *
 * @module
 */
import { CF_EPS, CF_HEAD, CF_MU, CF_T, controlWords } from "./hmc_layout.ts";

/** Settings of the cross-chain warmup; TFP's defaults where it has one. */
export interface CheesOptions {
  /** Target of the mean acceptance probability across chains (0.75). */
  readonly targetAcceptance?: number;
  /** ε₀, the first step size; T starts at ε₀ (0.1). */
  readonly initialStepSize?: number;
  /** Learning rate of the RMSProp step on log T (0.05, as TFP's SNAPER-HMC). */
  readonly trajectoryLearningRate?: number;
  /** Largest number of leapfrog steps per iteration (100). */
  readonly maxLeapfrogSteps?: number;
  /** Fraction of the warmup that adapts (0.8). */
  readonly adaptFraction?: number;
  /** The metric's averaging window is the latest 1/`metricEmaFactor` of the iterations (8). */
  readonly metricEmaFactor?: number;
}

/** {@link CheesOptions} with every default filled in. */
export type ResolvedChees = Required<CheesOptions>;

/** The defaults of {@link CheesOptions}. */
export const CHEES_DEFAULTS: ResolvedChees = Object.freeze({
  targetAcceptance: 0.75,
  initialStepSize: 0.1,
  trajectoryLearningRate: 0.05,
  maxLeapfrogSteps: 100,
  adaptFraction: 0.8,
  metricEmaFactor: 8,
});

/** Dual-averaging constants of Hoffman & Gelman (2014) as Stan and TFP use them. */
export const DUAL_AVERAGING = Object.freeze({ gamma: 0.05, t0: 10, kappa: 0.75 });

/** A transition whose energy error H − H₀ exceeds this is divergent (Stan's 1000). */
export const DIVERGENCE_THRESHOLD = 1000;

function checkOpen01(name: string, value: number): void {
  if (!(value > 0 && value < 1)) {
    throw new RangeError(`Invalid ${name}: must be in (0, 1): ${name}=${value}`);
  }
}

/**
 * Fills in the defaults of {@link CheesOptions} and checks every setting.
 *
 * @param options the caller's settings.
 * @returns the complete settings.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveChees } from "./chees.ts";
 * assert.equal(resolveChees({ maxLeapfrogSteps: 32 }).targetAcceptance, 0.75);
 * assert.throws(() => resolveChees({ targetAcceptance: 1 }), RangeError);
 * ```
 */
export function resolveChees(options: CheesOptions = {}): ResolvedChees {
  const resolved = { ...CHEES_DEFAULTS, ...options };
  checkOpen01("targetAcceptance", resolved.targetAcceptance);
  checkOpen01("adaptFraction", resolved.adaptFraction);
  const { initialStepSize, trajectoryLearningRate, maxLeapfrogSteps, metricEmaFactor } = resolved;
  if (!(initialStepSize > 0 && Number.isFinite(initialStepSize))) {
    throw new RangeError(
      `Invalid initialStepSize: must be positive and finite: initialStepSize=${initialStepSize}`,
    );
  }
  if (!(trajectoryLearningRate > 0 && Number.isFinite(trajectoryLearningRate))) {
    throw new RangeError(
      `Invalid trajectoryLearningRate: must be positive and finite: ` +
        `trajectoryLearningRate=${trajectoryLearningRate}`,
    );
  }
  if (!Number.isSafeInteger(maxLeapfrogSteps) || maxLeapfrogSteps < 1 || maxLeapfrogSteps > 4096) {
    throw new RangeError(
      `Invalid maxLeapfrogSteps: must be an integer in [1, 4096]: ` +
        `maxLeapfrogSteps=${maxLeapfrogSteps}`,
    );
  }
  if (!Number.isSafeInteger(metricEmaFactor) || metricEmaFactor < 1) {
    throw new RangeError(
      `Invalid metricEmaFactor: must be a positive integer: metricEmaFactor=${metricEmaFactor}`,
    );
  }
  return resolved;
}

/**
 * Number of warmup iterations that adapt: ⌈fraction·warmup⌉.
 *
 * @param warmup warmup iterations.
 * @param fraction `adaptFraction`.
 * @returns the index of the first iteration with fixed parameters.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { adaptationEnd } from "./chees.ts";
 * assert.equal(adaptationEnd(300, 0.8), 240);
 * ```
 */
export function adaptationEnd(warmup: number, fraction: number): number {
  return Math.ceil(fraction * warmup);
}

/**
 * The adaptation state before the first iteration, as the f32 words of the control block
 * (`hmc_layout.ts`): ε = T = ε₀, μ = log 10ε₀, H̄ = log ε̄ = T̄ = 0, M⁻¹ = 1, EMA mean 0 and
 * variance 1.
 *
 * @param d the dimension of θ.
 * @param initialStepSize ε₀.
 * @returns the f32 control block.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { initialControl } from "./chees.ts";
 * const c = initialControl(2, 0.1);
 * assert.equal(c.length, 14);
 * assert.equal(c[8], 1); // M⁻¹ of the first coordinate
 * ```
 */
export function initialControl(d: number, initialStepSize: number): Float32Array<ArrayBuffer> {
  const f = new Float32Array(controlWords(d));
  f[CF_EPS] = initialStepSize;
  f[CF_MU] = Math.log(10 * initialStepSize);
  f[CF_T] = initialStepSize;
  f.fill(1, CF_HEAD, CF_HEAD + d); // M⁻¹
  f.fill(1, CF_HEAD + 2 * d, CF_HEAD + 3 * d); // EMA variance
  return f;
}

/**
 * Leapfrog slots to encode per iteration once ε and T are fixed: one more than ⌈T/ε⌉ (the
 * device computes ⌈h·T/ε⌉ in f32 with h < 1), at most `maxLeapfrogSteps`.
 *
 * @param stepSize the fixed ε.
 * @param trajectory the fixed T.
 * @param maxLeapfrogSteps the cap.
 * @returns the number of slots, at least 1.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { samplingSlots } from "./chees.ts";
 * assert.equal(samplingSlots(0.5, 1.2, 100), 4);
 * assert.equal(samplingSlots(1e-3, 10, 100), 100);
 * ```
 */
export function samplingSlots(
  stepSize: number,
  trajectory: number,
  maxLeapfrogSteps: number,
): number {
  const steps = Math.ceil(trajectory / stepSize) + 1;
  return Number.isFinite(steps) ? Math.min(maxLeapfrogSteps, Math.max(1, steps)) : maxLeapfrogSteps;
}
