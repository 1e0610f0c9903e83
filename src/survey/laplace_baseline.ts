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
 * and the guarantee does not extend to neighbours with a larger weight or a wider range.
 *
 * @module
 */
import { sampleLaplace } from "../random/distributions.ts";
import type { Rng } from "../random/rng.ts";
import { secureLaplace } from "../mechanisms/secure_laplace.ts";
import { type CellLayout, cellLayout, type SurveyTable, type TableInput } from "./tables.ts";

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
}

/** The noisy table, with the budget split and the sensitivities behind it (public). */
export interface LaplaceTable extends SurveyTable {
  readonly epsilon: number;
  readonly epsilonPoint: number;
  readonly epsilonReplicate: number;
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
 * The ε-DP (local) Laplace table of the confidential sample (see the module's guarantee).
 *
 * @param input The confidential sample's outcome, weights, strata and groupings.
 * @param options The total ε, the number of replicates, and the randomness.
 * @returns Noisy counts and means with replicate standard errors, and the budget split.
 */
export function laplaceTable(input: TableInput, options: LaplaceTableOptions): LaplaceTable {
  const { epsilon, replicates = 10, rng, release } = options;
  if (!(epsilon > 0) || !Number.isFinite(epsilon)) {
    throw new RangeError(`Invalid epsilon: must be positive and finite: epsilon=${epsilon}`);
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
    countSensitivity: point.countSensitivity,
    meanSensitivity: point.meanSensitivity,
  };
}
