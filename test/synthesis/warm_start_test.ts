import assert from "node:assert/strict";
import { readCsv } from "../../src/data/csv.ts";
import { buildDesign } from "../../src/data/design.ts";
import { createModel } from "../../src/models/mod.ts";
import { FitCache, fitter, WARM_START_SKIPPED } from "../../src/synthesis/release.ts";

const DATA = await readCsv(new URL("../../examples/skewed_counts.csv", import.meta.url).pathname);
const MODEL = createModel("negbin", buildDesign(DATA, { y: "y" }, "count"));
const N = MODEL.design.n;
const SAMPLER = { seed: 3, chains: 4, warmup: 400, drawsPerChain: 400, inThread: true };

/**
 * The fits of {@link SAMPLER} that tests make alike (the unweighted fit of the first test is the
 * reference of another): a fitter with this cache makes each once (issue 36).
 */
const SHARED = new FitCache();
const SHARED_SCOPE = SHARED.scope(DATA, { model: "negbin", x: [] });

/** A fitter of {@link MODEL} with {@link SAMPLER}, sharing its fits through {@link SHARED}. */
function sharedFitter() {
  return fitter(MODEL, { ...SAMPLER, cache: { fits: SHARED, scope: SHARED_SCOPE } });
}

Deno.test("a refit starts warm with the short warmup and agrees with a cold fit", async () => {
  const fit = sharedFitter();
  const alpha = new Float64Array(N).fill(0.6);
  await fit({ alpha: null }, "unweighted");
  const warm = await fit({ alpha }, "sw");
  const cold = await fitter(MODEL, SAMPLER)({ alpha }, "sw");
  assert.equal(warm.setup.warmStart, true, warm.setup.warmStartRejected ?? "");
  assert.equal(warm.warmup, 250);
  assert.equal(warm.setup.precondition, "draws");
  assert.equal(cold.setup.precondition, "laplace");
  assert.ok(warm.gradientEvaluations < cold.gradientEvaluations);
  for (const name of MODEL.paramNames) {
    const [w, c] = [warm.summary[name], cold.summary[name]];
    const se = Math.hypot(w.sd / Math.sqrt(w.essBulk), c.sd / Math.sqrt(c.essBulk));
    assert.ok(Math.abs(w.mean - c.mean) < 4 * se, `${name}: ${w.mean} vs ${c.mean} (se ${se})`);
  }
});

Deno.test("a short warmup whose diagnostics fail is discarded for a cold refit, its cost counted", async () => {
  // One warmup iteration and weights that widen the posterior 20-fold: the step size and the
  // metric of the narrow fit cannot serve, and the diagnostics say so.
  const fit = fitter(MODEL, { ...SAMPLER, warmStartWarmup: 1 });
  const first = await fit({ alpha: null }, "unweighted");
  const refit = await fit({ alpha: new Float64Array(N).fill(0.05) }, "sw");
  assert.equal(refit.setup.warmStart, undefined);
  assert.match(refit.setup.warmStartRejected ?? "", /R-hat|ESS|divergent|step sizes/);
  assert.equal(refit.warmup, 400);
  assert.ok(refit.setup.setupEvaluations > 0);
  assert.ok(refit.gradientEvaluations > first.gradientEvaluations * 0.5);
});

Deno.test("a refit after a fit that diverged starts cold at once: no warm attempt is run and discarded", async () => {
  // The normal model's coefficient prior on an unscaled score (api00 ≈ 650) with a quarter of
  // the data's weight: the σ_β funnel makes NUTS diverge.
  const data = await readCsv(new URL("../../examples/apistrat.csv", import.meta.url).pathname);
  const model = createModel("normal", buildDesign(data, { y: "api00", x: ["stype"] }, "real"));
  const n = model.design.n;
  const sampler = { seed: 1, chains: 4, warmup: 300, drawsPerChain: 300, inThread: true };
  const alpha = new Float64Array(n).fill(0.2);
  const fit = fitter(model, sampler);
  const first = await fit({ alpha: new Float64Array(n).fill(0.25) }, "lw");
  assert.ok(first.divergences > 0);
  const refit = await fit({ alpha }, "lw");
  const cold = await fitter(model, sampler)({ alpha }, "lw");
  assert.equal(refit.setup.warmStart, undefined);
  assert.equal(refit.setup.warmStartRejected, WARM_START_SKIPPED);
  assert.equal(refit.warmup, 300);
  // Exactly the cold fit's cost and draws: nothing was spent on an attempt.
  assert.equal(refit.gradientEvaluations, cold.gradientEvaluations);
  assert.deepEqual(refit.draws, cold.draws);
});

Deno.test("a fit flagged without divergences (50 draws: ESS < 400) still lets its successor try a warm start", async () => {
  const sampler = { ...SAMPLER, drawsPerChain: 50 };
  const alpha = new Float64Array(N).fill(0.6);
  const fit = fitter(MODEL, sampler);
  const first = await fit({ alpha: null }, "unweighted");
  assert.equal(first.flagged, true);
  assert.equal(first.divergences, 0);
  const refit = await fit({ alpha }, "sw");
  const cold = await fitter(MODEL, sampler)({ alpha }, "sw");
  assert.notEqual(refit.setup.warmStartRejected, WARM_START_SKIPPED);
  // The attempt ran (kept, or discarded with its cost counted).
  assert.ok(refit.setup.warmStart === true || refit.gradientEvaluations > cold.gradientEvaluations);
});

Deno.test("an unmixed fit without divergences is run on from its own end when asked; the longer run replaces it when it passes", async () => {
  // 4 × 120 draws: bulk ESS or R̂ fails; run on with twice the iterations per kept draw, it
  // passes (seed 1), with the same S and the first run's cost counted.
  const sampler = { ...SAMPLER, drawsPerChain: 120, seed: 1 };
  const first = await fitter(MODEL, sampler)({ alpha: null }, "unweighted");
  assert.equal(first.flagged, true);
  assert.equal(first.divergences, 0);
  assert.equal(first.setup.continuedAfter, undefined);
  const run = await fitter(MODEL, { ...sampler, continueUnmixed: true })({ alpha: null }, "x");
  assert.equal(run.setup.continuedAfter, `R-hat ${first.rhatMax.toFixed(4)}`);
  assert.equal(run.flagged, false);
  assert.equal(run.warmup, 250);
  assert.equal(run.S, first.S);
  assert.ok(run.setup.setupEvaluations >= first.gradientEvaluations);
  const reference = await sharedFitter()({ alpha: null }, "unweighted");
  for (const name of MODEL.paramNames) {
    const [c, r] = [run.summary[name], reference.summary[name]];
    const se = Math.hypot(c.sd / Math.sqrt(c.essBulk), r.sd / Math.sqrt(r.essBulk));
    assert.ok(Math.abs(c.mean - r.mean) < 4 * se, `${name}: ${c.mean} vs ${r.mean} (se ${se})`);
  }
});

Deno.test("an unmixed fit whose continuation fails too stands, flagged, with the continuation's cost", async () => {
  // 4 × 80 draws: the longer run's bulk ESS is still under 400.
  const sampler = { ...SAMPLER, drawsPerChain: 80, seed: 2 };
  const first = await fitter(MODEL, sampler)({ alpha: null }, "unweighted");
  const run = await fitter(MODEL, { ...sampler, continueUnmixed: true })({ alpha: null }, "x");
  assert.equal(run.flagged, true);
  assert.equal(run.setup.continuedAfter, undefined);
  assert.deepEqual(run.draws, first.draws);
  assert.ok(run.gradientEvaluations > 1.5 * first.gradientEvaluations);
});

Deno.test("a FitCache hands a fitter of the same scope the fits made for the same weights' bytes; other bytes are fitted, warm-started as without it", async () => {
  const sampler = { seed: 5, chains: 2, warmup: 300, drawsPerChain: 100, inThread: true };
  const fits = new FitCache();
  const scope = fits.scope(DATA, { model: "negbin", x: [] });
  assert.equal(fits.scope(DATA, { x: [], model: "negbin" }), scope);
  assert.notEqual(fits.scope(DATA, { model: "poisson", x: [] }), scope);
  assert.notEqual(fits.scope({ ...DATA }, { model: "negbin", x: [] }), scope);
  const alpha = new Float64Array(N).fill(0.6);
  const first = fitter(MODEL, { ...sampler, cache: { fits, scope } });
  const unweighted = await first({ alpha: null }, "unweighted");
  const weighted = await first({ alpha }, "sw");
  const second = fitter(MODEL, { ...sampler, cache: { fits, scope } });
  assert.equal(await second({ alpha: null }, "unweighted"), unweighted);
  assert.equal(await second({ alpha: alpha.slice() }, "sw"), weighted);
  assert.deepEqual([fits.hits, fits.misses], [2, 2]);
  // One weight a unit in the last place lower: a miss, fitted as a fitter without the cache fits
  // it after the same two fits (warm-started from the shared one).
  const nudged = alpha.slice();
  new BigUint64Array(nudged.buffer)[0] -= 1n;
  assert.notEqual(nudged[0], alpha[0]);
  const refit = await second({ alpha: nudged }, "sw");
  assert.deepEqual([fits.hits, fits.misses], [2, 3]);
  const plain = fitter(MODEL, sampler);
  await plain({ alpha: null }, "unweighted");
  await plain({ alpha }, "sw");
  const expected = await plain({ alpha: nudged }, "sw");
  assert.notEqual(refit, weighted);
  assert.deepEqual(refit.draws, expected.draws);
  assert.equal(refit.setup.warmStart, expected.setup.warmStart);
  // Another scope (another model, data or settings) shares nothing.
  const other = fitter(MODEL, { ...sampler, cache: { fits, scope: `${scope} other` } });
  assert.notEqual(await other({ alpha: null }, "unweighted"), unweighted);
  assert.deepEqual([fits.hits, fits.misses], [2, 4]);
});
