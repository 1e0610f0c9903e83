import assert from "node:assert/strict";
import { erf, factorial, lgamma } from "mathjs";
import { Rng } from "../../src/random/rng.ts";
import {
  sampleBeta,
  sampleGamma,
  sampleLaplace,
  sampleLognormal,
  sampleNegBinomial,
  sampleNormal,
  samplePoisson,
  sampleUniform,
} from "../../src/random/distributions.ts";
import {
  chiSquarePValue,
  chiSquareTest,
  kolmogorovCdfTheta,
  kolmogorovSurvival,
  kolmogorovSurvivalAlternating,
  ksTest,
  momentsWithin,
  regularizedBeta,
  regularizedGammaP,
  regularizedGammaQ,
} from "./_stats.ts";

const P_MIN = 1e-4;

function draws(n: number, seed: number, sampler: (rng: Rng) => number): Float64Array {
  const rng = new Rng(seed);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = sampler(rng);
  return out;
}

function assertMoments(sample: Float64Array, mean: number, variance: number, label: string) {
  const r = momentsWithin(sample, mean, variance);
  assert.ok(r.ok, `${label}: ${r.detail}`);
}

function assertKs(sample: Float64Array, cdf: (x: number) => number, label: string) {
  const fit = ksTest(sample, cdf);
  assert.ok(fit.pValue > P_MIN, `${label}: KS D=${fit.statistic}, p=${fit.pValue}`);
}

function assertChiSquare(
  sample: Float64Array,
  pmf: (k: number) => number,
  first: number,
  label: string,
) {
  const fit = chiSquareTest(sample, pmf, first);
  assert.ok(fit.cells >= 2, `${label}: only ${fit.cells} cell`);
  assert.ok(
    fit.pValue > P_MIN,
    `${label}: chi-square=${fit.statistic} on ${fit.cells - 1} df, p=${fit.pValue}`,
  );
}

const normalCdf = (z: number) => 0.5 * (1 + erf(z / Math.SQRT2));

// ---- The test helpers against independent references ----------------------------------------

// The helpers take ln Γ from mathjs, accurate to about 2e-12 at small arguments (lgamma(½) − ln√π
// ≈ −2e-12), which bounds their accuracy.
const TOL = 1e-10;

Deno.test("`regularizedGammaP()` test helper matches closed forms and mathjs sums", () => {
  for (const x of [0.01, 0.3, 1, 2.5, 7, 30]) {
    // P(1, x) = 1 − e^{−x}; P(½, x) = erf(√x); P(3, x) = 1 − e^{−x}(1 + x + x²/2).
    assert.ok(Math.abs(regularizedGammaP(1, x) - (1 - Math.exp(-x))) < TOL, `a=1, x=${x}`);
    assert.ok(Math.abs(regularizedGammaP(0.5, x) - erf(Math.sqrt(x))) < TOL, `a=0.5 x=${x}`);
    const p3 = 1 - Math.exp(-x) * (1 + x + x * x / 2);
    assert.ok(Math.abs(regularizedGammaP(3, x) - p3) < TOL, `a=3, x=${x}`);
    assert.ok(Math.abs(regularizedGammaQ(1, x) - Math.exp(-x)) <= TOL * Math.exp(-x));
  }
  // Integer a: Q(a, x) = P(Poisson(x) < a) = Σ_{k<a} e^{−x} x^k / k!, terms by recurrence. The
  // helper inherits mathjs lgamma's error at large a (lgamma(100) is off by 1e-10), hence 1e-9.
  for (const [a, x] of [[100, 90], [100, 100], [100, 115], [20, 5]]) {
    let term = Math.exp(-x);
    let q = term;
    for (let k = 1; k < a; k++) {
      term *= x / k;
      q += term;
    }
    assert.ok(Math.abs(regularizedGammaQ(a, x) - q) < 1e-9, `a=${a}, x=${x}`);
  }
});

Deno.test("`regularizedBeta()` test helper matches closed forms and binomial sums", () => {
  for (const x of [0.001, 0.1, 0.37, 0.5, 0.8, 0.999]) {
    assert.ok(Math.abs(regularizedBeta(x, 2.7, 1) - x ** 2.7) < TOL, `I(${x}; 2.7, 1)`);
    const i1b = 1 - (1 - x) ** 0.4;
    assert.ok(Math.abs(regularizedBeta(x, 1, 0.4) - i1b) < TOL, `I(${x}; 1, 0.4)`);
    const arcsine = 2 / Math.PI * Math.asin(Math.sqrt(x));
    assert.ok(Math.abs(regularizedBeta(x, 0.5, 0.5) - arcsine) < TOL, `I(${x}; ½, ½)`);
    // I_x(a, b) = P(Binomial(a + b − 1, x) ≥ a) for integers a, b.
    const [a, b] = [3, 6];
    let tail = 0;
    const n = a + b - 1;
    for (let j = a; j <= n; j++) {
      tail += Number(factorial(n)) / (Number(factorial(j)) * Number(factorial(n - j))) *
        x ** j * (1 - x) ** (n - j);
    }
    assert.ok(Math.abs(regularizedBeta(x, a, b) - tail) < TOL, `I(${x}; 3, 6)`);
  }
  for (const a of [0.3, 7.5, 60]) {
    assert.ok(Math.abs(regularizedBeta(0.5, a, a) - 0.5) < TOL, `I(½; ${a}, ${a})`);
  }
});

Deno.test("`kolmogorovSurvival()` test helper: both series agree and hit the table quantiles", () => {
  for (let t = 0.4; t <= 2.5; t += 0.1) {
    const diff = kolmogorovSurvivalAlternating(t) - (1 - kolmogorovCdfTheta(t));
    assert.ok(Math.abs(diff) < 1e-12, `t=${t}: ${diff}`);
  }
  // Kolmogorov quantiles K_{0.90} = 1.2238, K_{0.95} = 1.3581, K_{0.99} = 1.6276.
  assert.ok(Math.abs(kolmogorovSurvival(1.2238) - 0.10) < 2e-4);
  assert.ok(Math.abs(kolmogorovSurvival(1.3581) - 0.05) < 2e-4);
  assert.ok(Math.abs(kolmogorovSurvival(1.6276) - 0.01) < 2e-4);
});

Deno.test("`chiSquarePValue()` test helper matches closed forms", () => {
  for (const x of [0.5, 3, 12]) {
    // df = 2: e^{−x/2}; df = 1: 1 − erf(√(x/2)); df = 4: e^{−x/2}(1 + x/2).
    assert.ok(Math.abs(chiSquarePValue(x, 2) - Math.exp(-x / 2)) < TOL);
    assert.ok(Math.abs(chiSquarePValue(x, 1) - (1 - erf(Math.sqrt(x / 2)))) < TOL);
    assert.ok(Math.abs(chiSquarePValue(x, 4) - Math.exp(-x / 2) * (1 + x / 2)) < TOL);
  }
});

// ---- Samplers ----------------------------------------------------------------------------------

Deno.test("`sampleUniform()` matches Uniform(a, b) moments and CDF", () => {
  for (const [a, b, seed] of [[0, 1, 1], [-3, 5, 2], [1e6, 1e6 + 0.5, 3]]) {
    const sample = draws(20000, seed, (rng) => sampleUniform(rng, a, b));
    for (const x of sample) assert.ok(x >= a && x <= b);
    assertMoments(sample, (a + b) / 2, (b - a) ** 2 / 12, `U(${a}, ${b})`);
    assertKs(sample, (x) => Math.min(1, Math.max(0, (x - a) / (b - a))), `U(${a}, ${b})`);
  }
});

Deno.test("`sampleNormal()` matches N(mean, sd²) moments and CDF", () => {
  for (const [mean, sd, seed] of [[0, 1, 4], [5, 0.1, 5], [-2, 3, 6]]) {
    const sample = draws(20000, seed, (rng) => sampleNormal(rng, mean, sd));
    assertMoments(sample, mean, sd * sd, `N(${mean}, ${sd})`);
    assertKs(sample, (x) => normalCdf((x - mean) / sd), `N(${mean}, ${sd})`);
  }
  assert.equal(sampleNormal(new Rng(1), 3, 0), 3);
});

Deno.test("`sampleGamma()` matches Gamma(shape, rate) moments and CDF, shape < 1 included", () => {
  const settings = [[0.1, 1], [0.5, 2], [1, 1], [2.5, 0.5], [100, 10]];
  settings.forEach(([shape, rate], i) => {
    const sample = draws(20000, 10 + i, (rng) => sampleGamma(rng, shape, rate));
    const label = `Gamma(${shape}, ${rate})`;
    for (const x of sample) assert.ok(x >= 0 && Number.isFinite(x), `${label}: ${x}`);
    assertMoments(sample, shape / rate, shape / (rate * rate), label);
    assertKs(sample, (x) => regularizedGammaP(shape, rate * x), label);
  });
});

Deno.test("`sampleBeta()` matches Beta(a, b) moments and CDF", () => {
  const settings = [[0.5, 0.5], [2, 5], [0.1, 3], [50, 50], [1, 1]];
  settings.forEach(([a, b], i) => {
    const sample = draws(20000, 20 + i, (rng) => sampleBeta(rng, a, b));
    const label = `Beta(${a}, ${b})`;
    for (const x of sample) assert.ok(x >= 0 && x <= 1, `${label}: ${x}`);
    const s = a + b;
    assertMoments(sample, a / s, a * b / (s * s * (s + 1)), label);
    assertKs(sample, (x) => regularizedBeta(x, a, b), label);
  });
});

Deno.test("`sampleBeta()` stays finite with tiny shapes where both gammas underflow", () => {
  const [a, b] = [0.01, 0.01];
  const sample = draws(20000, 30, (rng) => sampleBeta(rng, a, b));
  for (const x of sample) assert.ok(x >= 0 && x <= 1, `x=${x}`);
  assertMoments(sample, 0.5, 0.25 / (a + b + 1), `Beta(${a}, ${b})`);
});

const poissonPmf = (mean: number) => (k: number) =>
  Math.exp(-mean + k * Math.log(mean) - lgamma(k + 1));

Deno.test("`samplePoisson()` is exact across means 1e-3 to 1e6 (moments and chi-square)", () => {
  const means = [1e-3, 0.7, 3, 9.99, 10, 30, 1000, 1e6];
  means.forEach((mean, i) => {
    const n = mean < 0.01 ? 100000 : 20000;
    const sample = draws(n, 40 + i, (rng) => samplePoisson(rng, mean));
    const label = `Poisson(${mean})`;
    for (const k of sample) assert.ok(Number.isInteger(k) && k >= 0, `${label}: ${k}`);
    assertMoments(sample, mean, mean, label);
    const first = Math.max(0, Math.floor(mean - 12 * Math.sqrt(mean)));
    assertChiSquare(sample, poissonPmf(mean), first, label);
  });
  assert.equal(samplePoisson(new Rng(1), 0), 0);
});

Deno.test("`sampleNegBinomial()` matches NB2(mu, phi) moments and pmf", () => {
  const settings = [[4, 2], [0.5, 0.3], [100, 5], [1000, 50]];
  settings.forEach(([mu, phi], i) => {
    const sample = draws(20000, 50 + i, (rng) => sampleNegBinomial(rng, mu, phi));
    const label = `NB2(${mu}, ${phi})`;
    for (const k of sample) assert.ok(Number.isInteger(k) && k >= 0, `${label}: ${k}`);
    assertMoments(sample, mu, mu + mu * mu / phi, label);
    // pmf: Γ(k + φ)/(Γ(φ) k!) (φ/(φ + μ))^φ (μ/(φ + μ))^k.
    const logP = Math.log(phi / (phi + mu));
    const logQ = Math.log(mu / (phi + mu));
    const pmf = (k: number) =>
      Math.exp(lgamma(k + phi) - lgamma(phi) - lgamma(k + 1) + phi * logP + k * logQ);
    assertChiSquare(sample, pmf, 0, label);
  });
  assert.equal(sampleNegBinomial(new Rng(1), 0, 2), 0);
});

Deno.test("`sampleLognormal()` matches lognormal moments and CDF", () => {
  const settings = [[0, 0.5], [-1, 0.25], [1, 1]];
  settings.forEach(([meanlog, sdlog], i) => {
    const sample = draws(20000, 60 + i, (rng) => sampleLognormal(rng, meanlog, sdlog));
    const label = `Lognormal(${meanlog}, ${sdlog})`;
    const s2 = sdlog * sdlog;
    if (sdlog < 1) {
      // Moments only where the fourth moment is moderate (the SE of s² uses it).
      const variance = Math.expm1(s2) * Math.exp(2 * meanlog + s2);
      assertMoments(sample, Math.exp(meanlog + s2 / 2), variance, label);
    }
    assertKs(sample, (x) => normalCdf((Math.log(x) - meanlog) / sdlog), label);
  });
});

Deno.test("`sampleLaplace()` matches Laplace(location, scale) moments and CDF", () => {
  const settings = [[0, 1], [3, 0.5], [-10, 20]];
  settings.forEach(([location, scale], i) => {
    const sample = draws(20000, 70 + i, (rng) => sampleLaplace(rng, location, scale));
    const label = `Laplace(${location}, ${scale})`;
    assertMoments(sample, location, 2 * scale * scale, label);
    const cdf = (x: number) =>
      x < location
        ? 0.5 * Math.exp((x - location) / scale)
        : 1 - 0.5 * Math.exp(-(x - location) / scale);
    assertKs(sample, cdf, label);
  });
});

Deno.test("samplers reproduce their draws from the same seed", () => {
  const run = () => {
    const rng = new Rng(123, 9);
    return [
      sampleGamma(rng, 0.3, 2),
      sampleBeta(rng, 2, 3),
      samplePoisson(rng, 5e4),
      sampleNegBinomial(rng, 7, 1.5),
      sampleLaplace(rng, 0, 1),
      sampleLognormal(rng, 0, 1),
    ];
  };
  assert.deepEqual(run(), run());
});

Deno.test("samplers reject invalid parameters with a RangeError naming the parameter", () => {
  const rng = new Rng(1);
  const cases: [() => number, RegExp][] = [
    [() => sampleUniform(rng, Number.NaN, 1), /a=NaN/],
    [() => sampleUniform(rng, 0, Infinity), /b=Infinity/],
    [() => sampleUniform(rng, 2, 1), /b=1/],
    [() => sampleNormal(rng, Infinity, 1), /mean=Infinity/],
    [() => sampleNormal(rng, 0, -1), /sd=-1/],
    [() => sampleGamma(rng, 0, 1), /shape=0/],
    [() => sampleGamma(rng, 1, -2), /rate=-2/],
    [() => sampleGamma(rng, Number.NaN, 1), /shape=NaN/],
    [() => sampleBeta(rng, -1, 1), /a=-1/],
    [() => sampleBeta(rng, 1, 0), /b=0/],
    [() => samplePoisson(rng, -0.5), /mean=-0.5/],
    [() => samplePoisson(rng, Infinity), /mean=Infinity/],
    [() => sampleNegBinomial(rng, -1, 1), /mu=-1/],
    [() => sampleNegBinomial(rng, 1, 0), /phi=0/],
    [() => sampleLognormal(rng, Number.NaN, 1), /meanlog=NaN/],
    [() => sampleLognormal(rng, 0, -1), /sdlog=-1/],
    [() => sampleLaplace(rng, Infinity, 1), /location=Infinity/],
    [() => sampleLaplace(rng, 0, 0), /scale=0/],
  ];
  for (const [call, message] of cases) assert.throws(call, { name: "RangeError", message });
});
