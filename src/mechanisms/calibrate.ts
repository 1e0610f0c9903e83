/**
 * Calibration of the risk weights to a target ε (SPEC §2, "Targeting ε").
 *
 * The papers tune (c, g) by hand until 2·Δ_{α,x}·m meets a target. Here the shift g is searched
 * automatically with c fixed: α(g) = clamp(c·(1 − risk) + g, 0, 1) rises with g, from all 0 to
 * all 1, and Δ_{α(g),x} rises with it. We look for the largest g (the least down-weighting)
 * whose fit has Δ ≤ Δ* = ε/(2m), by regula falsi (Illinois variant) on log Δ(g) between a
 * floor and g = 1, every step a full refit with the same seed. The root aimed at is
 * (1 − closeness/2)·Δ*, just inside the target, because Δ(g) is a Monte Carlo maximum and
 * wobbles by a fraction of a percent between neighbouring g. The result is always a fitted candidate: the
 * reported ε comes from the draws that generate the data, never from an interpolation.
 *
 * Δ(g) is not monotone all the way down: as the weights vanish the pseudo posterior widens
 * towards the prior and |ℓ_i| at its draws can grow again (FBP shows this). So the search first
 * steps down from g = 1 through the g's at which the weights sum to 1/2, 1/4, …, 1/64 and 1/100
 * of n, stopping at the first feasible fit, then refines between it and the infeasible fit above
 * it. If none of these fits meets the target, a {@linkcode CalibrationError} gives the smallest
 * ε reached.
 *
 * @module
 */
import { checkPositiveFinite } from "../random/arguments.ts";

/** A target ε that no weights in the searched family reach. */
export class CalibrationError extends Error {
  override name = "CalibrationError";
  /** The smallest ε any fit reached. */
  readonly reached: number;
  /** The fitted candidate with the smallest Δ, for a caller that can go on from it. */
  readonly closest?: unknown;

  /**
   * @param target The requested ε.
   * @param reached The smallest ε reached.
   * @param detail What was searched.
   * @param closest The fitted candidate with the smallest Δ.
   */
  constructor(target: number, reached: number, detail: string, closest?: unknown) {
    super(
      `Cannot calibrate weights as the target is below the smallest reachable epsilon: ` +
        `target=${target}, reached=${reached} (${detail})`,
    );
    this.reached = reached;
    this.closest = closest;
  }
}

/** Weight sums (as shares of n) tried on the way down from all weights 1. */
const DOWNWARD_SHARES = [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 100];

/** A fitted point of the search. */
export interface Candidate {
  readonly g: number;
  readonly lipschitz: number;
}

/** The largest Δ allowed by a total ε over m datasets, rounded down so 2Δm never exceeds ε. */
export function lipschitzTarget(epsilon: number, m: number): number {
  return (epsilon / (2 * m)) * (1 - 4 * Number.EPSILON);
}

/** Options of {@linkcode calibrateShift}. */
export interface CalibrateOptions {
  /** The target total ε of the m datasets; Δ* = ε/(2m) is the largest acceptable Δ. */
  readonly epsilon: number;
  /** Number of datasets m. */
  readonly m: number;
  /** The g at which the weights sum to `share`·n (share in (0, 1]; 1 means all weights 1). */
  readonly shiftForShare: (share: number) => number;
  /** Stop once a feasible fit has Δ ≥ (1 − closeness)·Δ* (default 0.03). */
  readonly closeness?: number;
  /** Most refits inside the bracket (default 6). */
  readonly maxSteps?: number;
}

/** A predicted Δ at a shift g (see `predict_lipschitz.ts`). */
export interface ShiftPrediction {
  readonly lipschitz: number;
  readonly paretoK: number;
  readonly trusted: boolean;
}

/** Predicts Δ at each shift from a fitted candidate's draws. */
export type PredictShifts<T> = (base: T, shifts: number[]) => Promise<ShiftPrediction[]>;

/** Shifts predicted across the bracket above a feasible fit. */
const PREDICTION_GRID = 12;

/**
 * Finds the largest g whose fit has Δ ≤ ε/(2m), evaluating fits on demand.
 *
 * With `predict` (issue 13), before every refit inside the bracket the search asks for Δ
 * predicted from its feasible end's fit at that fit's g and on a grid of
 * {@linkcode PREDICTION_GRID} shifts above it, and where the trusted predictions cross the aim
 * (1 − closeness/2)·Δ* it fits the shift interpolated (log Δ linear) between the two grid points
 * instead of the regula falsi point. An untrusted prediction (Pareto k̂ above
 * the threshold) met before that crossing leaves the step to regula falsi. The downward steps
 * from all weights 1 are always real refits: on the benchmark's data, importance weights from the
 * unweighted fit to LW weights have k̂ 2.9–3.3 at n = 10⁴ (never trusted), so predicting there
 * only costs. Every candidate is still a real fit, so the result's Δ is always that of its draws.
 *
 * @param evaluate Fits the model with α(g) (the prediction that chose g, if one did) and returns
 *   the candidate (with anything else the caller needs in `T`).
 * @param options The target, the map from weight share to g, and the stopping rule.
 * @param predict Predicts Δ at shifts from a fitted candidate (absent: real refits only).
 * @returns The feasible candidate with the largest g found.
 */
export async function calibrateShift<T extends Candidate>(
  evaluate: (g: number, predicted?: ShiftPrediction) => Promise<T>,
  options: CalibrateOptions,
  predict?: PredictShifts<T>,
): Promise<T> {
  const { epsilon, m, shiftForShare, closeness = 0.03, maxSteps = 6 } = options;
  checkPositiveFinite("epsilon", epsilon);
  const target = lipschitzTarget(epsilon, m);
  const aimed = (1 - closeness / 2) * target;

  /** A trusted predicted crossing in (lo, hi) from the feasible fit `base` at lo. */
  async function guess(base: T, lo: number, hi: number) {
    if (predict === undefined || !(hi > lo)) return undefined;
    const shifts = [
      lo,
      ...Array.from(
        { length: PREDICTION_GRID },
        (_, j) => lo + ((hi - lo) * (j + 1)) / (PREDICTION_GRID + 1),
      ),
    ];
    const predictions = await predict(base, shifts);
    for (let j = 0; j < shifts.length; j++) {
      const p = predictions[j];
      if (!p.trusted) return undefined;
      if (p.lipschitz > aimed) {
        if (j === 0) return undefined;
        // log Δ linear between the last feasible and the first infeasible prediction.
        const q = predictions[j - 1];
        const t = Math.log(aimed / q.lipschitz) / Math.log(p.lipschitz / q.lipschitz);
        const g = shifts[j - 1] + (shifts[j] - shifts[j - 1]) * Math.min(Math.max(t, 0), 1);
        return g > lo
          ? { g, predicted: { ...p, lipschitz: aimed, paretoK: Math.max(p.paretoK, q.paretoK) } }
          : undefined;
      }
    }
    return undefined;
  }

  let high = await evaluate(shiftForShare(1));
  if (high.lipschitz <= target) return high;
  let low: T | undefined;
  let smallest = high;
  for (const share of DOWNWARD_SHARES) {
    const candidate = await evaluate(shiftForShare(share));
    if (candidate.lipschitz < smallest.lipschitz) smallest = candidate;
    if (candidate.lipschitz <= target) {
      low = candidate;
      break;
    }
    high = candidate;
  }
  if (low === undefined) {
    throw new CalibrationError(
      epsilon,
      2 * smallest.lipschitz * m,
      `m=${m}; weights searched down to a sum of 1% of n`,
      smallest,
    );
  }
  const aim = Math.log(aimed);
  const distance = (candidate: Candidate) =>
    candidate.lipschitz > 0 ? Math.log(candidate.lipschitz) - aim : -Infinity;
  let best = low;
  let [a, fa] = [low.g, Math.max(distance(low), -50)];
  let [b, fb] = [high.g, distance(high)];
  let side = 0;
  for (let step = 0; step < maxSteps; step++) {
    if (best.lipschitz >= (1 - closeness) * target) break;
    const hint = await guess(low, a, b);
    const g = hint?.g ?? (a * fb - b * fa) / (fb - fa);
    const next = await evaluate(Math.min(Math.max(g, a), b), hint?.predicted);
    const fn = Math.max(distance(next), -50);
    if (next.lipschitz <= target && next.g > best.g) best = next;
    if (fn <= 0) {
      [a, fa] = [next.g, fn];
      low = next;
      if (side === -1) fb /= 2;
      side = -1;
    } else {
      [b, fb] = [next.g, fn];
      if (side === 1) fa /= 2;
      side = 1;
    }
  }
  return best;
}

/**
 * The g at which the weights α(g) sum to `total` (bisection over [−c − 1, 1]; the sum rises
 * with g).
 *
 * @param weightsFor α(g) = clamp(c·(1 − risk) + g, 0, 1) for the records.
 * @param c The scale c (the weights are all 0 at g = −c − 1 and all 1 at g = 1).
 * @param total The weight sum wanted, in (0, n].
 */
export function shiftForWeightSum(
  weightsFor: (g: number) => Float64Array,
  c: number,
  total: number,
): number {
  const sum = (g: number) => weightsFor(g).reduce((s, a) => s + a, 0);
  let lo = -c - 1;
  let hi = 1;
  for (let iteration = 0; iteration < 60; iteration++) {
    const mid = (lo + hi) / 2;
    if (sum(mid) < total) lo = mid;
    else hi = mid;
  }
  return hi;
}
