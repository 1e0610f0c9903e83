/**
 * Convergence diagnostics of MCMC draws (SPEC §6): rank-normalised split-R̂, bulk and tail
 * effective sample sizes, the ESS and Monte Carlo standard error of the mean.
 *
 * Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021), "Rank-normalization, folding, and
 * localization: an improved R̂ for assessing convergence of MCMC", Bayesian Analysis 16(2).
 * Every function follows the R package `posterior` 1.4.0 (`rhat`, `ess_bulk`, `ess_tail`,
 * `ess_mean`, `mcse_mean` and their helpers `.split_chains`, `z_scale`, `fold_draws`,
 * `autocovariance`, `.ess`, `.rhat`) step by step, so the values agree with it to rounding;
 * test/reference/diagnostics_reference.R records them. Where posterior returns `NA` (a draw
 * is NaN, all draws are equal, or a split chain is shorter than 3) these return NaN. One
 * deliberate difference: posterior ranks ±∞ like any other value in `rhat` and `ess_bulk`,
 * whereas here any non-finite draw gives NaN, so a fit with a broken chain is always flagged.
 *
 * Draws are given per chain: `chains[c][t]` is iteration t of chain c, post-warmup.
 *
 * @module
 */
import { mean } from "../stats/mean.ts";
import { quantile } from "../stats/quantile.ts";
import { normalQuantile } from "../stats/student_t.ts";

/** posterior's `is_constant` tolerance: all draws count as equal when max − min < ε. */
const CONSTANT_TOLERANCE = 2.220446049250313e-16;

/**
 * Checks that `chains` is a non-empty set of equally long, non-empty chains.
 *
 * @returns The number of iterations per chain.
 */
function iterationsOf(chains: readonly Float64Array[]): number {
  if (chains.length === 0) {
    throw new RangeError(`chains must hold at least one chain: got ${chains.length}`);
  }
  const n = chains[0].length;
  if (n === 0) throw new RangeError("chains must hold at least one draw each: chain 0 has 0");
  for (let c = 1; c < chains.length; c++) {
    if (chains[c].length !== n) {
      throw new RangeError(
        `chains must have equal lengths: chain 0 has ${n} draws, chain ${c} has ${
          chains[c].length
        }`,
      );
    }
  }
  return n;
}

/** All draws of all chains in one array, chain 0 first. */
function pool(chains: readonly Float64Array[]): Float64Array {
  const n = chains[0].length;
  const out = new Float64Array(chains.length * n);
  chains.forEach((chain, c) => out.set(chain, c * n));
  return out;
}

/** Applies `f` to every draw, keeping the chain structure. */
function mapChains(
  chains: readonly Float64Array[],
  f: (x: number) => number,
): Float64Array[] {
  return chains.map((chain) => chain.map(f));
}

/** Sample variance with divisor n − 1, two-pass (R's `var`). */
function variance(x: Float64Array): number {
  const m = mean(x);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += (x[i] - m) * (x[i] - m);
  return s / (x.length - 1);
}

/**
 * posterior's `should_return_NA`: some draw is non-finite, or all draws are equal
 * (max − min < machine ε).
 */
function degenerate(chains: readonly Float64Array[]): boolean {
  let lo = Infinity;
  let hi = -Infinity;
  for (const chain of chains) {
    for (let t = 0; t < chain.length; t++) {
      const v = chain[t];
      if (!Number.isFinite(v)) return true;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  return Math.abs(hi - lo) < CONSTANT_TOLERANCE;
}

/**
 * Splits every chain into its first and second half (posterior's `.split_chains`): with N
 * iterations the halves are 1..⌊N/2⌋ and ⌈N/2 + 1⌉..N, so an odd N drops the middle draw.
 * A chain of one iteration is returned unsplit.
 *
 * @param chains Draws per chain, all of equal length.
 * @returns 2·K chains of ⌊N/2⌋ draws (views into the input), first halves then second halves.
 */
export function splitChains(chains: readonly Float64Array[]): Float64Array[] {
  const n = iterationsOf(chains);
  if (n === 1) return [...chains];
  const half = Math.floor(n / 2);
  const secondStart = n - half;
  return [
    ...chains.map((chain) => chain.subarray(0, half)),
    ...chains.map((chain) => chain.subarray(secondStart, n)),
  ];
}

/**
 * Rank normalisation (posterior's `z_scale`, Vehtari et al. 2021 eq. 14): each value is
 * replaced by its rank r among all S values (ties get their average rank) and then by
 * Φ⁻¹((r − 3/8) / (S + 1/4)).
 *
 * @param x Values, all finite.
 * @returns The normal scores, in the order of `x`.
 */
export function rankNormalize(x: Float64Array): Float64Array {
  const S = x.length;
  const order = new Uint32Array(S);
  for (let i = 0; i < S; i++) order[i] = i;
  order.sort((a, b) => x[a] - x[b]);
  const z = new Float64Array(S);
  let start = 0;
  while (start < S) {
    let end = start + 1;
    while (end < S && x[order[end]] === x[order[start]]) end++;
    const rank = (start + 1 + end) / 2; // average of the 1-based ranks start+1 … end
    const score = normalQuantile((rank - 3 / 8) / (S + 1 / 4));
    for (let k = start; k < end; k++) z[order[k]] = score;
    start = end;
  }
  return z;
}

/** Rank-normalises the pooled draws of all chains, keeping the chain structure. */
function rankNormalizeChains(chains: readonly Float64Array[]): Float64Array[] {
  const n = chains[0].length;
  const z = rankNormalize(pool(chains));
  return chains.map((_, c) => z.subarray(c * n, (c + 1) * n));
}

/** In-place iterative radix-2 FFT of (re, im); the length must be a power of 2. */
function fft(re: Float64Array, im: Float64Array): void {
  const L = re.length;
  for (let i = 1, j = 0; i < L; i++) {
    let bit = L >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j], re[i]];
      [im[i], im[j]] = [im[j], im[i]];
    }
  }
  for (let size = 2; size <= L; size <<= 1) {
    const half = size >> 1;
    const step = -2 * Math.PI / size;
    for (let k = 0; k < half; k++) {
      const wr = Math.cos(step * k);
      const wi = Math.sin(step * k);
      for (let start = 0; start < L; start += size) {
        const a = start + k;
        const b = a + half;
        const tr = re[b] * wr - im[b] * wi;
        const ti = re[b] * wi + im[b] * wr;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
      }
    }
  }
}

/**
 * Biased autocovariance at every lag by FFT (posterior's `autocovariance`):
 * γ̂_k = (1/N)·Σ_{t=1}^{N−k} (x_t − x̄)(x_{t+k} − x̄), k = 0 … N − 1, computed as the inverse
 * transform of |FFT(x − x̄, zero-padded)|² rescaled so that γ̂₀ = var(x)·(N − 1)/N.
 * A constant sequence gives all zeros.
 *
 * @param x One chain's draws.
 * @returns γ̂_0 … γ̂_{N−1}.
 */
export function autocovariance(x: Float64Array): Float64Array {
  const N = x.length;
  const out = new Float64Array(N);
  const varx = variance(x);
  if (varx === 0) return out;
  let L = 1;
  while (L < 2 * N) L <<= 1;
  const re = new Float64Array(L);
  const im = new Float64Array(L);
  const m = mean(x);
  for (let t = 0; t < N; t++) re[t] = x[t] - m;
  fft(re, im);
  for (let k = 0; k < L; k++) {
    re[k] = re[k] * re[k] + im[k] * im[k];
    im[k] = 0;
  }
  // The power spectrum is real and even, so the forward transform equals L × the inverse.
  fft(re, im);
  const scale = varx * (N - 1) / N / re[0];
  for (let k = 0; k < N; k++) out[k] = re[k] * scale;
  return out;
}

/**
 * ESS of a set of (already split) chains (posterior's `.ess`, Vehtari et al. 2021 §3.2):
 * ρ̂_t = 1 − (W − mean_c γ̂_{c,t}) / var⁺ with W = mean_c γ̂_{c,0}·N/(N − 1) and
 * var⁺ = W·(N − 1)/N + var(chain means); Geyer's initial positive sequence truncates at the
 * first pair ρ̂_{2k} + ρ̂_{2k+1} < 0, the initial monotone sequence smooths it;
 * τ̂ = −1 + 2·Σ_{t<T} ρ̂_t + ρ̂_T, bounded below by 1/log₁₀(MN); ESS = MN/τ̂.
 */
function essOfSplit(chains: readonly Float64Array[]): number {
  const M = chains.length;
  const N = chains[0].length;
  if (N < 3 || degenerate(chains)) return NaN;
  const acov = new Float64Array(N);
  const chainMeans = new Float64Array(M);
  chains.forEach((chain, c) => {
    const a = autocovariance(chain);
    for (let t = 0; t < N; t++) acov[t] += a[t];
    chainMeans[c] = mean(chain);
  });
  for (let t = 0; t < N; t++) acov[t] /= M;
  const meanVar = acov[0] * N / (N - 1);
  let varPlus = meanVar * (N - 1) / N;
  if (M > 1) varPlus += variance(chainMeans);
  const rho = new Float64Array(N);
  const rhoAt = (t: number) => 1 - (meanVar - acov[t]) / varPlus;
  // Geyer's initial positive sequence
  let t = 0;
  let rhoEven = 1;
  let rhoOdd = rhoAt(1);
  rho[0] = rhoEven;
  rho[1] = rhoOdd;
  while (t < N - 5 && !Number.isNaN(rhoEven + rhoOdd) && rhoEven + rhoOdd > 0) {
    t += 2;
    rhoEven = rhoAt(t);
    rhoOdd = rhoAt(t + 1);
    if (rhoEven + rhoOdd >= 0) {
      rho[t] = rhoEven;
      rho[t + 1] = rhoOdd;
    }
  }
  const maxT = t;
  if (rhoEven > 0) rho[maxT] = rhoEven;
  // Geyer's initial monotone sequence
  t = 0;
  while (t <= maxT - 4) {
    t += 2;
    if (rho[t] + rho[t + 1] > rho[t - 2] + rho[t - 1]) {
      rho[t] = (rho[t - 2] + rho[t - 1]) / 2;
      rho[t + 1] = rho[t];
    }
  }
  // R's sum(rho_hat_t[1:max_t]) is rho[0] alone when max_t = 0 (1:0 indexes element 1).
  let sum = 0;
  for (let k = 0; k < Math.max(maxT, 1); k++) sum += rho[k];
  const total = M * N;
  const tau = Math.max(-1 + 2 * sum + rho[maxT], 1 / Math.log10(total));
  return total / tau;
}

/**
 * Split-R̂ of a set of (already split) chains (posterior's `.rhat`, Gelman et al. BDA3 §11.4):
 * √((B/W + N − 1)/N) with B = N·var(chain means) and W = mean of the chain variances.
 */
function rhatOfSplit(chains: readonly Float64Array[]): number {
  if (degenerate(chains)) return NaN;
  const N = chains[0].length;
  const means = Float64Array.from(chains, mean);
  let within = 0;
  for (const chain of chains) within += variance(chain);
  within /= chains.length;
  const between = N * variance(means);
  return Math.sqrt((between / within + N - 1) / N);
}

/**
 * Rank-normalised split-R̂ (Vehtari et al. 2021 §4.2; posterior's `rhat`): the larger of the
 * bulk R̂ (split-R̂ of the rank-normalised split chains) and the tail R̂ (the same for the
 * folded draws |x − median(x)|).
 *
 * @param chains Post-warmup draws per chain, all of equal length.
 * @returns R̂ (1 at convergence), or NaN for non-finite or constant draws.
 */
export function splitRhat(chains: readonly Float64Array[]): number {
  iterationsOf(chains);
  if (degenerate(chains)) return NaN;
  const bulk = rhatOfSplit(rankNormalizeChains(splitChains(chains)));
  const med = quantile(pool(chains), 0.5);
  const folded = mapChains(chains, (x) => Math.abs(x - med));
  const tail = rhatOfSplit(rankNormalizeChains(splitChains(folded)));
  return Math.max(bulk, tail);
}

/**
 * Bulk effective sample size (Vehtari et al. 2021 §4.3; posterior's `ess_bulk`): the ESS of
 * the rank-normalised split chains.
 *
 * @param chains Post-warmup draws per chain, all of equal length.
 * @returns Bulk ESS, or NaN for non-finite or constant draws or split chains shorter than 3.
 */
export function essBulk(chains: readonly Float64Array[]): number {
  iterationsOf(chains);
  if (degenerate(chains)) return NaN;
  return essOfSplit(rankNormalizeChains(splitChains(chains)));
}

/** ESS of the indicator I(x ≤ Q(p)) on split chains (posterior's `.ess_quantile`). */
function essQuantile(chains: readonly Float64Array[], p: number): number {
  const q = quantile(pool(chains), p);
  return essOfSplit(splitChains(mapChains(chains, (x) => (x <= q ? 1 : 0))));
}

/**
 * Tail effective sample size (Vehtari et al. 2021 §4.3; posterior's `ess_tail`): the smaller
 * of the split-chain ESS of the indicators I(x ≤ Q(0.05)) and I(x ≤ Q(0.95)), Q of type 7.
 *
 * @param chains Post-warmup draws per chain, all of equal length.
 * @returns Tail ESS, or NaN for non-finite or constant draws or split chains shorter than 3.
 */
export function essTail(chains: readonly Float64Array[]): number {
  iterationsOf(chains);
  if (degenerate(chains)) return NaN;
  return Math.min(essQuantile(chains, 0.05), essQuantile(chains, 0.95));
}

/**
 * Effective sample size of the mean (posterior's `ess_mean`): the ESS of the raw split chains,
 * without rank normalisation.
 *
 * @param chains Post-warmup draws per chain, all of equal length.
 * @returns ESS, or NaN for non-finite or constant draws or split chains shorter than 3.
 */
export function essMean(chains: readonly Float64Array[]): number {
  iterationsOf(chains);
  return essOfSplit(splitChains(chains));
}

/**
 * Monte Carlo standard error of the posterior mean (posterior's `mcse_mean`):
 * sd(x)/√ESS_mean, sd over all draws with divisor S − 1.
 *
 * @param chains Post-warmup draws per chain, all of equal length.
 * @returns The MCSE, or NaN where {@linkcode essMean} is NaN.
 */
export function mcseMean(chains: readonly Float64Array[]): number {
  iterationsOf(chains);
  return Math.sqrt(variance(pool(chains))) / Math.sqrt(essMean(chains));
}
