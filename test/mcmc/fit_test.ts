import assert from "node:assert/strict";
import { Rng } from "../../src/random/rng.ts";
import { sampleNegBinomial, samplePoisson } from "../../src/random/distributions.ts";
import { mcseMean } from "../../src/mcmc/diagnostics.ts";
import { fitModel, summarizeFit } from "../../src/mcmc/fit.ts";
import { createModel, type Design } from "../../src/models/mod.ts";

function interceptDesign(y: Float64Array): Design {
  return {
    n: y.length,
    k: 1,
    y,
    x: new Float64Array(y.length).fill(1),
    coefficientNames: ["intercept"],
  };
}

Deno.test("`fitModel()` with every α_i = 1 gives exactly the unweighted draws (negbin)", () => {
  const rng = new Rng(2718);
  const n = 60;
  const x = new Float64Array(2 * n);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[2 * i] = 1;
    x[2 * i + 1] = rng.normal();
    y[i] = sampleNegBinomial(rng, Math.exp(1.5 + 0.4 * x[2 * i + 1]), 4);
  }
  const model = createModel("negbin", { n, k: 2, y, x, coefficientNames: ["intercept", "x1"] });
  const options = { seed: 17, chains: 2, warmup: 150, draws: 100 };
  const unweighted = fitModel(model, { alpha: null }, options);
  const ones = fitModel(model, { alpha: new Float64Array(n).fill(1) }, options);
  assert.deepEqual(ones.draws, unweighted.draws);
  assert.deepEqual(ones.summary, unweighted.summary);
  // A different seed gives different draws.
  const other = fitModel(model, { alpha: null }, { ...options, seed: 18 });
  assert.notDeepEqual(other.draws, unweighted.draws);
});

Deno.test("`fitModel()` summarises a Poisson intercept posterior that matches quadrature", () => {
  const rng = new Rng(1618);
  const y = Float64Array.from({ length: 50 }, () => samplePoisson(rng, 4));
  const model = createModel("poisson", interceptDesign(y));
  const fit = fitModel(model, { alpha: null }, { seed: 5, chains: 4, warmup: 400, draws: 500 });

  assert.deepEqual(fit.paramNames, ["intercept", "sigma_beta_intercept"]);
  assert.equal(fit.dim, 2);
  assert.equal(fit.S, 2000);
  assert.equal(fit.draws.length, fit.S * fit.dim);
  assert.equal(fit.chains, 4);
  assert.equal(fit.drawsPerChain, 500);
  assert.equal(fit.divergences, 0);
  assert.equal(fit.stepSizes.length, 4);
  assert.ok(fit.gradientEvaluations > fit.S);
  for (const name of fit.paramNames) {
    const s = fit.summary[name];
    assert.ok(s.sd > 0 && s.q5 < s.mean && s.mean < s.q95, `${name}: ${JSON.stringify(s)}`);
    assert.ok(s.rhat > 0.99 && s.rhat < 1.02, `${name}: rhat ${s.rhat}`);
    assert.ok(s.essBulk > 300 && s.essTail > 200, `${name}: ESS ${s.essBulk}, ${s.essTail}`);
  }
  assert.equal(fit.rhatMax, Math.max(...fit.paramNames.map((p) => fit.summary[p].rhat)));
  assert.equal(fit.essBulkMin, Math.min(...fit.paramNames.map((p) => fit.summary[p].essBulk)));
  assert.equal(fit.flagged, fit.rhatMax > 1.01 || fit.essBulkMin < 400);
  for (let s = 0; s < fit.S; s++) assert.ok(fit.draws[2 * s + 1] > 0);

  // Quantiles are R's type 7 of the stacked draws.
  const beta = Float64Array.from({ length: fit.S }, (_, s) => fit.draws[2 * s]).sort();
  const h = (fit.S - 1) * 0.05;
  const q5 = beta[Math.floor(h)] + (h % 1) * (beta[Math.floor(h) + 1] - beta[Math.floor(h)]);
  assert.ok(Math.abs(fit.summary.intercept.q5 - q5) < 1e-12);

  // Posterior means of β and log σ_β by quadrature of exp(log density) on the unconstrained grid.
  const u = new Float64Array(2);
  const center = Math.log(y.reduce((a, b) => a + b, 0) / y.length);
  const grid = 400;
  const lo = [center - 1.5, -14];
  const step = [3 / grid, 22 / grid];
  const lp = new Float64Array(grid * grid);
  for (let i = 0; i < grid; i++) {
    for (let j = 0; j < grid; j++) {
      u[0] = lo[0] + (i + 0.5) * step[0];
      u[1] = lo[1] + (j + 0.5) * step[1];
      lp[i * grid + j] = model.logDensity(u, null, { alpha: null });
    }
  }
  const top = lp.reduce((a, b) => Math.max(a, b), -Infinity);
  let z = 0;
  let eBeta = 0;
  let eLogSigma = 0;
  for (let i = 0; i < grid; i++) {
    for (let j = 0; j < grid; j++) {
      const w = Math.exp(lp[i * grid + j] - top);
      z += w;
      eBeta += w * (lo[0] + (i + 0.5) * step[0]);
      eLogSigma += w * (lo[1] + (j + 0.5) * step[1]);
    }
  }
  eBeta /= z;
  eLogSigma /= z;
  const perChain = (j: number, f: (v: number) => number) =>
    Array.from({ length: fit.chains }, (_, c) =>
      Float64Array.from(
        { length: fit.drawsPerChain },
        (_, s) => f(fit.draws[(c * fit.drawsPerChain + s) * 2 + j]),
      ));
  const betaChains = perChain(0, (v) => v);
  const logSigmaChains = perChain(1, Math.log);
  const mean = (cs: Float64Array[]) => cs.flatMap((c) => [...c]).reduce((a, b) => a + b) / fit.S;
  assert.ok(Math.abs(fit.summary.intercept.mean - eBeta) < 4 * mcseMean(betaChains));
  assert.ok(Math.abs(mean(logSigmaChains) - eLogSigma) < 4 * mcseMean(logSigmaChains));
});

Deno.test("a fit with a divergent transition is flagged, however good its R̂ and ESS", () => {
  const model = createModel("poisson", interceptDesign(Float64Array.of(3, 4, 5)));
  // Independent draws (R̂ ≈ 1, ESS ≈ S) of (β, σ_β) on the unconstrained scale, 4 chains × 500.
  const rng = new Rng(99);
  const draws = Float64Array.from({ length: 4 * 500 * 2 }, () => rng.normal());
  const result = (divergences: number) =>
    summarizeFit(model, {
      draws,
      dim: 2,
      chains: 4,
      drawsPerChain: 500,
      stepSizes: [0.5, 0.5, 0.5, 0.5],
      divergences,
      treeDepthHits: 0,
      gradientEvaluations: 1,
      chainInfo: [],
    });
  const clean = result(0);
  assert.ok(clean.rhatMax <= 1.01 && clean.essBulkMin >= 400);
  assert.equal(clean.flagged, false);
  assert.equal(result(1).flagged, true);
});
