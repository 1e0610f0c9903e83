import assert from "node:assert/strict";
import { Rng } from "../../src/random/rng.ts";
import { sampleNormal, samplePoisson, sampleUniform } from "../../src/random/distributions.ts";
import { mcseMean } from "../../src/mcmc/diagnostics.ts";
import type { LogDensityFn } from "../../src/mcmc/nuts.ts";
import { sample, type SampleResult } from "../../src/mcmc/sample.ts";

// Data from a fixed seed: n counts, n normal outcomes, n weights α_i ∈ (0, 1).
const N = 40;
const dataRng = new Rng(314159);
const COUNTS = Float64Array.from({ length: N }, () => samplePoisson(dataRng, 3.5));
const OUTCOMES = Float64Array.from({ length: N }, () => sampleNormal(dataRng, 1.7, 2));
const ALPHA = Float64Array.from({ length: N }, () => sampleUniform(dataRng, 0, 1));
const ONES = new Float64Array(N).fill(1);

const SAMPLER = { chains: 4, warmup: 500, draws: 1000 };

/** Per-chain arrays of f(draw) for the one coordinate. */
function chainsOf(r: SampleResult, f: (x: number) => number): Float64Array[] {
  return Array.from(
    { length: r.chains },
    (_, c) => r.draws.slice(c * r.drawsPerChain, (c + 1) * r.drawsPerChain).map(f),
  );
}

/** Checks the mean within 4 Monte Carlo standard errors and the sd within 10%. */
function checkPosterior(chains: Float64Array[], mean: number, sd: number, label: string): void {
  const all = chains.flatMap((c) => [...c]);
  const m = all.reduce((s, x) => s + x, 0) / all.length;
  const s = Math.sqrt(all.reduce((acc, x) => acc + (x - m) ** 2, 0) / (all.length - 1));
  const mcse = mcseMean(chains);
  assert.ok(Math.abs(m - mean) < 4 * mcse, `${label}: mean ${m}, exact ${mean}, mcse ${mcse}`);
  assert.ok(Math.abs(s / sd - 1) < 0.1, `${label}: sd ${s}, exact ${sd}`);
}

/**
 * y_i ~ Poisson(λ), λ ~ Gamma(a, b), weighted by α, sampled on u = log λ:
 * log π(u) = Σ α_i (y_i u − e^u) + (a − 1)u − b e^u + u (the Jacobian dλ/du = e^u).
 * Exact: λ | y ~ Gamma(a + Σ α_i y_i, b + Σ α_i).
 */
function poissonGamma(a: number, b: number, alpha: Float64Array): LogDensityFn {
  return (u, g) => {
    const lambda = Math.exp(u[0]);
    let lp = a * u[0] - b * lambda;
    let grad = a - b * lambda;
    for (let i = 0; i < N; i++) {
      lp += alpha[i] * (COUNTS[i] * u[0] - lambda);
      grad += alpha[i] * (COUNTS[i] - lambda);
    }
    g[0] = grad;
    return lp;
  };
}

/**
 * y_i ~ N(θ, σ²) with known σ, θ ~ N(m0, s0²), weighted by α. Exact: θ | y ~ N(m, 1/P) with
 * P = 1/s0² + Σ α_i/σ² and m = (m0/s0² + Σ α_i y_i/σ²)/P.
 */
function normalMean(sigma: number, m0: number, s0: number, alpha: Float64Array): LogDensityFn {
  return (u, g) => {
    const theta = u[0];
    let lp = -0.5 * ((theta - m0) / s0) ** 2;
    let grad = -(theta - m0) / (s0 * s0);
    for (let i = 0; i < N; i++) {
      lp -= 0.5 * alpha[i] * ((OUTCOMES[i] - theta) / sigma) ** 2;
      grad += alpha[i] * (OUTCOMES[i] - theta) / (sigma * sigma);
    }
    g[0] = grad;
    return lp;
  };
}

for (const [label, alpha] of [["unweighted", ONES], ["weighted", ALPHA]] as const) {
  Deno.test(`\`sample()\` recovers the ${label} Poisson–Gamma posterior`, () => {
    const a = 2;
    const b = 0.5;
    const shape = a + COUNTS.reduce((s, y, i) => s + alpha[i] * y, 0);
    const rate = b + alpha.reduce((s, x) => s + x, 0);
    const r = sample(poissonGamma(a, b, alpha), 1, {
      ...SAMPLER,
      seed: 11,
      init: Float64Array.of(Math.log(shape / rate)),
    });
    assert.equal(r.divergences, 0);
    checkPosterior(chainsOf(r, Math.exp), shape / rate, Math.sqrt(shape) / rate, `${label} λ`);
  });

  Deno.test(`\`sample()\` recovers the ${label} normal-mean posterior`, () => {
    const sigma = 2;
    const m0 = -1;
    const s0 = 0.5;
    const precision = 1 / (s0 * s0) + alpha.reduce((s, x) => s + x, 0) / (sigma * sigma);
    const mean = (m0 / (s0 * s0) +
      OUTCOMES.reduce((s, y, i) => s + alpha[i] * y, 0) / (sigma * sigma)) / precision;
    const r = sample(normalMean(sigma, m0, s0, alpha), 1, {
      ...SAMPLER,
      seed: 12,
      init: Float64Array.of(0),
    });
    assert.equal(r.divergences, 0);
    checkPosterior(chainsOf(r, (x) => x), mean, 1 / Math.sqrt(precision), `${label} θ`);
  });
}

Deno.test("`sample()` recovers a weighted two-parameter posterior: Poisson rate and normal mean", () => {
  // Both weighted posteriors at once on (log λ, θ): independent coordinates at different scales,
  // so the metric adaptation and multi-dimensional trajectories are exercised too.
  const pg = poissonGamma(2, 0.5, ALPHA);
  const nm = normalMean(2, -1, 0.5, ALPHA);
  const g1 = new Float64Array(1);
  const u1 = new Float64Array(1);
  const target: LogDensityFn = (u, g) => {
    u1[0] = u[0];
    const a = pg(u1, g1);
    g[0] = g1[0];
    u1[0] = u[1] * 100;
    const b = nm(u1, g1);
    g[1] = g1[0] * 100;
    return a + b;
  };
  const shape = 2 + COUNTS.reduce((s, y, i) => s + ALPHA[i] * y, 0);
  const rate = 0.5 + ALPHA.reduce((s, x) => s + x, 0);
  const precision = 4 + ALPHA.reduce((s, x) => s + x, 0) / 4;
  const mean = (-4 + OUTCOMES.reduce((s, y, i) => s + ALPHA[i] * y, 0) / 4) / precision;
  const r = sample(target, 2, { ...SAMPLER, seed: 13, init: new Float64Array(2) });
  const coordinate = (j: number, f: (x: number) => number) =>
    Array.from({ length: r.chains }, (_, c) =>
      Float64Array.from(
        { length: r.drawsPerChain },
        (_, s) => f(r.draws[(c * r.drawsPerChain + s) * 2 + j]),
      ));
  checkPosterior(coordinate(0, Math.exp), shape / rate, Math.sqrt(shape) / rate, "λ");
  checkPosterior(coordinate(1, (x) => 100 * x), mean, 1 / Math.sqrt(precision), "θ");
});
