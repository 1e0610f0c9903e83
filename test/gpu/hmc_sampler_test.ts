import assert from "node:assert/strict";
import { buildDesign, numericColumn } from "../../src/data/mod.ts";
import { type GpuHmcEvent, sampleGpuHmc } from "../../src/gpu/hmc.ts";
import { summarizeFit } from "../../src/mcmc/fit.ts";
import { createModel, type Model, type Weighting } from "../../src/models/mod.ts";
import { samplePoisson, sampleUniform } from "../../src/random/distributions.ts";
import { Rng } from "../../src/random/rng.ts";
import { NB_DATA, stanSummary } from "../mcmc/_stan_reference.ts";
import { checkMeans } from "./_check_means.ts";
import { announceGpu, gpu, GPU_TEST } from "./_helpers.ts";

announceGpu("the GPU HMC sampler tests", true);

/** An intercept-only Poisson model of n counts (mean 3.5) with weights α_i ~ uniform(0.2, 1). */
function poissonIntercept(n: number): { model: Model; alpha: Float64Array } {
  const rng = new Rng(2718);
  const y = Float64Array.from({ length: n }, () => samplePoisson(rng, 3.5));
  const alpha = Float64Array.from({ length: n }, () => sampleUniform(rng, 0.2, 1));
  const model = createModel("poisson", {
    n,
    k: 1,
    y,
    x: new Float64Array(n).fill(1),
    coefficientNames: ["intercept"],
  });
  return { model, alpha };
}

/**
 * Posterior means of β and σ_β by the trapezoid rule on a grid over the unconstrained
 * (β, log σ_β), from the f64 `model.logDensity` (which includes the log-Jacobian). The records
 * enter through β alone (σ_β only through the prior), so lp(β, s) = lp(β, s₀) + p(β, s) − p(β, s₀)
 * with p the log density of one record weighted 0 (prior and Jacobian): the n records are summed
 * once per β, not once per grid point; the split is checked against `model.logDensity` at the
 * grid's corners and centre.
 */
function quadrature(
  model: Model,
  weighting: Weighting,
  beta: [number, number],
  logSigma: [number, number],
  points: number,
): { intercept: number; sigma_beta_intercept: number } {
  const prior = poissonIntercept(1).model;
  const none = { alpha: new Float64Array(1) };
  const u = new Float64Array(2);
  const at = (i: number, k: number) => {
    u[0] = beta[0] + (beta[1] - beta[0]) * i / points;
    u[1] = logSigma[0] + (logSigma[1] - logSigma[0]) * k / points;
    return u;
  };
  const lp = new Float64Array((points + 1) * (points + 1));
  for (let i = 0; i <= points; i++) {
    const records = model.logDensity(at(i, 0), null, weighting) -
      prior.logDensity(u, null, none);
    for (let k = 0; k <= points; k++) {
      lp[i * (points + 1) + k] = records + prior.logDensity(at(i, k), null, none);
    }
  }
  for (const [i, k] of [[0, 0], [0, points], [points, 0], [points, points], [points >> 1, 7]]) {
    const direct = model.logDensity(at(i, k), null, weighting);
    const split = lp[i * (points + 1) + k];
    assert.ok(
      Math.abs(split - direct) <= 1e-9 * Math.abs(direct),
      `lp(${u}): ${split} ≠ ${direct}`,
    );
  }
  const top = lp.reduce((a, b) => Math.max(a, b), -Infinity);
  let z = 0;
  let eb = 0;
  let es = 0;
  for (let i = 0; i <= points; i++) {
    for (let k = 0; k <= points; k++) {
      const w = (i === 0 || i === points ? 0.5 : 1) * (k === 0 || k === points ? 0.5 : 1) *
        Math.exp(lp[i * (points + 1) + k] - top);
      z += w;
      eb += w * (beta[0] + (beta[1] - beta[0]) * i / points);
      es += w * Math.exp(logSigma[0] + (logSigma[1] - logSigma[0]) * k / points);
    }
  }
  return { intercept: eb / z, sigma_beta_intercept: es / z };
}

Deno.test({
  name: "`sampleGpuHmc()` matches the quadrature posterior of a weighted Poisson intercept, " +
    "with draws read back once per batch",
  ...GPU_TEST,
  fn: async () => {
    const { model, alpha } = poissonIntercept(40);
    const weighting = { alpha };
    const events: GpuHmcEvent[] = [];
    const options = { seed: 5, chains: 64, warmup: 200, draws: 200, batchSize: 50 };
    const result = await sampleGpuHmc(gpu!, model, weighting, {
      ...options,
      onDeviceCall: (event) => events.push(event),
    });
    const fit = summarizeFit(model, result);
    assert.equal(fit.S, 64 * 200);
    const exact = quadrature(model, weighting, [0.3, 2.3], [-5, 9], 500);
    checkMeans(fit, {
      intercept: { mean: exact.intercept, mcse: 0 },
      sigma_beta_intercept: { mean: exact.sigma_beta_intercept, mcse: 0 },
    }, "weighted Poisson");
    assert.ok(result.divergences <= 0.01 * fit.S, `divergences ${result.divergences}`);

    // One submission to start, then one per batch of 50 iterations; the starting points, the end
    // of warmup and each sampling batch are read back once.
    const submissions = events.filter((e) => e === "submit").length;
    const readbacks = events.filter((e) => e === "readback").length;
    assert.equal(submissions, 1 + 200 / 50 + 200 / 50);
    assert.equal(readbacks, 1 + 1 + 200 / 50);
    // Many leapfrog steps per submission: every chain took more steps than there were submissions.
    const leapfrogSteps = result.gradientEvaluations / result.chains - 1;
    assert.ok(leapfrogSteps >= 400, `leapfrog steps ${leapfrogSteps}`);
    assert.ok(leapfrogSteps / submissions >= 40);
  },
});

Deno.test({
  name: "`sampleGpuHmc()` matches the quadrature posterior with censoring over two record tiles",
  ...GPU_TEST,
  fn: async () => {
    // 1100 records: two evaluation tiles, so each leapfrog step is a tiled evaluation and a
    // reduction (indirect dispatches). C = 1.6 clamps the records with the smallest α_i·ℓ_i.
    const { model, alpha } = poissonIntercept(1100);
    const weighting = { alpha, censor: 1.6 };
    const ell = model.logLik(Float64Array.of(Math.log(3.5), 1), new Float64Array(1100));
    const clamped = ell.filter((l, i) => Math.abs(alpha[i] * l) > 1.6).length;
    assert.ok(clamped > 20 && clamped < 300, `clamped records ${clamped}`);
    const result = await sampleGpuHmc(gpu!, model, weighting, {
      seed: 6,
      chains: 64,
      warmup: 100,
      draws: 150,
      batchSize: 50,
      adaptation: { maxLeapfrogSteps: 16 },
    });
    const fit = summarizeFit(model, result);
    const exact = quadrature(model, weighting, [0.9, 1.6], [-5, 9], 300);
    checkMeans(fit, {
      intercept: { mean: exact.intercept, mcse: 0 },
      sigma_beta_intercept: { mean: exact.sigma_beta_intercept, mcse: 0 },
    }, "censored Poisson");
  },
});

for (const fitName of ["weighted", "unweighted"] as const) {
  Deno.test({
    name: `\`sampleGpuHmc()\` posterior means of the NB model match rstan's (${fitName}) ` +
      "within 4 combined MCSE",
    ...GPU_TEST,
    fn: async () => {
      const model = createModel("negbin", buildDesign(NB_DATA, { y: "y" }, "count"));
      const alpha = fitName === "weighted" ? numericColumn(NB_DATA, "alpha") : null;
      const result = await sampleGpuHmc(gpu!, model, { alpha }, {
        seed: 11,
        chains: 64,
        warmup: 100,
        draws: 200,
        batchSize: 100,
      });
      const fit = summarizeFit(model, result);
      assert.equal(fit.divergences, 0);
      const reference: Record<string, { mean: number; mcse: number }> = {};
      for (const name of model.paramNames) {
        const stan = stanSummary(fitName, name);
        reference[name] = { mean: stan.mean, mcse: stan.mcse_mean };
      }
      checkMeans(fit, reference, `NB ${fitName}`);
    },
  });
}

Deno.test({
  name: "`sampleGpuHmc()` is reproducible: the same seed gives the same draws, another seed others",
  ...GPU_TEST,
  fn: async () => {
    const { model, alpha } = poissonIntercept(40);
    const run = (seed: number) =>
      sampleGpuHmc(gpu!, model, { alpha }, { seed, chains: 8, warmup: 30, draws: 20 });
    const [a, b, c] = [await run(1), await run(1), await run(2)];
    assert.deepEqual(a.draws, b.draws);
    assert.deepEqual(a.chainInfo, b.chainInfo);
    assert.notDeepEqual(a.draws, c.draws);
    assert.ok(a.draws.every(Number.isFinite));
  },
});

Deno.test({
  name: "`sampleGpuHmc()` rejects bad options with RangeError",
  ...GPU_TEST,
  fn: async () => {
    const { model } = poissonIntercept(10);
    const weighting = { alpha: null };
    await assert.rejects(sampleGpuHmc(gpu!, model, weighting, { seed: 1, chains: 1 }), RangeError);
    await assert.rejects(sampleGpuHmc(gpu!, model, weighting, { seed: -1 }), RangeError);
    await assert.rejects(
      sampleGpuHmc(gpu!, model, weighting, { seed: 1, adaptation: { targetAcceptance: 1.2 } }),
      RangeError,
    );
  },
});
