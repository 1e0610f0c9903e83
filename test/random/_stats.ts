/**
 * Test helpers: goodness-of-fit statistics and the special functions their p-values need
 * (checked against closed forms and mathjs in test/random/distributions_test.ts), and random
 * trials whose seed every failure names.
 *
 * @module
 */
import { lgamma } from "mathjs";
import { Rng } from "../../src/random/rng.ts";

const EPS = 1e-15;
const TINY = 1e-300;

/**
 * Regularized lower incomplete gamma P(a, x) = γ(a, x)/Γ(a): the series
 * Σ xⁿ/(a(a+1)…(a+n)) for x < a + 1, else 1 − Q from the Legendre continued fraction
 * (modified Lentz), as in Numerical Recipes §6.2.
 */
export function regularizedGammaP(a: number, x: number): number {
  if (x <= 0) return 0;
  const logFront = -x + a * Math.log(x) - lgamma(a);
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 100000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * EPS) break;
    }
    return sum * Math.exp(logFront);
  }
  return 1 - continuedFractionQ(a, x) * Math.exp(logFront);
}

/** Regularized upper incomplete gamma Q(a, x) = 1 − P(a, x), computed without cancellation. */
export function regularizedGammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  if (x < a + 1) return 1 - regularizedGammaP(a, x);
  return continuedFractionQ(a, x) * Math.exp(-x + a * Math.log(x) - lgamma(a));
}

function continuedFractionQ(a: number, x: number): number {
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 100000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPS) break;
  }
  return h;
}

/**
 * Regularized incomplete beta I_x(a, b): the library's, checked here against closed forms and
 * binomial sums (and in test/stats/beta_test.ts against R).
 */
export { regularizedIncompleteBeta as regularizedBeta } from "../../src/stats/incomplete_beta.ts";

/** Survival function of the χ² distribution: P(χ²_df > x) = Q(df/2, x/2). */
export function chiSquarePValue(statistic: number, df: number): number {
  return regularizedGammaQ(df / 2, statistic / 2);
}

/**
 * Kolmogorov survival function P(K > t), K = sup|B(s)| of a Brownian bridge:
 * 2Σ_{k≥1}(−1)^{k−1}e^{−2k²t²} for t ≥ 1, else 1 − (√(2π)/t)Σ_{k≥1}e^{−(2k−1)²π²/(8t²)}
 * (the Jacobi-theta form, which converges fast for small t).
 */
export function kolmogorovSurvival(t: number): number {
  if (t <= 0) return 1;
  if (t >= 1) return kolmogorovSurvivalAlternating(t);
  return 1 - kolmogorovCdfTheta(t);
}

/** 2Σ_{k≥1}(−1)^{k−1}e^{−2k²t²}, summed until terms fall below 1e−18. */
export function kolmogorovSurvivalAlternating(t: number): number {
  let sum = 0;
  for (let k = 1; k < 1000; k++) {
    const term = Math.exp(-2 * k * k * t * t);
    sum += k % 2 === 1 ? term : -term;
    if (term < 1e-18) break;
  }
  return Math.min(1, Math.max(0, 2 * sum));
}

/** (√(2π)/t)Σ_{k≥1}e^{−(2k−1)²π²/(8t²)}, summed until terms fall below 1e−18. */
export function kolmogorovCdfTheta(t: number): number {
  let sum = 0;
  for (let k = 1; k < 1000; k++) {
    const j = 2 * k - 1;
    const term = Math.exp(-j * j * Math.PI * Math.PI / (8 * t * t));
    sum += term;
    if (term < 1e-18) break;
  }
  return Math.sqrt(2 * Math.PI) / t * sum;
}

/** A goodness-of-fit result. */
export interface FitTest {
  statistic: number;
  pValue: number;
}

/**
 * One-sample Kolmogorov–Smirnov test: D = sup|F_n − F| over the sorted sample, p-value
 * P(K > (√n + 0.12 + 0.11/√n)·D) (Stephens 1970 small-sample correction of the asymptotic law).
 */
export function ksTest(sample: Float64Array, cdf: (x: number) => number): FitTest {
  const sorted = Float64Array.from(sample).sort();
  const n = sorted.length;
  let d = 0;
  for (let i = 0; i < n; i++) {
    const f = cdf(sorted[i]);
    d = Math.max(d, (i + 1) / n - f, f - i / n);
  }
  const rootN = Math.sqrt(n);
  return { statistic: d, pValue: kolmogorovSurvival((rootN + 0.12 + 0.11 / rootN) * d) };
}

/**
 * Pearson χ² test of integer draws against a pmf. Consecutive values from `first` on are grouped
 * into cells of expected count ≥ `minExpected`; the first cell also takes draws below `first`
 * (choose `first` where the left mass is negligible) and the last cell pools the whole right tail
 * (its probability is 1 minus the others). df = cells − 1.
 */
export function chiSquareTest(
  sample: Float64Array,
  pmf: (k: number) => number,
  first: number,
  minExpected = 20,
): FitTest & { cells: number } {
  const n = sample.length;
  const upper: number[] = [];
  const probs: number[] = [];
  let mass = 0;
  let cellMass = 0;
  for (let k = first; k < first + 1e7; k++) {
    cellMass += pmf(k);
    if (n * (1 - mass - cellMass) < minExpected) break;
    if (n * cellMass >= minExpected) {
      upper.push(k);
      probs.push(cellMass);
      mass += cellMass;
      cellMass = 0;
    }
  }
  probs.push(1 - mass);
  const observed = new Float64Array(probs.length);
  for (let i = 0; i < n; i++) {
    let lo = 0;
    let hi = upper.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sample[i] > upper[mid]) lo = mid + 1;
      else hi = mid;
    }
    observed[lo]++;
  }
  let statistic = 0;
  for (let c = 0; c < probs.length; c++) {
    const expected = n * probs[c];
    statistic += (observed[c] - expected) ** 2 / expected;
  }
  const df = probs.length - 1;
  return { statistic, pValue: chiSquarePValue(statistic, df), cells: probs.length };
}

/**
 * Asserts that the sample mean and variance lie within `z` standard errors of the closed forms:
 * SE(mean) = √(σ²/n) and SE(s²) = √((m₄ − s⁴)/n), with m₄ the sample fourth central moment.
 */
export function momentsWithin(
  sample: Float64Array,
  mean: number,
  variance: number,
  z = 5,
): { ok: boolean; detail: string } {
  const n = sample.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sample[i];
  const m = sum / n;
  let s2 = 0;
  let m4 = 0;
  for (let i = 0; i < n; i++) {
    const d2 = (sample[i] - m) ** 2;
    s2 += d2;
    m4 += d2 * d2;
  }
  s2 /= n - 1;
  m4 /= n;
  const zMean = (m - mean) / Math.sqrt(variance / n);
  const zVar = (s2 - variance) / Math.sqrt(Math.max(m4 - s2 * s2, TINY) / n);
  return {
    ok: Math.abs(zMean) <= z && Math.abs(zVar) <= z,
    detail: `mean=${m} (expected ${mean}, z=${zMean.toFixed(2)}), variance=${s2} ` +
      `(expected ${variance}, z=${zVar.toFixed(2)})`,
  };
}

/**
 * Runs `trials` trials of `body` on one stream whose seed is drawn at random, each given the label
 * `seed <seed>, trial <trial>` for its failure messages (the seed reproduces a failure).
 */
export function randomTrials(
  trials: number,
  body: (rng: Rng, trial: number, label: string) => void,
): void {
  const seed = crypto.getRandomValues(new Uint32Array(1))[0];
  const rng = new Rng(seed);
  for (let trial = 0; trial < trials; trial++) body(rng, trial, `seed ${seed}, trial ${trial}`);
}
