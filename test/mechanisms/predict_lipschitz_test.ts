import assert from "node:assert/strict";
import { calibrateShift, type ShiftPrediction } from "../../src/mechanisms/calibrate.ts";
import { closeIdleWorkers, idleWorkerCount } from "../../src/data/worker_pool.ts";
import { requestStop, stopFlag } from "../../src/data/worker_stop.ts";
import { candidateSummaries } from "../../src/mechanisms/candidate_summaries.ts";
import {
  parallelCandidateSummaries,
  predictFromSummaries,
} from "../../src/mechanisms/predict_lipschitz.ts";
import { createModel } from "../../src/models/mod.ts";
import { Rng } from "../../src/random/rng.ts";

/** Δ(g) = 0.6 + 3.4·e^{4g} (rising with g, log Δ curved), the stand-in for a fit at shift g. */
const lipschitzAt = (g: number) => 0.6 + 3.4 * Math.exp(4 * g);
const OPTIONS = { epsilon: 12, m: 3, shiftForShare: (share: number) => Math.log(share) / 2 };

function search(predicted: ((g: number) => ShiftPrediction) | undefined) {
  const fitted: { g: number; predicted?: ShiftPrediction }[] = [];
  const evaluate = (g: number, p?: ShiftPrediction) => {
    fitted.push({ g, predicted: p });
    return Promise.resolve({ g, lipschitz: lipschitzAt(g) });
  };
  const predict = predicted === undefined
    ? undefined
    : (_: unknown, shifts: number[]) => Promise.resolve(shifts.map(predicted));
  return calibrateShift(evaluate, OPTIONS, predict).then((result) => ({ result, fitted }));
}

Deno.test("trusted predictions replace real refits; the result is still a fitted candidate", async () => {
  const plain = await search(undefined);
  const guided = await search((g) => ({ lipschitz: lipschitzAt(g), paretoK: 0.3, trusted: true }));
  assert.ok(guided.fitted.length < plain.fitted.length, `${guided.fitted.length} fits`);
  // Δ* = 12/6 = 2 (less 4 ulp); the chosen fit is feasible and within the closeness of 3%.
  assert.ok(guided.result.lipschitz <= 2 && guided.result.lipschitz >= 0.97 * 2);
  assert.equal(guided.result.lipschitz, lipschitzAt(guided.result.g));
  // The fit a prediction chose carries that prediction (for the diagnostics).
  const chosen = guided.fitted.find((f) => f.g === guided.result.g)!;
  assert.ok(chosen.predicted?.trusted);
});

Deno.test("an untrusted prediction (high Pareto k) falls back to the real-refit steps", async () => {
  const plain = await search(undefined);
  // Predictions that would be perfect, but flagged untrusted: none may steer the search.
  const untrusted = await search((g) => ({
    lipschitz: lipschitzAt(g),
    paretoK: 1.4,
    trusted: false,
  }));
  assert.deepEqual(untrusted.fitted.map((f) => f.g), plain.fitted.map((f) => f.g));
  assert.ok(untrusted.fitted.every((f) => f.predicted === undefined));
  assert.equal(untrusted.result.g, plain.result.g);
});

Deno.test("a prediction for the fit's own weights is its Δ; far weights are untrusted", () => {
  const rng = new Rng(5);
  const n = 400;
  const y = Float64Array.from({ length: n }, () => Math.round(50 + 30 * rng.uniform()));
  const model = createModel("poisson", {
    n,
    k: 1,
    y,
    x: new Float64Array(n).fill(1),
    coefficientNames: ["intercept"],
  });
  // Draws of the intercept around log(mean y) with the posterior sd of the unweighted fit.
  const S = 1000;
  const mean = Math.log(y.reduce((s, v) => s + v, 0) / n);
  const draws = new Float64Array(S * model.dim);
  for (let s = 0; s < S; s++) {
    draws[s * model.dim] = mean + rng.normal() / Math.sqrt(65 * n);
    draws[s * model.dim + 1] = 1;
  }
  const same = new Float64Array(n).fill(1);
  // Down-weighting the larger half of the counts moves the posterior ~20 sd below these draws.
  const far = Float64Array.from(y, (v) => (v > 65 ? 0.01 : 1));
  const { logRatios, maxima } = candidateSummaries(model, draws, null, [same, far]);
  const own = predictFromSummaries(logRatios[0], maxima[0]);
  assert.equal(own.lipschitz, Math.max(...maxima[0]));
  assert.equal(own.trusted, true);
  const moved = predictFromSummaries(logRatios[1], maxima[1]);
  assert.ok(moved.paretoK > 0.7, `k = ${moved.paretoK}`);
  assert.equal(moved.trusted, false);
});

Deno.test("candidate summaries equal Σ (α₁ − α₀)·ℓ and max α₁|ℓ| per draw, dropped records included", () => {
  const n = 5;
  const y = Float64Array.of(3, 8, 1, 12, 5);
  const model = createModel("poisson", {
    n,
    k: 1,
    y,
    x: new Float64Array(n).fill(1),
    coefficientNames: ["intercept"],
  });
  const draws = Float64Array.of(1.2, 1, 1.9, 1, 1.5, 1);
  const base = Float64Array.of(1, 0.5, 0.8, 1, 0.2);
  const candidate = Float64Array.of(0, 0.5, 1, 0.3, 0);
  const { logRatios, maxima } = candidateSummaries(model, draws, base, [candidate]);
  const ell = new Float64Array(n);
  for (let s = 0; s < 3; s++) {
    model.logLik(draws.subarray(2 * s, 2 * s + 2), ell);
    const ratio = ell.reduce((sum, l, i) => sum + (candidate[i] - base[i]) * l, 0);
    const max = Math.max(...ell.map((l, i) => Math.abs(candidate[i] * l)));
    assert.ok(Math.abs(logRatios[0][s] - ratio) < 1e-12 * (1 + Math.abs(ratio)), `draw ${s}`);
    assert.equal(maxima[0][s], max);
  }
});

const PREDICT_WORKER = new URL("../../src/mechanisms/predict_worker.ts", import.meta.url);

Deno.test({
  name:
    "the summaries in workers give the serial bits; a stopped pass rejects and ends its workers",
  ignore: navigator.hardwareConcurrency < 2,
  async fn() {
    closeIdleWorkers();
    // 1,000 records × 10,000 draws: the 10⁷ evaluations from which the pass uses workers.
    const n = 1000;
    const S = 10_000;
    const rng = new Rng(9);
    const model = createModel("poisson", {
      n,
      k: 1,
      y: Float64Array.from({ length: n }, () => Math.floor(20 * rng.uniform())),
      x: new Float64Array(n).fill(1),
      coefficientNames: ["intercept"],
    });
    const draws = new Float64Array(S * model.dim);
    for (let s = 0; s < S; s++) draws.set([2.2 + 0.1 * rng.normal(), 1], s * model.dim);
    const base = Float64Array.from({ length: n }, (_, i) => 0.5 + (i % 3) / 4);
    const candidates = [new Float64Array(n).fill(1), Float64Array.from(base, (a) => a / 2)];
    const serial = candidateSummaries(model, draws, base, candidates);
    assert.deepEqual(await parallelCandidateSummaries(model, draws, base, candidates), serial);
    const controller = new AbortController();
    const stopped = parallelCandidateSummaries(model, draws, base, candidates, controller.signal);
    controller.abort(new Error("the synthesis was stopped"));
    await assert.rejects(stopped, /the synthesis was stopped/);
    assert.equal(idleWorkerCount(PREDICT_WORKER), 0, "a stopped share's worker is never kept");
    // The share loop reads the flag its job carries once a draw (set before the worker is ended).
    const stop = stopFlag();
    requestStop(stop);
    assert.throws(
      () => candidateSummaries(model, draws, base, candidates, stop),
      /the work was stopped/,
    );
    closeIdleWorkers();
  },
});
