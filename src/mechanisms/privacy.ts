/**
 * Privacy maps of the mechanisms (OpenDP style: a mechanism's parameters in, its ε out) and
 * sequential composition. Every ε is rounded up: each floating-point operation is done with
 * round-toward-+∞ (the round-to-nearest result, moved up one place when it fell below the exact
 * value, which an error-free transformation detects), so a reported ε is never below the exact
 * real-number ε of its inputs.
 *
 * @module
 */
import { checkInteger, checkNonNegativeFinite, checkPositiveFinite } from "../random/arguments.ts";

/**
 * The one neighbour relation of every ppsynth mechanism (SPEC §11): databases x and y are
 * neighbours when y is x with one record added or removed.
 *
 * Proof sketch (why this is the relation the mechanisms' ε bound):
 * - Pseudo posterior (Savitsky, Williams & Hu, vector-weighted paper Def. 1.4 and eq. 4): for x
 *   with record i and y = x without it, log ξ^α(θ | x) − log ξ^α(θ | y) = α_i·ℓ_i(θ) − log(Z_x/Z_y)
 *   (the prior and the other records cancel), so for every θ in the draws' support the density
 *   ratio lies in exp(±2·Δ_{α,x}) with Δ_{α,x} = max_i sup_θ |α_i·ℓ_i(θ)|, the quantity the
 *   Lipschitz pass computes (the leave-one-out difference Σ_j α_jℓ_j − Σ_{j≠i} α_jℓ_j = α_iℓ_i).
 *   One synthetic dataset from one draw is post-processing: ε = 2Δ per dataset, 2Δm for m
 *   (sequential composition). Replace-one would need the difference of two records' terms,
 *   up to 2Δ in the exponent and so 4Δ per dataset: the papers' 2Δ is add/remove.
 * - Censoring: each |ℓ_i| is clamped to C, so the same argument gives 2C for every database.
 * - Perturbed histogram: adding or removing a record changes one bin count by 1 (L1 sensitivity
 *   1, Laplace(1/ε) per bin).
 * - Survey Laplace baseline: the paper's local sensitivities are taken per cell over the units
 *   in it, the change one unit can make when it is added or removed.
 * A release of n synthetic records reveals n, which add/remove does not protect: registering a
 * dataset declares n public (the papers treat it so).
 */
export const NEIGHBOURS = "add-remove";

/** "DP": ε-differential privacy for every database; "aDP": asymptotic DP (local ε_x, SPEC §1). */
export type Guarantee = "DP" | "aDP";

/** The privacy loss of a release. */
export interface PrivacyLoss {
  /** The kind of guarantee. */
  readonly guarantee: Guarantee;
  /** ε of one synthetic dataset (one posterior draw, or the one histogram). */
  readonly epsilonPerDataset: number;
  /** ε of the whole release (sequential composition over its datasets). */
  readonly epsilon: number;
}

const scratch = new DataView(new ArrayBuffer(8));

/**
 * The least float64 strictly above x (IEEE 754 nextUp), by stepping the bit pattern: +1 for
 * x > 0, −1 for x < 0; nextUp(±0) = Number.MIN_VALUE, nextUp(MAX_VALUE) = +∞,
 * nextUp(−∞) = −MAX_VALUE; NaN and +∞ are returned as they are. (JavaScript has no Math.nextUp.)
 *
 * @param x Any number.
 * @returns The next float64 towards +∞.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nextUp } from "./privacy.ts";
 * assert.equal(nextUp(1), 1 + Number.EPSILON);
 * ```
 */
export function nextUp(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === 0) return Number.MIN_VALUE;
  scratch.setFloat64(0, x);
  const bits = scratch.getBigUint64(0);
  scratch.setBigUint64(0, x > 0 ? bits + 1n : bits - 1n);
  return scratch.getFloat64(0);
}

/**
 * a + b rounded toward +∞. TwoSum (Knuth, TAOCP vol. 2, §4.2.2) gives the exact rounding error
 * e = (a + b) − fl(a + b); the result moves up one place when e > 0.
 *
 * @param a A finite number.
 * @param b A finite number.
 * @returns The least float64 ≥ a + b (+∞ on overflow).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { addUp } from "./privacy.ts";
 * assert.equal(addUp(0.1, 0.2), 0.30000000000000004);
 * assert.equal(addUp(1, 2 ** -60), 1 + Number.EPSILON);
 * ```
 */
export function addUp(a: number, b: number): number {
  const s = a + b;
  if (!Number.isFinite(s)) return s;
  const bb = s - a;
  const error = (a - (s - bb)) + (b - bb);
  return error > 0 ? nextUp(s) : s;
}

/**
 * a/m rounded toward +∞ (to within one place): the quotient as computed is within half a place
 * of a/m, so the next float up is never below it; m = 1 is exact.
 *
 * @param a A finite non-negative number.
 * @param m A positive integer.
 * @returns A float64 ≥ a/m.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { divUp } from "./privacy.ts";
 * assert.equal(divUp(8, 1), 8);
 * assert.ok(divUp(1, 3) * 3 >= 1);
 * ```
 */
export function divUp(a: number, m: number): number {
  return m === 1 || a === 0 ? a : nextUp(a / m);
}

/** Dekker's splitting constant 2^27 + 1. */
const SPLIT = 134217729;

/**
 * a·b rounded toward +∞. Dekker's TwoProduct (Dekker 1971, "A floating-point technique for
 * extending the available precision", Numer. Math. 18:224) gives the exact error of fl(a·b) when
 * no intermediate overflows or underflows; outside that range (|a|, |b| ∉ [2^−450, 2^450]) the
 * product is moved up one place whenever it is not exactly 0, which is still never below a·b.
 *
 * @param a A finite number.
 * @param b A finite number.
 * @returns A float64 ≥ a·b: the least one inside the range above.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mulUp } from "./privacy.ts";
 * assert.equal(mulUp(3, 0.5), 1.5);
 * assert.ok(mulUp(0.1, 3) >= 0.30000000000000004);
 * ```
 */
export function mulUp(a: number, b: number): number {
  const p = a * b;
  if (a === 0 || b === 0 || !Number.isFinite(p)) return p;
  const aa = Math.abs(a);
  const ab = Math.abs(b);
  if (!(aa >= 2 ** -450 && aa <= 2 ** 450 && ab >= 2 ** -450 && ab <= 2 ** 450)) {
    return nextUp(p);
  }
  const ca = SPLIT * a;
  const aHi = ca - (ca - a);
  const aLo = a - aHi;
  const cb = SPLIT * b;
  const bHi = cb - (cb - b);
  const bLo = b - bHi;
  const error = ((aHi * bHi - p) + aHi * bLo + aLo * bHi) + aLo * bLo;
  return error > 0 ? nextUp(p) : p;
}

/**
 * Privacy map of the (weighted) pseudo posterior mechanism (Savitsky, Williams & Hu 2022; SPEC
 * §1). Privacy guarantee: each synthetic dataset drawn from one posterior draw is
 * ε_x = 2·Δ_{α,x}-aDP, and m datasets compose to ε = 2·Δ_{α,x}·m. Asymptotic, not pure DP: Δ is
 * the local bound of this database.
 *
 * Success channel (issue 34, F5): a release under a cap c succeeds only when 2·Δ·m ≤ c, so its
 * outcome answers "is Δ ≤ c/(2m)?" — one bit per request, outside ε, noise-free. `unweighted`
 * (Δ = Δ_x, no floor) answers it for any c, so on a registered dataset it runs only where the
 * policy allows it (`allowUnweighted`); `sw`, `lw`, `cw` and `auto` answer it only for caps
 * below their calibration's reachable floor (a data-dependent floor, `CalibrationError`), one
 * bit per refused request, each charged its cap, which bounds the bits an analyst can buy to
 * ε_total / minEpsilon. `docs/decisions.md` ("Validity from public facts").
 *
 * @param lipschitz Δ_{α,x} from the draws that generate the data (finite, ≥ 0).
 * @param m The number of synthetic datasets (positive integer).
 * @returns {guarantee: "aDP", epsilonPerDataset: 2Δ, epsilon: 2Δm}, each rounded up.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pseudoPosteriorPrivacy } from "./privacy.ts";
 * assert.deepEqual(pseudoPosteriorPrivacy(1.5, 3), {
 *   guarantee: "aDP",
 *   epsilonPerDataset: 3,
 *   epsilon: 9,
 * });
 * ```
 */
export function pseudoPosteriorPrivacy(lipschitz: number, m: number): PrivacyLoss {
  checkNonNegativeFinite("lipschitz", lipschitz);
  checkInteger("m", m, 1);
  const epsilonPerDataset = mulUp(2, lipschitz);
  return { guarantee: "aDP", epsilonPerDataset, epsilon: mulUp(epsilonPerDataset, m) };
}

/**
 * Privacy map of the censored-likelihood mechanism (SPEC §3; JSM slides "Synthesizers #3 & #4").
 * Privacy guarantee: every record's contribution is clamped to [−C, C] for every θ, so Δ ≤ C for
 * every database and each draw is ε-DP with ε = 2C (C = ε/2); m datasets cost 2Cm. The bound is
 * the censoring level C, fixed in advance, not the Δ observed on the draws.
 *
 * @param censor The censoring level C (positive, finite).
 * @param m The number of synthetic datasets (positive integer).
 * @returns {guarantee: "DP", epsilonPerDataset: 2C, epsilon: 2Cm}, each rounded up.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { censoredPrivacy } from "./privacy.ts";
 * assert.deepEqual(censoredPrivacy(2.5, 2), { guarantee: "DP", epsilonPerDataset: 5, epsilon: 10 });
 * ```
 */
export function censoredPrivacy(censor: number, m: number): PrivacyLoss {
  checkPositiveFinite("censor", censor);
  checkInteger("m", m, 1);
  const epsilonPerDataset = mulUp(2, censor);
  return { guarantee: "DP", epsilonPerDataset, epsilon: mulUp(epsilonPerDataset, m) };
}

/**
 * Privacy map of the perturbed histogram (Wasserman & Zhou 2010; SPEC §4; see `histogram.ts`).
 * Privacy guarantee: the noisy histogram is ε-DP under add/remove neighbours with public bounds,
 * and every synthetic dataset drawn from it is post-processing: the release costs ε however many
 * datasets it holds, so epsilonPerDataset = epsilon = ε.
 *
 * @param epsilon The ε of the Laplace noise (positive, finite).
 * @returns {guarantee: "DP", epsilonPerDataset: ε, epsilon: ε}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { histogramPrivacy } from "./privacy.ts";
 * assert.deepEqual(histogramPrivacy(5), { guarantee: "DP", epsilonPerDataset: 5, epsilon: 5 });
 * ```
 */
export function histogramPrivacy(epsilon: number): PrivacyLoss {
  if (!(epsilon > 0) || !Number.isFinite(epsilon)) {
    throw new RangeError(`Invalid epsilon: must be positive and finite: epsilon=${epsilon}`);
  }
  return { guarantee: "DP", epsilonPerDataset: epsilon, epsilon };
}

/**
 * Sequential composition: ε = Σ_k ε_k, summed left to right with every addition rounded up, so
 * the result is never below the exact sum. Refuses NaN, negative and infinite charges.
 *
 * @param epsilons The charges (finite, ≥ 0); an empty list composes to 0.
 * @returns The composed ε.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { composeEpsilon } from "./privacy.ts";
 * assert.ok(composeEpsilon([0.1, 0.2]) > 0.3);
 * ```
 */
export function composeEpsilon(epsilons: ArrayLike<number>): number {
  let total = 0;
  for (let k = 0; k < epsilons.length; k++) {
    const e = epsilons[k];
    if (!(e >= 0) || !Number.isFinite(e)) {
      throw new RangeError(`Invalid epsilons: entry ${k} must be finite and non-negative: ${e}`);
    }
    total = addUp(total, e);
  }
  return total;
}
