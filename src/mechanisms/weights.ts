/**
 * Risk weights α ∈ [0, 1]ⁿ for the pseudo posterior mechanism (SPEC §2): likelihood-weighted (LW,
 * Algorithm 1 of the vector-weighted paper), count-weighted (CW, Algorithm 2, after Hu et al.
 * 2021) and scalar-weighted (SW, the exponential mechanism).
 *
 * Weights only shape the pseudo posterior; the privacy guarantee of a release is always computed
 * afterwards from the draws of the weighted fit (ε = 2·Δ_{α,x} per dataset, see `privacy.ts`).
 *
 * @module
 */
import { checkFinite, checkNonNegativeFinite, checkPositiveFinite } from "../random/arguments.ts";

/**
 * The number of records n of a weighted fit's weights α and its per-record bounds Δ_{α,x_i}, once
 * the two are checked to be one per record: the first check of every step that recomputes the
 * weights from the bounds (re-weighting, truncation).
 *
 * @param alpha The weights α.
 * @param recordBounds Δ_{α,x_i}, one per weight.
 * @returns n = alpha.length.
 * @throws RangeError where recordBounds is not as long as alpha.
 */
export function pairedLength(alpha: Float64Array, recordBounds: Float64Array): number {
  const n = alpha.length;
  if (recordBounds.length !== n) {
    throw new RangeError(
      `Invalid recordBounds: has ${recordBounds.length} entries, expected ${n} (one per alpha)`,
    );
  }
  return n;
}

/** The scale c and shift g of α_i = clamp(c·(1 − risk_i) + g, 0, 1) (Algorithms 1 and 2, step 4). */
export interface WeightShape {
  /** Scale c ≥ 0 (finite): how strongly risk lowers the weight. */
  readonly c: number;
  /** Shift g (finite, any sign). */
  readonly g: number;
}

/**
 * The ball B(y_i, r_i) of CW and of the identification risk: the closed interval
 * [y_i − r_i, y_i + r_i], with r_i = radius·|y_i| when `relative` (the default, as in the
 * authors' code) or r_i = radius when absolute.
 */
export interface BallRadius {
  /** ρ (relative) or r (absolute), finite and ≥ 0. */
  readonly radius: number;
  /** Relative radius r_i = radius·|y_i| (default true) or absolute r_i = radius. */
  readonly relative?: boolean;
}

/** Options of {@linkcode cwWeights}: the ball and the shape of the weights. */
export interface CwOptions extends BallRadius, WeightShape {}

function checkShape({ c, g }: WeightShape): void {
  checkNonNegativeFinite("c", c);
  checkFinite("g", g);
}

function checkRadius({ radius, relative }: BallRadius): void {
  checkNonNegativeFinite("radius", radius);
  if (relative !== undefined && typeof relative !== "boolean") {
    throw new TypeError(`Invalid relative: must be a boolean: relative=${relative}`);
  }
}

/** Checks a confidential column: non-empty and finite (errors name the index, never the value). */
function checkValues(name: string, values: Float64Array): void {
  if (values.length === 0) throw new RangeError(`Invalid ${name}: must not be empty`);
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) {
      throw new RangeError(`Invalid ${name}: entry ${i} is not finite`);
    }
  }
}

function clampUnit(value: number): number {
  return value < 0 ? 0 : value > 1 ? 1 : value;
}

/**
 * LW weights (vector-weighted paper, Algorithm 1, steps 3–4): with f_i = max_s |ℓ_i(θ_s)| from
 * the unweighted fit, f̃_i = (f_i − min f)/(max f − min f) and α_i = clamp(c·(1 − f̃_i) + g, 0, 1).
 *
 * A non-finite f_i (a record whose ℓ_i is non-finite at some draw) gets α_i = 0, as SPEC §1
 * requires, and is left out of min f and max f. When the finite f are all equal, f̃ = 0 for every
 * record (every record is equally risky; α_i = clamp(c + g, 0, 1)).
 *
 * @param recordBounds f_i ≥ 0 per record (non-finite allowed, see above).
 * @param shape The scale c and shift g.
 * @returns α, a new array.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { lwWeights } from "./weights.ts";
 * const alpha = lwWeights(new Float64Array([1, 3, 5]), { c: 1, g: 0 });
 * assert.deepEqual([...alpha], [1, 0.5, 0]);
 * ```
 */
export function lwWeights(recordBounds: Float64Array, shape: WeightShape): Float64Array {
  checkShape(shape);
  const n = recordBounds.length;
  if (n === 0) throw new RangeError("Invalid recordBounds: must not be empty");
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const f = recordBounds[i];
    if (f < 0) throw new RangeError(`Invalid recordBounds: entry ${i} is negative`);
    if (!Number.isFinite(f)) continue;
    if (f < min) min = f;
    if (f > max) max = f;
  }
  const alpha = new Float64Array(n);
  const range = max - min;
  for (let i = 0; i < n; i++) {
    const f = recordBounds[i];
    if (!Number.isFinite(f)) continue;
    const scaled = range > 0 ? (f - min) / range : 0;
    alpha[i] = clampUnit(shape.c * (1 - scaled) + shape.g);
  }
  return alpha;
}

/**
 * For each centre y_i, the number of `sorted` values v inside the closed ball B(y_i, r_i), i.e.
 * with |v − y_i| ≤ r_i where v − y_i is the floating-point difference (so the count agrees
 * exactly with a direct test of every value). O((n + m)·log m) for n centres and m values:
 * fl(v − y_i) is non-decreasing in v, so the ball is a contiguous run of `sorted`, found by two
 * binary searches.
 *
 * @param sorted Values in ascending order (finite).
 * @param centres The centres y_i (finite).
 * @param ball The radius convention.
 * @returns Counts per centre.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { countInBalls } from "./weights.ts";
 * const counts = countInBalls(new Float64Array([1, 2, 3, 10]), new Float64Array([2]), {
 *   radius: 1,
 *   relative: false,
 * });
 * assert.deepEqual([...counts], [3]);
 * ```
 */
export function countInBalls(
  sorted: Float64Array,
  centres: Float64Array,
  ball: BallRadius,
): Int32Array {
  checkRadius(ball);
  const m = sorted.length;
  for (let k = 0; k < m; k++) {
    if (!Number.isFinite(sorted[k]) || (k > 0 && !(sorted[k - 1] <= sorted[k]))) {
      throw new RangeError(`Invalid sorted: not ascending and finite at entry ${k}`);
    }
  }
  checkValues("centres", centres);
  const relative = ball.relative ?? true;
  const counts = new Int32Array(centres.length);
  for (let i = 0; i < centres.length; i++) {
    const y = centres[i];
    const r = relative ? ball.radius * Math.abs(y) : ball.radius;
    // first: the first v with v − y ≥ −r; end: the first v with v − y > r.
    let lo = 0;
    let hi = m;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid] - y < -r) lo = mid + 1;
      else hi = mid;
    }
    const first = lo;
    hi = m;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid] - y > r) hi = mid;
      else lo = mid + 1;
    }
    counts[i] = lo - first;
  }
  return counts;
}

/**
 * Isolation risk of CW (vector-weighted paper, Algorithm 2, steps 1–3; Hu et al. 2021):
 * IR_i = #{j : y_j ∉ B(y_i, r_i)}/n, the share of all n records (record i included in n, and
 * itself always inside its ball) strictly farther than r_i from y_i: |y_j − y_i| > r_i.
 * A record exactly at distance r_i is inside. O(n log n): one sort, two binary searches per
 * record (see {@linkcode countInBalls}).
 *
 * @param y The confidential outcome (finite).
 * @param ball The radius: relative r_i = radius·|y_i| (default) or absolute.
 * @returns IR ∈ [0, (n − 1)/n] per record.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isolationRisk } from "./weights.ts";
 * const ir = isolationRisk(new Float64Array([1, 2, 4, 8]), { radius: 1, relative: false });
 * assert.deepEqual([...ir], [0.5, 0.5, 0.75, 0.75]);
 * ```
 */
export function isolationRisk(y: Float64Array, ball: BallRadius): Float64Array {
  checkValues("y", y);
  checkRadius(ball);
  const n = y.length;
  const inside = countInBalls(Float64Array.from(y).sort(), y, ball);
  const risk = new Float64Array(n);
  for (let i = 0; i < n; i++) risk[i] = (n - inside[i]) / n;
  return risk;
}

/**
 * CW weights (vector-weighted paper, Algorithm 2, step 4): α_i = clamp(c·(1 − IR_i) + g, 0, 1)
 * with IR the {@linkcode isolationRisk}.
 *
 * @param y The confidential outcome (finite).
 * @param options The ball (radius, relative) and the shape (c, g).
 * @returns α, a new array.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cwWeights } from "./weights.ts";
 * const alpha = cwWeights(new Float64Array([1, 2, 4, 8]), { radius: 1, relative: false, c: 1, g: 0 });
 * assert.deepEqual([...alpha], [0.5, 0.5, 0.25, 0.25]);
 * ```
 */
export function cwWeights(y: Float64Array, options: CwOptions): Float64Array {
  checkShape(options);
  const risk = isolationRisk(y, options);
  for (let i = 0; i < risk.length; i++) {
    risk[i] = clampUnit(options.c * (1 - risk[i]) + options.g);
  }
  return risk;
}

/**
 * SW weight matching another synthesizer's Lipschitz bound (vector-weighted paper §3.1):
 * α = min(1, Δ/Δ_x), with Δ_x the unweighted bound. Since Δ_{α,x} = α·Δ_x for a scalar α this
 * hits Δ up to rounding; the released ε is computed from the refit's draws, never from α.
 *
 * @param target The Lipschitz bound Δ to match (positive, finite).
 * @param unweighted The unweighted fit's Δ_x (positive, finite).
 * @returns α ∈ (0, 1].
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { swAlphaForLipschitz } from "./weights.ts";
 * assert.equal(swAlphaForLipschitz(2, 8), 0.25);
 * ```
 */
export function swAlphaForLipschitz(target: number, unweighted: number): number {
  checkPositiveFinite("target", target);
  checkPositiveFinite("unweighted", unweighted);
  return Math.min(1, target / unweighted);
}

/**
 * SW weight for a target total ε over m datasets (SPEC §2): α = min(1, ε/(2·m·Δ_x)), since
 * ε = 2·α·Δ_x·m for a scalar α. As for {@linkcode swAlphaForLipschitz}, the released ε is computed
 * from the refit's draws.
 *
 * @param epsilon The total ε target (positive, finite).
 * @param m The number of synthetic datasets (positive integer).
 * @param unweighted The unweighted fit's Δ_x (positive, finite).
 * @returns α ∈ (0, 1].
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { swAlphaForEpsilon } from "./weights.ts";
 * assert.equal(swAlphaForEpsilon(6, 3, 4), 0.25);
 * ```
 */
export function swAlphaForEpsilon(epsilon: number, m: number, unweighted: number): number {
  checkPositiveFinite("epsilon", epsilon);
  if (!Number.isSafeInteger(m) || m < 1) {
    throw new RangeError(`Invalid m: must be a positive integer: m=${m}`);
  }
  checkPositiveFinite("unweighted", unweighted);
  return Math.min(1, epsilon / (2 * m * unweighted));
}
