/**
 * Step-size adaptation: Nesterov dual averaging of log ε (Hoffman & Gelman 2014, §3.2.1, as in
 * Stan's `stepsize_adaptation.hpp`) and Stan's initial step-size heuristic
 * (`base_hmc::init_stepsize`).
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import {
  kineticEnergy,
  leapfrog,
  type LogDensityFn,
  type NutsState,
  sampleMomentum,
} from "./nuts.ts";
import type { InverseMetric } from "./metric.ts";

/** Dual-averaging constants; Stan's defaults δ = 0.8, γ = 0.05, κ = 0.75, t0 = 10. */
export interface DualAveragingOptions {
  /** Target acceptance statistic δ. */
  readonly targetAcceptance?: number;
  /** Shrinkage γ towards μ. */
  readonly gamma?: number;
  /** Decay exponent κ of the averaging weights. */
  readonly kappa?: number;
  /** Iteration offset t0 that damps the first iterations. */
  readonly t0?: number;
}

/** The dual-averaging state (mutated by `dualAveragingUpdate`). */
export interface DualAveragingState {
  readonly mu: number;
  readonly delta: number;
  readonly gamma: number;
  readonly kappa: number;
  readonly t0: number;
  /** Iteration count t. */
  counter: number;
  /** Running average H̄_t of δ − a_t. */
  sBar: number;
  /** Averaged iterate log ε̄_t. */
  xBar: number;
}

function checkOption(name: string, value: number, ok: boolean): void {
  if (!ok) throw new RangeError(`Invalid ${name}: ${name}=${value}`);
}

/**
 * Starts dual averaging with μ = log(10·ε₀) and t = H̄ = log ε̄ = 0 (Stan's `set_mu` then
 * `restart`).
 *
 * @param stepSize ε₀, the step size whose tenfold is the shrinkage target.
 * @param options δ, γ, κ, t0.
 * @returns A fresh state.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { dualAveragingInit } from "./step_size.ts";
 * const s = dualAveragingInit(1);
 * assert.equal(s.mu, Math.log(10));
 * assert.equal(s.delta, 0.8);
 * ```
 */
export function dualAveragingInit(
  stepSize: number,
  options: DualAveragingOptions = {},
): DualAveragingState {
  const { targetAcceptance = 0.8, gamma = 0.05, kappa = 0.75, t0 = 10 } = options;
  checkOption("stepSize (must be finite and > 0)", stepSize, stepSize > 0 && isFinite(stepSize));
  checkOption(
    "targetAcceptance (must be in (0, 1))",
    targetAcceptance,
    targetAcceptance > 0 &&
      targetAcceptance < 1,
  );
  checkOption("gamma (must be > 0)", gamma, gamma > 0);
  checkOption("kappa (must be in (0.5, 1])", kappa, kappa > 0.5 && kappa <= 1);
  checkOption("t0 (must be ≥ 0)", t0, t0 >= 0);
  return {
    mu: Math.log(10 * stepSize),
    delta: targetAcceptance,
    gamma,
    kappa,
    t0,
    counter: 0,
    sBar: 0,
    xBar: 0,
  };
}

/**
 * One dual-averaging update with acceptance statistic a_t (capped at 1), Hoffman & Gelman
 * (2014) eq. (6): with t ← t + 1 and η = 1/(t + t0),
 * H̄ ← (1 − η)·H̄ + η·(δ − a_t); x = μ − √t·H̄/γ; log ε̄ ← (1 − t^−κ)·log ε̄ + t^−κ·x.
 *
 * @param state Mutated.
 * @param acceptStat a_t from the last transition.
 * @returns The step size exp(x) to use next.
 *
 * @example Acceptance above target raises the step size
 * ```ts
 * import assert from "node:assert/strict";
 * import { dualAveragingInit, dualAveragingUpdate } from "./step_size.ts";
 * const s = dualAveragingInit(1);
 * const eps = dualAveragingUpdate(s, 1);
 * assert.ok(Math.abs(eps - 10 * Math.exp((0.2 / 11) / 0.05)) < 1e-12);
 * ```
 */
export function dualAveragingUpdate(state: DualAveragingState, acceptStat: number): number {
  state.counter++;
  const a = acceptStat > 1 ? 1 : acceptStat;
  const t = state.counter;
  const eta = 1 / (t + state.t0);
  state.sBar = (1 - eta) * state.sBar + eta * (state.delta - a);
  const x = state.mu - state.sBar * Math.sqrt(t) / state.gamma;
  const xEta = Math.pow(t, -state.kappa);
  state.xBar = (1 - xEta) * state.xBar + xEta * x;
  return Math.exp(x);
}

/**
 * The adapted step size exp(log ε̄) (Stan's `complete_adaptation`).
 *
 * @param state The dual-averaging state after at least one update.
 * @returns ε̄.
 */
export function dualAveragingFinal(state: DualAveragingState): number {
  return Math.exp(state.xBar);
}

/** Largest step size the heuristic may reach before declaring the posterior improper (Stan). */
const MAX_INIT_STEP_SIZE = 1e7;

/**
 * Stan's initial step-size heuristic (`base_hmc::init_stepsize`): with fresh momenta each try,
 * take one leapfrog step of size ε from `state`; if the acceptance exp(H0 − H) exceeds 0.8,
 * double ε until it no longer does, otherwise halve ε until it does. A non-finite H counts
 * as H = +∞.
 *
 * @param rng The chain's random stream.
 * @param state The position to probe from (not changed).
 * @param stepSize The starting ε.
 * @param inverseMetric The metric, or the diagonal of M⁻¹ (the diagonal metric).
 * @param logDensity The target.
 * @returns The new ε.
 * @throws {RangeError} When ε exceeds 1e7 (improper posterior) or underflows to 0.
 *
 * @example A standard normal with unit metric settles at an ε of order 1
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "../random/rng.ts";
 * import { nutsInit } from "./nuts.ts";
 * import { initStepSize } from "./step_size.ts";
 * const f = (u: Float64Array, g: Float64Array) => ((g[0] = -u[0]), -0.5 * u[0] * u[0]);
 * const eps = initStepSize(new Rng(3), nutsInit(Float64Array.of(0), f), 1, Float64Array.of(1), f);
 * assert.ok(eps >= 0.25 && eps <= 4);
 * ```
 */
export function initStepSize(
  rng: Rng,
  state: NutsState,
  stepSize: number,
  inverseMetric: InverseMetric,
  logDensity: LogDensityFn,
): number {
  if (stepSize === 0 || stepSize > MAX_INIT_STEP_SIZE || Number.isNaN(stepSize)) return stepSize;
  const dim = state.position.length;
  const q = new Float64Array(dim);
  const p = new Float64Array(dim);
  const g = new Float64Array(dim);
  const logAccept = Math.log(0.8);
  const deltaH = (eps: number): number => {
    q.set(state.position);
    g.set(state.gradient);
    sampleMomentum(rng, inverseMetric, p);
    const h0 = -state.logDensity + kineticEnergy(p, inverseMetric);
    const lp = leapfrog(q, p, g, eps, inverseMetric, logDensity);
    const h = -lp + kineticEnergy(p, inverseMetric);
    return Number.isFinite(h) ? h0 - h : -Infinity;
  };
  const direction = deltaH(stepSize) > logAccept ? 1 : -1;
  for (;;) {
    const dh = deltaH(stepSize);
    if (direction === 1 && !(dh > logAccept)) break;
    if (direction === -1 && !(dh < logAccept)) break;
    stepSize = direction === 1 ? 2 * stepSize : 0.5 * stepSize;
    if (stepSize > MAX_INIT_STEP_SIZE) {
      throw new RangeError(
        `Cannot initialise the step size as the posterior looks improper: stepSize=${stepSize}`,
      );
    }
    if (stepSize === 0) {
      throw new RangeError(
        `Cannot initialise the step size as no step is small enough: stepSize=${stepSize} ` +
          `(is the log density continuous and finite near position=[${[...state.position]}]?)`,
      );
    }
  }
  return stepSize;
}
