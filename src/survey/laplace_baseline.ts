/**
 * The Laplace baseline for weighted survey tables (survey paper §2.4; SPEC §8): noise added to
 * the confidential sample's cell counts and means, with local sensitivities, and standard errors
 * from noisy random-group replicates.
 *
 * - Sensitivities, local to this sample as the paper's eqs. 8–9 are, but for ppsynth's one
 *   neighbour relation (add/remove, `privacy.ts`) where the paper's replace-one spreads
 *   (max w − min w and (max w·y − min w·y)/(Σ w − (max w − min w))) would understate a removal:
 *   removing a unit of weight w changes each of its cells' counts by w and its cell's mean by
 *   w·|y − μ_c|/(N_c − w); the maxima over units and cells are used for every cell (Δ^c_*,
 *   Δ^a_*).
 * - Points: N̂ + Laplace(Δ^c_* / ε_pc), μ̂ + Laplace(Δ^a_* / ε_pc); an empty cell's mean is
 *   defined as {@linkcode EMPTY_CELL_MEAN} and noised the same way (never released as a marker).
 * - Variances: R random-group replicates (Preston 2009): in every stratum keep a random ⌊n_h/2⌋
 *   units and scale their weights by n_h/⌊n_h/2⌋ (2 when n_h is even), zero the rest; each
 *   replicate's counts and means get noise at scale Δ_r/ε_rep with Δ_r the larger of the
 *   replicate's own sensitivity and the full sample's; Var = (1/R)·Σ_r (θ̂_r − θ̂)², with θ̂ the noisy point (post-processing only).
 * - Budget: each unit enters 4 cells × 2 tables, once as a point and R times as a replicate:
 *   ε = 8·ε_pc + 8·R·ε_rep; split equally, ε_pc = ε/16 and ε_rep = ε/(16·R) (ε = 8, R = 10:
 *   ε_pc = 0.5, ε_rep = 0.05).
 *
 * Privacy guarantee: ε-DP with respect to the removal sensitivities observed on this sample only
 * (the paper's "local DP"): weights and salaries are unbounded, so no global sensitivity exists
 * and the guarantee does not extend to neighbours with a larger weight or a wider range. The
 * local sensitivities are statistics of the data (the largest weight, a lone record's |y|), and
 * the noise's scale and the secure sampler's grid show them: this mode is for the studies and
 * the command line (the paper's baseline), never for a registered dataset.
 *
 * Bounded mode (`bounds: {y: [a, b], weight: [lo, hi]}`, declared public bounds, 0 ≤ lo < hi,
 * a < b): ε-DP under add/remove neighbours (`privacy.ts`) over a fixed cell layout (the declared
 * levels). Values are clamped to the bounds (callers clamp first and count; clamping here again
 * is a no-op). Count sensitivity Δ_c = max(|lo|, |hi|) = hi, mean sensitivity Δ_a = b − a
 * (rounded up to a float), ε_pc = ε/8, no replicates (countSE and meanSE are NaN).
 *
 * Proof of the sensitivities. Let x' = x plus or minus one unit u of weight w_u ∈ [lo, hi] and
 * outcome y_u ∈ [a, b]; u lies in exactly 4 cells of each table (the total, its two margins and
 * its cell), and no other cell's units change.
 * - Count: N_c = Σ_{i∈c} w_i changes by w_u ≤ hi in each of u's 4 cells and by 0 elsewhere, so
 *   |N_c − N'_c| ≤ Δ_c and the count table's L1 change is at most 4Δ_c. Computed exactly: each
 *   weight is rounded to the release grid γ_c first (⌊w/γ_c + ½⌋ ≤ ⌈hi/γ_c⌉ steps) and the steps
 *   are summed as integers, so float summation order cannot add to a difference.
 * - Mean: μ_c = Σ w_i·y_i / Σ w_i is a weighted average of values in [a, b], so μ_c ∈ [a, b]
 *   (clamped there after the float division); a cell of zero total weight (empty) has μ_c defined
 *   as the point of [a, b] nearest 0, also in [a, b]. Any two values in [a, b] differ by at most
 *   b − a, so |μ_c − μ'_c| ≤ Δ_a for u's 4 cells, 0 elsewhere: L1 change ≤ 4Δ_a.
 * - Composition: every cell gets Laplace(Δ/ε_pc) (secure: the grid rounding keeps the grid
 *   query's sensitivity ≤ ⌈Δ/γ⌉ steps, `secure_laplace.ts`), so each table is 4ε_pc-DP and the
 *   two tables together 8ε_pc = ε. The grid γ = 2^(⌊log₂ min(Δ, Δ/ε_pc)⌋ − 20) depends on the
 *   declared bounds and ε only.
 * Random-group replicates are not released in this mode: removing a unit changes ⌊n_h/2⌋ and so
 * every kept unit's factor n_h/⌊n_h/2⌋ in its stratum, a change the bounds do not bound.
 *
 * @module
 */
import { sampleLaplace } from "../random/distributions.ts";
import type { Rng } from "../random/rng.ts";
import { addUp } from "../mechanisms/privacy.ts";
import { laplaceQueryGrid, secureLaplace } from "../mechanisms/secure_laplace.ts";
import { type CellLayout, cellLayout, type SurveyTable, type TableInput } from "./tables.ts";
import { checkPositiveFinite } from "../random/arguments.ts";

/** Adds ε-DP Laplace noise for a query of the given L1 sensitivity to a value. */
export type LaplaceRelease = (value: number, sensitivity: number, epsilon: number) => number;

/** The secure release: the exact discrete Laplace of `secure_laplace.ts` (real releases). */
export const secureRelease: LaplaceRelease = (value, sensitivity, epsilon) =>
  secureLaplace(value, { sensitivity, epsilon });

/** A seeded release for studies only: value + Laplace(0, sensitivity/ε) from `rng`. */
export function seededRelease(rng: Rng): LaplaceRelease {
  return (value, sensitivity, epsilon) => value + sampleLaplace(rng, 0, sensitivity / epsilon);
}

/** Options of {@linkcode laplaceTable}. */
export interface LaplaceTableOptions {
  /** The total ε of the whole table. */
  readonly epsilon: number;
  /** Random-group replicates R (default 10). */
  readonly replicates?: number;
  /** Chooses the replicates' half-samples. */
  readonly rng: Rng;
  /** Adds the noise (secure for releases, seeded for studies). */
  readonly release: LaplaceRelease;
  /**
   * Declared public bounds: the bounded mode (ε-DP, no replicates; see the module). Absent: the
   * local mode (the paper's local-DP baseline).
   */
  readonly bounds?: LaplaceBounds;
}

/** Public bounds of the bounded mode: outcomes in [a, b], weights in [lo, hi], 0 ≤ lo < hi. */
export interface LaplaceBounds {
  readonly y: readonly [number, number];
  readonly weight: readonly [number, number];
}

/**
 * The noisy table, with the budget split and the sensitivities behind it (bounded mode: public,
 * from the bounds; local mode: statistics of the sample, for studies only).
 */
export interface LaplaceTable extends SurveyTable {
  readonly epsilon: number;
  readonly epsilonPoint: number;
  /** ε per replicate (0 in bounded mode, which has none). */
  readonly epsilonReplicate: number;
  /** Random-group replicates R (0 in bounded mode). */
  readonly replicates: number;
  readonly countSensitivity: number;
  readonly meanSensitivity: number;
}

/**
 * The mean of an empty cell, a data-independent value: it is noised like every other cell, so
 * the released table never marks a cell as empty.
 */
export const EMPTY_CELL_MEAN = 0;

/** Point estimates of every cell and the maximum sensitivities over cells. */
interface CellEstimates {
  readonly count: Float64Array;
  readonly mean: Float64Array;
  readonly countSensitivity: number;
  readonly meanSensitivity: number;
}

/**
 * Cell counts and means with the local sensitivities of removing one unit (add/remove
 * neighbours): a unit of weight w changes each of its cells' counts by w, and its cell c's mean
 * μ_c = T_c/N_c by w·|y − μ_c|/(N_c − w) (to {@linkcode EMPTY_CELL_MEAN} when it is the cell's
 * only unit); the maxima over units and cells.
 */
function estimates(
  input: TableInput,
  weight: Float64Array,
  { rows, labels }: CellLayout,
): CellEstimates {
  const R = labels[0].length;
  const count = new Float64Array(R);
  const total = new Float64Array(R);
  let countSensitivity = 0;
  for (let i = 0; i < weight.length; i++) {
    const w = weight[i];
    if (w === 0) continue;
    countSensitivity = Math.max(countSensitivity, w);
    for (let k = 4 * i; k < 4 * i + 4; k++) {
      count[rows[k]] += w;
      total[rows[k]] += w * input.y[i];
    }
  }
  const mean = total.map((t, r) => count[r] > 0 ? t / count[r] : EMPTY_CELL_MEAN);
  let meanSensitivity = 0;
  for (let i = 0; i < weight.length; i++) {
    const w = weight[i];
    if (w === 0) continue;
    for (let k = 4 * i; k < 4 * i + 4; k++) {
      const r = rows[k];
      const rest = count[r] - w;
      const change = rest > 0
        ? (w * Math.abs(input.y[i] - mean[r])) / rest
        : Math.abs(mean[r] - EMPTY_CELL_MEAN);
      meanSensitivity = Math.max(meanSensitivity, change);
    }
  }
  return { count, mean, countSensitivity, meanSensitivity };
}

/** Preston's random-group replicate weights: a random ⌊n_h/2⌋ of every stratum, rescaled. */
function replicateWeights(input: TableInput, rng: Rng): Float64Array {
  const byStratum = new Map<number, number[]>();
  input.strata.forEach((h, i) => {
    const members = byStratum.get(h) ?? [];
    members.push(i);
    byStratum.set(h, members);
  });
  const weight = new Float64Array(input.y.length);
  for (const members of byStratum.values()) {
    for (let j = members.length - 1; j > 0; j--) {
      const k = Math.floor(rng.uniform() * (j + 1));
      [members[j], members[k]] = [members[k], members[j]];
    }
    const kept = Math.floor(members.length / 2);
    const factor = members.length / kept;
    for (const i of members.slice(0, kept)) weight[i] = input.weight[i] * factor;
  }
  return weight;
}

/**
 * The Laplace table of the confidential sample: with `bounds`, ε-DP under add/remove neighbours
 * (the bounded mode: sensitivities from the declared bounds, ε_pc = ε/8, no replicates, NaN
 * standard errors); without, the paper's local-DP baseline with replicate standard errors (see
 * the module's guarantees).
 *
 * @param input The confidential sample's outcome, weights, strata and groupings.
 * @param options The total ε, the number of replicates (local mode), the randomness and the
 * declared bounds.
 * @returns Noisy counts and means (with replicate standard errors in local mode), and the budget
 * split; throws a RangeError for bad settings or bounds (a negative lower weight bound among
 * them, named as weight's bounds).
 */
export function laplaceTable(input: TableInput, options: LaplaceTableOptions): LaplaceTable {
  const { epsilon, replicates = 10, rng, release } = options;
  checkPositiveFinite("epsilon", epsilon);
  if (options.bounds !== undefined) {
    if (options.replicates !== undefined && options.replicates !== 0) {
      throw new RangeError(
        `Invalid replicates: the bounded mode releases no replicates: replicates=${replicates}`,
      );
    }
    return boundedTable(input, epsilon, options.bounds, release);
  }
  if (!Number.isSafeInteger(replicates) || replicates < 2) {
    throw new RangeError(`Invalid replicates: must be an integer ≥ 2: replicates=${replicates}`);
  }
  const epsilonPoint = epsilon / 16;
  const epsilonReplicate = epsilon / (16 * replicates);
  const layout = cellLayout(input.by);
  const { labels } = layout;
  const point = estimates(input, input.weight, layout);
  if (!(point.countSensitivity > 0) || !(point.meanSensitivity > 0)) {
    throw new RangeError(
      "Invalid sample: a local sensitivity is 0 (every outcome equals its cell's mean), " +
        "so the Laplace mechanism would release exact values",
    );
  }
  const noisy = (values: Float64Array, sensitivity: number, eps: number) =>
    values.map((v) => Number.isFinite(v) ? release(v, sensitivity, eps) : NaN);
  const count = noisy(point.count, point.countSensitivity, epsilonPoint);
  const mean = noisy(point.mean, point.meanSensitivity, epsilonPoint);
  const squaresCount = new Float64Array(count.length);
  const squaresMean = new Float64Array(mean.length);
  for (let r = 0; r < replicates; r++) {
    const replicate = estimates(input, replicateWeights(input, rng), layout);
    const countScale = Math.max(replicate.countSensitivity, point.countSensitivity);
    const meanScale = Math.max(replicate.meanSensitivity, point.meanSensitivity);
    const c = noisy(replicate.count, countScale, epsilonReplicate);
    const m = noisy(replicate.mean, meanScale, epsilonReplicate);
    c.forEach((v, k) => squaresCount[k] += (v - count[k]) ** 2);
    m.forEach((v, k) => squaresMean[k] += (v - mean[k]) ** 2);
  }
  return {
    by: [input.by[0].name, input.by[1].name],
    labels,
    count,
    countSE: squaresCount.map((s) => Math.sqrt(s / replicates)),
    mean,
    meanSE: squaresMean.map((s) => Math.sqrt(s / replicates)),
    epsilon,
    epsilonPoint,
    epsilonReplicate,
    replicates,
    countSensitivity: point.countSensitivity,
    meanSensitivity: point.meanSensitivity,
  };
}

/**
 * Checks declared bounds: finite, a < b, 0 ≤ lo < hi (survey weights are never negative: a
 * negative lower bound would make the count sensitivity max(|lo|, |hi|) and let a unit lower a
 * count, which the release's guarantee does not cover).
 */
function checkBounds(bounds: LaplaceBounds): void {
  const [a, b] = bounds.y;
  const [lo, hi] = bounds.weight;
  if (!Number.isFinite(a) || !Number.isFinite(b) || !(a < b)) {
    throw new RangeError(
      `Invalid bounds: y's bounds must be finite with the lower below the upper: bounds.y=[${a}, ${b}]`,
    );
  }
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || !(lo < hi)) {
    throw new RangeError(
      "Invalid bounds: weight's bounds must be finite with the lower below the upper: " +
        `bounds.weight=[${lo}, ${hi}]`,
    );
  }
  if (lo < 0) {
    throw new RangeError(
      `Invalid bounds: weight's bounds must be non-negative (survey weights): bounds.weight=[${lo}, ${hi}]`,
    );
  }
}

const clamp = (x: number, lo: number, hi: number) => x < lo ? lo : x > hi ? hi : x;

/** The bounded mode of {@linkcode laplaceTable} (see the module's proof). */
function boundedTable(
  input: TableInput,
  epsilon: number,
  bounds: LaplaceBounds,
  release: LaplaceRelease,
): LaplaceTable {
  checkBounds(bounds);
  const [a, b] = bounds.y;
  const [lo, hi] = bounds.weight;
  const epsilonPoint = epsilon / 8;
  const countSensitivity = Math.max(Math.abs(lo), Math.abs(hi));
  // A float ≥ the exact b − a (b + (−a) rounded toward +∞).
  const meanSensitivity = addUp(b, -a);
  if (!Number.isFinite(meanSensitivity)) {
    throw new RangeError(`Invalid bounds: y's range must be a finite float: bounds.y=[${a}, ${b}]`);
  }
  // The count release's grid (that of `secureRelease`); weights are summed in its steps.
  const step = laplaceQueryGrid(countSensitivity, epsilonPoint).step;
  const { rows, labels } = cellLayout(input.by);
  const R = labels[0].length;
  const steps = new Float64Array(R);
  const weightSum = new Float64Array(R);
  const total = new Float64Array(R);
  for (let i = 0; i < input.y.length; i++) {
    if (!Number.isFinite(input.y[i]) || !Number.isFinite(input.weight[i])) {
      throw new RangeError(`Invalid input: unit ${i}'s outcome and weight must be finite`);
    }
    const w = clamp(input.weight[i], lo, hi);
    const y = clamp(input.y[i], a, b);
    const unitSteps = Math.round(w / step);
    for (let k = 4 * i; k < 4 * i + 4; k++) {
      steps[rows[k]] += unitSteps;
      weightSum[rows[k]] += w;
      total[rows[k]] += w * y;
    }
  }
  // The grand total (row 0) holds every unit's steps: below 2^53, every sum is exact.
  if (!(steps[0] <= Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(
      "Invalid epsilon: the counts' grid is too fine for exact sums of this many units " +
        `(n·hi/γ above 2^53): epsilon=${epsilon}`,
    );
  }
  const empty = clamp(0, a, b);
  const count = steps.map((s) => release(s * step, countSensitivity, epsilonPoint));
  const mean = total.map((t, r) =>
    release(
      weightSum[r] > 0 ? clamp(t / weightSum[r], a, b) : empty,
      meanSensitivity,
      epsilonPoint,
    )
  );
  return {
    by: [input.by[0].name, input.by[1].name],
    labels,
    count,
    countSE: new Float64Array(R).fill(NaN),
    mean,
    meanSE: new Float64Array(R).fill(NaN),
    epsilon,
    epsilonPoint,
    epsilonReplicate: 0,
    replicates: 0,
    countSensitivity,
    meanSensitivity,
  };
}
