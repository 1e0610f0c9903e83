/**
 * Pareto smoothed importance sampling (PSIS; Vehtari, Simpson, Gelman, Yao & Gabry 2024, "Pareto
 * smoothed importance sampling", JMLR 25(72)), following the R package `loo` 2.5.1
 * (`loo::psis(log_ratios, r_eff = 1)`: `do_psis_i`, `psis_smooth_tail`, `n_pareto`, `gpdfit`,
 * `qgpd`), which `test/reference/psis_reference.R` records.
 *
 * Given log importance ratios r_1, …, r_S:
 *
 * 1. Tail length M = ⌈min(0.2·S, 3·√S)⌉ (`n_pareto` with r_eff = 1). With M < 5 nothing is
 *    smoothed and k̂ = ∞ (loo warns "Not enough tail samples").
 * 2. Shift ℓ_s = r_s − max r, sort ascending; the tail is the M largest, the cutoff u the
 *    largest value below them, ℓ₍S−M₎. If the tail is constant (spread < ε/100, ε the machine
 *    epsilon) nothing is smoothed and k̂ = ∞ (loo warns "all tail values are the same").
 * 3. Fit a generalized Pareto distribution (location 0) to the excesses
 *    x_i = exp(ℓ₍S−M+i₎) − exp(u), i = 1…M, by Zhang & Stephens (2009, §4)'s empirical-Bayes
 *    estimator: m = 30 + ⌊√M⌋ grid points, x* = x₍⌊M/4 + 1/2⌋₎ (first quartile),
 *    θ_j = 1/x₍M₎ + (1 − √(m/(j − 1/2)))/(3·x*), j = 1…m; profile log-likelihood
 *    L(θ) = M·(log(−θ/k(θ)) − k(θ) − 1) with k(θ) = mean_i log(1 − θ·x_i); posterior-mean
 *    θ̂ = Σ_j θ_j·exp(L(θ_j))/Σ_j exp(L(θ_j)); k̂₀ = mean_i log(1 − θ̂·x_i), σ̂ = −k̂₀/θ̂ (k here is
 *    the negative of Zhang & Stephens' k).
 * 4. Weakly informative prior (`wip = TRUE`, a Gaussian centred on 0.5 worth 10 observations):
 *    k̂ = (M·k̂₀ + 10·0.5)/(M + 10). As in loo, σ̂ keeps the unadjusted k̂₀.
 * 5. Replace the i-th smallest tail ratio by the GPD's expected order statistic
 *    exp(u) + σ̂·((1 − p_i)^(−k̂) − 1)/k̂ with p_i = (i − 1/2)/M (on the log scale), truncate
 *    every log weight at 0 (the largest raw ratio), shift back by max r, and normalise:
 *    log w_s − log Σ_t w_t. The PSIS effective sample size is 1/Σ_s w_s² (r_eff = 1).
 *
 * Differences from other loo versions: loo ≥ 2.10 calls `posterior::gpdfit`, which returns k̂ = ∞
 * (no smoothing) when the first quartile of the excesses equals their minimum (ties at the bottom
 * of the tail); loo 2.5.1, followed here, fits them anyway. Otherwise the fits agree. loo 2.5.1
 * flags k̂ above a fixed 0.7; loo ≥ 2.6 uses the sample-size-dependent {@link psisThreshold}.
 *
 * @module
 */

/** What {@link psis} returns. */
export interface PsisResult {
  /** Normalised (log Σ exp = 0) smoothed and truncated log weights, in input order. */
  logWeights: Float64Array;
  /**
   * The prior-adjusted GPD shape estimate k̂; `Infinity` when no fit was made (fewer than 5 tail
   * draws, or a constant tail), as loo reports it.
   */
  paretoK: number;
  /** The tail length M = ⌈min(0.2·S, 3·√S)⌉ (also reported when no fit was made). */
  tailLength: number;
  /** The PSIS effective sample size 1/Σ w_s² of the normalised weights. */
  essIs: number;
}

/** R's `mean.default` for doubles: the sum divided by n, then corrected by the mean residual. */
function mean(x: Float64Array): number {
  const n = x.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += x[i];
  let m = sum / n;
  if (Number.isFinite(m)) {
    let residual = 0;
    for (let i = 0; i < n; i++) residual += x[i] - m;
    m += residual / n;
  }
  return m;
}

/** log Σ exp(x_i), computed as max + log Σ exp(x_i − max). */
function logSumExp(x: Float64Array): number {
  let max = -Infinity;
  for (let i = 0; i < x.length; i++) if (x[i] > max) max = x[i];
  if (!Number.isFinite(max)) return max;
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += Math.exp(x[i] - max);
  return max + Math.log(sum);
}

/** mean_i log(1 − θ·x_i) for each candidate θ (k(θ) of Zhang & Stephens, sign flipped). */
function meanLog1m(theta: number, x: Float64Array): number {
  const terms = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) terms[i] = Math.log1p(-theta * x[i]);
  return mean(terms);
}

/**
 * Zhang & Stephens (2009) empirical-Bayes fit of a generalized Pareto distribution (location 0)
 * to a sample sorted ascending, as loo 2.5.1's `gpdfit(x, wip, min_grid_pts = 30)`: k is the
 * shape (positive for heavy tails; with `wip` shrunk towards 0.5 as (n·k + 5)/(n + 10)), sigma
 * the scale computed from the unadjusted k. A NaN shape becomes `Infinity`.
 *
 * @param x Positive excesses, sorted ascending (at least one).
 * @param wip Apply the weakly informative prior adjustment to k (loo's default, true).
 * @param minGridPoints The grid has `minGridPoints + ⌊√n⌋` points (loo's default, 30).
 *
 * @example An exponential sample: k near 0 before the prior adjustment
 * ```ts
 * import assert from "node:assert/strict";
 * import { gpdFit } from "./psis.ts";
 * const n = 2000;
 * const x = Float64Array.from({ length: n }, (_, i) => -Math.log1p(-(i + 0.5) / n));
 * const fit = gpdFit(x, false);
 * assert.ok(Math.abs(fit.k) < 0.02 && Math.abs(fit.sigma - 1) < 0.02);
 * ```
 */
export function gpdFit(
  x: Float64Array,
  wip = true,
  minGridPoints = 30,
): { k: number; sigma: number } {
  const n = x.length;
  if (n === 0) throw new RangeError("x must hold at least one value: got 0");
  const prior = 3;
  const m = minGridPoints + Math.floor(Math.sqrt(n));
  const xStar = x[Math.floor(n / 4 + 0.5) - 1] ?? x[0]; // first quartile (R's x[floor(n/4 + 0.5)])
  const theta = new Float64Array(m);
  const logLik = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    theta[j] = 1 / x[n - 1] + (1 - Math.sqrt(m / (j + 1 - 0.5))) / prior / xStar;
    const k = meanLog1m(theta[j], x);
    logLik[j] = n * (Math.log(-theta[j] / k) - k - 1);
  }
  const normaliser = logSumExp(logLik);
  let thetaHat = 0;
  for (let j = 0; j < m; j++) thetaHat += theta[j] * Math.exp(logLik[j] - normaliser);
  let k = meanLog1m(thetaHat, x);
  const sigma = -k / thetaHat;
  if (wip) k = (k * n) / (n + 10) + (10 * 0.5) / (n + 10);
  if (Number.isNaN(k)) k = Infinity;
  return { k, sigma };
}

/** The smoothed log tail: log(exp(u) + GPD quantiles at (i − 1/2)/M), or the tail as it was. */
function smoothTail(
  tail: Float64Array,
  cutoff: number,
): { tail: Float64Array; k: number } {
  const len = tail.length;
  const expCutoff = Math.exp(cutoff);
  const excess = new Float64Array(len);
  for (let i = 0; i < len; i++) excess[i] = Math.exp(tail[i]) - expCutoff;
  const { k, sigma } = gpdFit(excess);
  if (!Number.isFinite(k)) return { tail, k };
  const smoothed = new Float64Array(len);
  for (let i = 0; i < len; i++) {
    const p = (i + 1 - 0.5) / len;
    // loo's qgpd; NaN for a non-positive scale, as there. k = 0 takes the exponential limit.
    const q = !(sigma > 0)
      ? NaN
      : k === 0
      ? -sigma * Math.log1p(-p)
      : (sigma * Math.expm1(-k * Math.log1p(-p))) / k;
    smoothed[i] = Math.log(q + expCutoff);
  }
  return { tail: smoothed, k };
}

/**
 * The PSIS tail length for S draws with r_eff = 1: ⌈min(0.2·S, 3·√S)⌉ (loo's `n_pareto`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { psisTailLength } from "./psis.ts";
 * assert.equal(psisTailLength(1000), 95); // ⌈3·√1000⌉ = ⌈94.87⌉
 * assert.equal(psisTailLength(100), 20); // 0.2·100 < 3·√100
 * ```
 */
export function psisTailLength(s: number): number {
  if (!Number.isInteger(s) || s < 1) {
    throw new RangeError(`s must be a positive integer: got ${s}`);
  }
  return Math.ceil(Math.min(0.2 * s, 3 * Math.sqrt(s)));
}

/**
 * The sample-size-dependent Pareto k̂ threshold of loo ≥ 2.6 (`ps_khat_threshold`; Vehtari et al.
 * 2024, §3.2.4): min(1 − 1/log₁₀ S, 0.7). Above it the PSIS estimate is unreliable. S = 100,
 * 320, 1000 and ≥ 2200 give 0.5, 0.6, 0.67 and 0.7. (loo 2.5.1 and earlier used a fixed 0.7;
 * for S ≤ 10 this rule gives a threshold ≤ 0, i.e. never reliable.)
 *
 * @param s The number of draws S, a positive integer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { psisThreshold } from "./psis.ts";
 * assert.equal(psisThreshold(100), 0.5);
 * assert.equal(psisThreshold(4000), 0.7);
 * ```
 */
export function psisThreshold(s: number): number {
  if (!Number.isInteger(s) || s < 1) {
    throw new RangeError(`s must be a positive integer: got ${s}`);
  }
  return Math.min(1 - 1 / Math.log10(s), 0.7);
}

/**
 * Pareto smoothed importance sampling of log importance ratios (loo 2.5.1's `psis(r_eff = 1)`;
 * see the module documentation for the algorithm).
 *
 * @param logRatios The log importance ratios log p(θ_s)/q(θ_s) (up to a constant), S ≥ 1, all
 *   finite.
 * @returns Normalised log weights in input order, k̂, the tail length M and 1/Σ w².
 *
 * @example Equal ratios give equal weights and no fit (k̂ = ∞, as loo)
 * ```ts
 * import assert from "node:assert/strict";
 * import { psis } from "./psis.ts";
 * const { logWeights, paretoK, essIs } = psis(new Float64Array(100).fill(-3));
 * assert.equal(paretoK, Infinity);
 * assert.ok(logWeights.every((lw) => Math.abs(lw + Math.log(100)) < 1e-12));
 * assert.ok(Math.abs(essIs - 100) < 1e-9);
 * ```
 */
export function psis(logRatios: Float64Array): PsisResult {
  const s = logRatios.length;
  if (s === 0) throw new RangeError("logRatios must hold at least one value: got 0");
  let max = -Infinity;
  for (let i = 0; i < s; i++) {
    const r = logRatios[i];
    if (!Number.isFinite(r)) {
      throw new RangeError(`logRatios must be finite: logRatios[${i}] is ${r}`);
    }
    if (r > max) max = r;
  }
  const tailLength = psisTailLength(s);
  const lw = new Float64Array(s);
  for (let i = 0; i < s; i++) lw[i] = logRatios[i] - max;
  let paretoK = Infinity;

  if (tailLength >= 5) {
    // Stable ascending order (R's radix sort.int with index.return keeps ties in input order).
    const order = Array.from({ length: s }, (_, i) => i).sort((a, b) => lw[a] - lw[b] || a - b);
    const first = s - tailLength;
    const tail = new Float64Array(tailLength);
    for (let i = 0; i < tailLength; i++) tail[i] = lw[order[first + i]];
    if (Math.abs(tail[tailLength - 1] - tail[0]) >= Number.EPSILON / 100) {
      const cutoff = lw[order[first - 1]];
      const smoothed = smoothTail(tail, cutoff);
      paretoK = smoothed.k;
      for (let i = 0; i < tailLength; i++) lw[order[first + i]] = smoothed.tail[i];
    }
  }

  for (let i = 0; i < s; i++) {
    if (lw[i] > 0) lw[i] = 0; // truncate at the largest raw ratio
    lw[i] += max;
  }
  const normaliser = logSumExp(lw);
  let sumSquares = 0;
  for (let i = 0; i < s; i++) {
    lw[i] -= normaliser;
    sumSquares += Math.exp(2 * lw[i]);
  }
  return { logWeights: lw, paretoK, tailLength, essIs: 1 / sumSquares };
}

/** a·b as an unevaluated sum hi + lo (Dekker's product by Veltkamp splitting). */
function twoProduct(a: number, b: number): [number, number] {
  const hi = a * b;
  const split = (v: number): [number, number] => {
    const c = 134217729 * v; // 2^27 + 1
    const big = c - (c - v);
    return [big, v - big];
  };
  const [ah, al] = split(a);
  const [bh, bl] = split(b);
  const lo = ((ah * bh - hi) + ah * bl + al * bh) + al * bl;
  return [hi, lo];
}

/**
 * The weighted upper quantile: the smallest value v with Σ_{s: values_s ≤ v} w_s ≥ p, w the
 * normalised exp(logWeights). Used to predict the maximum of S draws from importance-weighted
 * draws with p = 0.5^(1/S) (the median of the maximum).
 *
 * The weights need not be normalised. The search runs down from the largest value and compares
 * the weight above v with 1 − p (exact for p ≥ 1/2) times the total weight, the product taken
 * exactly; so with equal weights and p > 1 − 1/S the maximum is returned.
 *
 * @param values The draws (no NaN), not modified.
 * @param logWeights Their log weights (no NaN or +∞; −∞ is weight 0; at least one finite).
 * @param p Probability in [0, 1].
 *
 * @example With equal weights, p = 0.5^(1/S) picks the maximum
 * ```ts
 * import assert from "node:assert/strict";
 * import { weightedUpperQuantile } from "./psis.ts";
 * const values = Float64Array.of(3, 9, 1, 4);
 * assert.equal(weightedUpperQuantile(values, new Float64Array(4), 0.5 ** (1 / 4)), 9);
 * assert.equal(weightedUpperQuantile(values, new Float64Array(4), 0.5), 3);
 * ```
 */
export function weightedUpperQuantile(
  values: Float64Array,
  logWeights: Float64Array,
  p: number,
): number {
  const n = values.length;
  if (n === 0) throw new RangeError("values must hold at least one value: got 0");
  if (logWeights.length !== n) {
    throw new RangeError(
      `logWeights must be as long as values (${n}): got ${logWeights.length}`,
    );
  }
  if (!(p >= 0 && p <= 1)) throw new RangeError(`p must be in [0, 1]: got ${p}`);
  let maxLog = -Infinity;
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(values[i])) throw new RangeError(`values must not contain NaN: values[${i}]`);
    const lw = logWeights[i];
    if (Number.isNaN(lw) || lw === Infinity) {
      throw new RangeError(`logWeights must be finite or -Infinity: logWeights[${i}] is ${lw}`);
    }
    if (lw > maxLog) maxLog = lw;
  }
  if (maxLog === -Infinity) {
    throw new RangeError("logWeights must hold at least one finite value: all are -Infinity");
  }
  const weights = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    weights[i] = Math.exp(logWeights[i] - maxLog);
    total += weights[i];
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a] - values[b]);
  // Condition weight(≤ v) ≥ p·total  ⇔  weight(> v) ≤ (1 − p)·total, with the product exact.
  const [bound, boundError] = twoProduct(1 - p, total);
  const fits = (above: number) => above - bound <= boundError;
  let above = 0; // weight of the values strictly greater than the current candidate
  let j = n - 1;
  for (;;) {
    // j indexes the top of a block of tied values; find the block's start.
    let start = j;
    while (start > 0 && values[order[start - 1]] === values[order[j]]) start--;
    if (start === 0) return values[order[0]];
    let block = 0;
    for (let i = start; i <= j; i++) block += weights[order[i]];
    // Can the candidate move down to the next smaller value?
    if (!fits(above + block)) return values[order[j]];
    above += block;
    j = start - 1;
  }
}
