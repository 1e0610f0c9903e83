/**
 * Special functions for the model log densities (SPEC §5) and the distributions of `src/stats`:
 * log-gamma, digamma, their differences at a shifted argument, and stable logistic helpers.
 *
 * All functions take and return plain f64 numbers (the two table functions fill a given
 * Float64Array) and allocate nothing, so they can sit in the per-record hot loop of a log density.
 *
 * @module
 */

/** ½·log(2π), the normal density's normalising constant on the log scale. */
export const HALF_LOG_2PI = 0.9189385332046727;

/** Lanczos coefficients for g = 7, n = 9 (Godfrey's set). */
const LANCZOS_G = 7;
const L0 = 0.99999999999980993;
const L1 = 676.5203681218851;
const L2 = -1259.1392167224028;
const L3 = 771.32342877765313;
const L4 = -176.61502916214059;
const L5 = 12.507343278686905;
const L6 = -0.13857109526572012;
const L7 = 9.9843695780195716e-6;
const L8 = 1.5056327351493116e-7;

/** At and above this argument log-gamma and digamma use their asymptotic series. */
const ASYMPTOTIC_FROM = 10;

/** log Γ(x) by the Lanczos approximation, for x ≥ 0.5. */
function lanczosLgamma(x: number): number {
  const z = x - 1;
  const a = L0 + L1 / (z + 1) + L2 / (z + 2) + L3 / (z + 3) + L4 / (z + 4) + L5 / (z + 5) +
    L6 / (z + 6) + L7 / (z + 7) + L8 / (z + 8);
  const t = z + LANCZOS_G + 0.5;
  return HALF_LOG_2PI + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/**
 * Stirling's remainder δ(x) = log Γ(x) − [(x − ½)·log x − x + ½·log 2π]
 * = Σ_k B_2k / (2k(2k−1)·x^(2k−1)), truncated after x⁻¹³ (error < 1e-17 for x ≥ 10).
 */
function stirlingRemainder(x: number): number {
  return stirlingRemainderWith(x, 1 / (x * x));
}

/** {@link stirlingRemainder} given r = 1/x². */
function stirlingRemainderWith(x: number, r: number): number {
  return (1 / 12 -
    r * (1 / 360 -
        r * (1 / 1260 - r * (1 / 1680 - r * (1 / 1188 - r * (691 / 360360 - r / 156)))))) / x;
}

/**
 * Σ_k B_2k / (2k·x^(2k)) truncated after x⁻¹⁴, so that ψ(x) = log x − 1/(2x) − this
 * (error < 1e-16 for x ≥ 10).
 */
function digammaSeries(x: number): number {
  return digammaSeriesWith(1 / (x * x));
}

/** {@link digammaSeries} given r = 1/x². */
function digammaSeriesWith(r: number): number {
  return r * (1 / 12 -
    r * (1 / 120 -
        r * (1 / 252 - r * (1 / 240 - r * (1 / 132 - r * (691 / 32760 - r / 12))))));
}

/**
 * log|Γ(x)|.
 *
 * Stirling's series with remainder through x⁻¹³ for x ≥ 10, the Lanczos approximation
 * (g = 7, n = 9) on [0.5, 10), log Γ(x) = log Γ(x+1) − log x on (0, 0.5), and the reflection
 * formula log|Γ(x)| = log(π/|sin πx|) − log Γ(1−x) for negative non-integers. Relative error
 * about 1e-15 away from the zeros at 1 and 2 (absolute error about 1e-16 there).
 *
 * @param x the argument; +∞ at 0 and the negative integers, NaN for NaN.
 * @returns log|Γ(x)|.
 * @example Γ(1/2) = √π
 * ```ts
 * import assert from "node:assert/strict";
 * import { lgamma } from "./special.ts";
 * assert.ok(Math.abs(lgamma(0.5) - 0.5 * Math.log(Math.PI)) < 1e-15);
 * ```
 */
export function lgamma(x: number): number {
  if (x >= ASYMPTOTIC_FROM) {
    return (x - 0.5) * (Math.log(x) - 1) - 0.5 + HALF_LOG_2PI + stirlingRemainder(x);
  }
  if (x >= 0.5) return lanczosLgamma(x);
  if (x > 0) return lanczosLgamma(x + 1) - Math.log(x);
  if (Number.isNaN(x)) return NaN;
  if (Number.isInteger(x) || x === -Infinity) return Infinity;
  return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lgamma(1 - x);
}

/**
 * The digamma function ψ(x) = d/dx log Γ(x).
 *
 * Recurrence ψ(x) = ψ(x+1) − 1/x up to x ≥ 10, then the asymptotic series
 * ψ(x) = log x − 1/(2x) − Σ_k B_2k/(2k·x^(2k)) through x⁻¹⁴; the reflection formula
 * ψ(x) = ψ(1−x) − π/tan(πx) for negative non-integers. Absolute error about 1e-15.
 *
 * @param x the argument; NaN at 0 and the negative integers.
 * @returns ψ(x).
 * @example ψ(1) = −γ (Euler–Mascheroni)
 * ```ts
 * import assert from "node:assert/strict";
 * import { digamma } from "./special.ts";
 * assert.ok(Math.abs(digamma(1) + 0.5772156649015329) < 1e-15);
 * ```
 */
export function digamma(x: number): number {
  if (!(x > 0)) {
    if (Number.isNaN(x) || Number.isInteger(x) || x === -Infinity) return NaN;
    return digamma(1 - x) - Math.PI / Math.tan(Math.PI * x);
  }
  let shift = 0;
  while (x < ASYMPTOTIC_FROM) {
    shift -= 1 / x;
    x += 1;
  }
  return shift + Math.log(x) - 0.5 / x - digammaSeries(x);
}

/**
 * The log rising factorial log[Γ(a+y)/Γ(a)] for a > 0, y ≥ 0, without the cancellation of
 * lgamma(a+y) − lgamma(a) at large a.
 *
 * For a ≥ 10 it uses Stirling's formula on both terms:
 * (a − ½)·log1p(y/a) + y·log(a+y) − y + δ(a+y) − δ(a), with δ Stirling's remainder;
 * below that the plain difference, which is accurate there.
 *
 * @param a the base, a > 0 (the negative binomial dispersion φ).
 * @param y the shift, y ≥ 0 (a count).
 * @returns log Γ(a+y) − log Γ(a).
 * @example log Γ(a+1)/Γ(a) = log a
 * ```ts
 * import assert from "node:assert/strict";
 * import { logPochhammer } from "./special.ts";
 * assert.ok(Math.abs(logPochhammer(1e12, 1) - Math.log(1e12)) < 1e-14 * Math.log(1e12));
 * ```
 */
export function logPochhammer(a: number, y: number): number {
  return logPochhammerWith(a, y, pochhammerBase(a));
}

/** The term of {@link logPochhammer} in a alone: log Γ(a) below 10, δ(a) from there. */
function pochhammerBase(a: number): number {
  return a < ASYMPTOTIC_FROM ? lgamma(a) : stirlingRemainder(a);
}

/** {@link logPochhammer} given its term in a alone, `base` = pochhammerBase(a). */
function logPochhammerWith(a: number, y: number, base: number): number {
  if (a < ASYMPTOTIC_FROM) return lgamma(a + y) - base;
  const b = a + y;
  return (a - 0.5) * Math.log1p(y / a) + y * (Math.log(b) - 1) + (stirlingRemainder(b) - base);
}

/**
 * out[t] = {@link logPochhammer}(a, y[t]) for every shift, bit for bit, with the term in a alone
 * computed once (the negative binomial's table over its distinct counts at one φ).
 *
 * @param a the base, a > 0.
 * @param y the shifts, y[t] ≥ 0.
 * @param out where the values go (length of y).
 */
export function logPochhammers(a: number, y: Float64Array, out: Float64Array): void {
  const base = pochhammerBase(a);
  for (let t = 0; t < y.length; t++) out[t] = logPochhammerWith(a, y[t], base);
}

/**
 * Both tables of the negative binomial at one φ = a: lp[t] = {@link logPochhammer}(a, y[t]) and
 * dd[t] = {@link digammaDiff}(a, y[t]), bit for bit. Where a < 10 ≤ a + y[t], log Γ(a+y) and
 * ψ(a+y) share their logarithm and 1/(a+y)² (one log instead of two); the values are those of
 * {@link lgamma} and {@link digamma}, whose expressions are evaluated in the same order.
 *
 * @param a the base, a > 0.
 * @param y the shifts, y[t] ≥ 0.
 * @param lp where the log rising factorials go.
 * @param dd where the digamma differences go.
 */
export function logPochhammersAndDigammaDiffs(
  a: number,
  y: Float64Array,
  lp: Float64Array,
  dd: Float64Array,
): void {
  if (!(a < ASYMPTOTIC_FROM)) {
    logPochhammers(a, y, lp);
    digammaDiffs(a, y, dd);
    return;
  }
  const lgA = lgamma(a);
  const psiA = digamma(a);
  for (let t = 0; t < y.length; t++) {
    const b = a + y[t];
    if (b >= ASYMPTOTIC_FROM) {
      const logB = Math.log(b);
      const r = 1 / (b * b);
      lp[t] = (b - 0.5) * (logB - 1) - 0.5 + HALF_LOG_2PI + stirlingRemainderWith(b, r) - lgA;
      dd[t] = logB - 0.5 / b - digammaSeriesWith(r) - psiA;
    } else {
      lp[t] = lgamma(b) - lgA;
      dd[t] = digamma(b) - psiA;
    }
  }
}

/**
 * The digamma difference ψ(a+y) − ψ(a) for a > 0, y ≥ 0, without the cancellation of the
 * plain difference at large a.
 *
 * For a ≥ 10 it subtracts the asymptotic series term by term:
 * log1p(y/a) + y/(2a(a+y)) − [S(a+y) − S(a)], with S the series of {@link digamma};
 * below that the plain difference.
 *
 * @param a the base, a > 0.
 * @param y the shift, y ≥ 0.
 * @returns ψ(a+y) − ψ(a).
 * @example ψ(a+1) − ψ(a) = 1/a
 * ```ts
 * import assert from "node:assert/strict";
 * import { digammaDiff } from "./special.ts";
 * assert.ok(Math.abs(digammaDiff(1e9, 1) - 1e-9) < 1e-22);
 * ```
 */
export function digammaDiff(a: number, y: number): number {
  return digammaDiffWith(a, y, digammaBase(a));
}

/** The term of {@link digammaDiff} in a alone: ψ(a) below 10, S(a) from there. */
function digammaBase(a: number): number {
  return a < ASYMPTOTIC_FROM ? digamma(a) : digammaSeries(a);
}

/** {@link digammaDiff} given its term in a alone, `base` = digammaBase(a). */
function digammaDiffWith(a: number, y: number, base: number): number {
  if (a < ASYMPTOTIC_FROM) return digamma(a + y) - base;
  const b = a + y;
  return Math.log1p(y / a) + (0.5 * y) / (a * b) + (base - digammaSeries(b));
}

/**
 * out[t] = {@link digammaDiff}(a, y[t]) for every shift, bit for bit, with the term in a alone
 * computed once.
 *
 * @param a the base, a > 0.
 * @param y the shifts, y[t] ≥ 0.
 * @param out where the values go (length of y).
 */
export function digammaDiffs(a: number, y: Float64Array, out: Float64Array): void {
  const base = digammaBase(a);
  for (let t = 0; t < y.length; t++) out[t] = digammaDiffWith(a, y[t], base);
}

/**
 * log(1 + eˣ) without overflow or loss of precision: x + log1p(e⁻ˣ) for x > 0,
 * log1p(eˣ) otherwise.
 *
 * @param x any real.
 * @returns log(1 + eˣ).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { log1pExp } from "./special.ts";
 * assert.equal(log1pExp(1000), 1000);
 * assert.equal(log1pExp(-1000), 0);
 * ```
 */
export function log1pExp(x: number): number {
  return x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x));
}

/**
 * The logistic function 1/(1 + e⁻ˣ), evaluated without overflow on either side.
 *
 * @param x any real.
 * @returns logit⁻¹(x) in [0, 1].
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sigmoid } from "./special.ts";
 * assert.equal(sigmoid(0), 0.5);
 * ```
 */
export function sigmoid(x: number): number {
  if (x >= 0) return 1 / (1 + Math.exp(-x));
  const e = Math.exp(x);
  return e / (1 + e);
}
