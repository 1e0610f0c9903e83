import assert from "node:assert/strict";
import { readCsv } from "../../src/data/csv.ts";
import { buildDesign } from "../../src/data/design.ts";
import { type Fit, fitModel } from "../../src/mcmc/fit.ts";
import { CalibrationError } from "../../src/mechanisms/calibrate.ts";
import { cpuLipschitz } from "../../src/mechanisms/lipschitz_backend.ts";
import type { MechanismName, MechanismSettings } from "../../src/mechanisms/mechanism.ts";
import { lipschitz } from "../../src/mechanisms/lipschitz.ts";
import { predictLipschitz } from "../../src/mechanisms/predict_lipschitz.ts";
import { pseudoPosteriorPrivacy } from "../../src/mechanisms/privacy.ts";
import { runMechanism } from "../../src/mechanisms/run_mechanism.ts";
import { createModel } from "../../src/models/mod.ts";
import type { Weighting } from "../../src/models/model.ts";
import { FitCache, fitter } from "../../src/synthesis/release.ts";

const DATA = await readCsv(new URL("../../examples/skewed_counts.csv", import.meta.url).pathname);
const MODEL = createModel("negbin", buildDesign(DATA, { y: "y" }, "count"));
const FIT_OPTIONS = { seed: 3, chains: 2, warmup: 200, draws: 200 };

/**
 * The fits already made, by weighting: a fit is a function of its weighting (the seed and
 * options are fixed), so the tests share the unweighted fit and the calibration steps they have
 * in common instead of repeating them (issue 36).
 */
const FITS = new Map<string, Fit>();

/** {@link MODEL} fitted under `weighting` with {@link FIT_OPTIONS}, once per weighting. */
function sharedFit(weighting: Weighting): Fit {
  const key = `${weighting.censor}|${weighting.alpha?.join(",")}`;
  let fit = FITS.get(key);
  if (fit === undefined) {
    fit = fitModel(MODEL, weighting, FIT_OPTIONS);
    FITS.set(key, fit);
  }
  return fit;
}

function run(mechanism: MechanismName, extra: Partial<MechanismSettings> = {}) {
  return runMechanism({ mechanism, m: 3, radius: 0.1, relativeRadius: true, ...extra }, {
    model: MODEL,
    lipschitz: cpuLipschitz,
    laplace: () => 0,
    fit: (weighting) => Promise.resolve(sharedFit(weighting)),
  });
}

Deno.test("LW calibration meets ε = 8 with m = 3 on the demo data, close to the target", async () => {
  const outcome = await run("lw", { epsilon: 8 });
  assert.ok(outcome.privacy.epsilon <= 8, `ε = ${outcome.privacy.epsilon}`);
  assert.ok(outcome.privacy.epsilon >= 0.9 * 8, `ε = ${outcome.privacy.epsilon}, too cautious`);
  assert.equal(outcome.privacy.guarantee, "aDP");
  assert.equal(outcome.lipschitz, outcome.bound!.overall);
  // ε is the privacy map of the final fit's Δ (2Δm, rounded up).
  assert.deepEqual(outcome.privacy, pseudoPosteriorPrivacy(outcome.lipschitz, 3));
  assert.ok(outcome.g! > -1 && outcome.g! < 1);
  assert.ok(outcome.unweightedLipschitz! > outcome.lipschitz);
});

Deno.test("re-weighting never raises Δ above the bound it accepted (LW_final at ε = 8)", async () => {
  const outcome = await run("lw-final", { epsilon: 8 });
  const base = outcome.refits.findLast((r) => r.label.startsWith("lw"))!;
  assert.ok(outcome.k !== null, "no k accepted");
  assert.ok(outcome.lipschitz <= base.lipschitz * 1.01);
  assert.ok(outcome.privacy.epsilon <= 8);
  assert.match(outcome.finalFit!, /^reweight k=/);
  assert.ok(outcome.alpha!.every((a) => a >= 0 && a <= 1));
});

Deno.test("LW_final's accepted k is below 1 (Algorithm 3), the paper's 0.95 tried first", async () => {
  const outcome = await run("lw-final", { g: 0 });
  const reweights = outcome.refits.filter((r) => r.label.startsWith("reweight"));
  assert.equal(reweights[0].label, "reweight k=0.9500");
  assert.ok(outcome.k !== null && outcome.k !== undefined && outcome.k < 1, `k = ${outcome.k}`);
  assert.ok(reweights.every((r) => Number(r.label.slice("reweight k=".length)) < 1));
  assert.equal(outcome.finalFit, `reweight k=${outcome.k.toFixed(4)}`);
});

Deno.test("censoring bounds every record's contribution by C = ε/(2m) at every draw (DP)", async () => {
  const outcome = await run("censored", { epsilon: 3 });
  const censor = 3 / 6;
  assert.ok(outcome.censor! <= censor && outcome.censor! > censor * (1 - 1e-12));
  assert.equal(outcome.lipschitz, outcome.censor);
  assert.equal(outcome.privacy.guarantee, "DP");
  assert.ok(outcome.privacy.epsilon <= 3);
  // The sampler really used the clamped target: its log density equals prior + Σ clamp(ℓ, ±C),
  // and the unclamped |ℓ| exceeds C somewhere, so the clamp did work.
  assert.ok(outcome.bound!.overall > outcome.censor!);
  const fit = outcome.fit!;
  const ll = new Float64Array(MODEL.design.n);
  for (let s = 0; s < fit.S; s += 37) {
    MODEL.logLik(fit.draws.subarray(s * MODEL.dim, (s + 1) * MODEL.dim), ll);
    for (const l of ll) assert.ok(Math.abs(Math.min(Math.max(l, -censor), censor)) <= censor);
  }
});

Deno.test("Weighted-e truncation brings Δ under ε/(2m) and zeroes the records above it", async () => {
  const outcome = await run("weighted-e", { epsilon: 12, g: 0.5 });
  assert.ok(outcome.lipschitz <= 12 / 6, `Δ = ${outcome.lipschitz}`);
  assert.ok(outcome.alpha!.some((a) => a === 0));
  assert.ok(outcome.refits.length >= 3);
});

Deno.test("SW matching a Δ gives one weight for every record and does not exceed it", async () => {
  const outcome = await run("sw", { matchLipschitz: 2 });
  const first = outcome.alpha![0];
  assert.ok(outcome.alpha!.every((a) => a === first));
  assert.ok(outcome.lipschitz <= 2);
});

Deno.test("CW uses isolation-risk weights and reports the unweighted bound", async () => {
  const outcome = await run("cw", { c: 1, g: 0.2 });
  assert.ok(outcome.lipschitz < outcome.unweightedLipschitz!);
  assert.equal(outcome.g, 0.2);
  assert.equal(outcome.refits.length, 2);
});

Deno.test("an unreachable ε fails with the smallest ε reached", async () => {
  await assert.rejects(run("lw", { epsilon: 1e-4 }), (error: unknown) => {
    assert.ok(error instanceof CalibrationError);
    assert.match(error.message, /target=0\.0001, reached=/);
    assert.ok(error.reached > 1e-4);
    return true;
  });
});

Deno.test("the histogram mechanism needs public bounds and charges ε once", async () => {
  await assert.rejects(run("histogram", { epsilon: 1 }), /--lower and --upper/);
  const outcome = await run("histogram", { epsilon: 1, lower: 0, upper: 400, bins: 20 });
  assert.deepEqual(outcome.privacy, { guarantee: "DP", epsilonPerDataset: 1, epsilon: 1 });
  assert.equal(outcome.fit, null);
  assert.equal(outcome.histogram!.counts.reduce((s, c) => s + c, 0), MODEL.design.n);
});

Deno.test("with predictions and warm starts, every mechanism's ε is that of its final fit", async () => {
  // Each mechanism on its own fitter, as a release runs it; the fitters share their identical
  // fits (the unweighted fit, LW's steps in LW_final) through a FitCache (issue 36).
  const fits = new FitCache();
  const scope = fits.scope(DATA, { model: "negbin", x: [] });
  const sampler = { seed: 3, chains: 2, warmup: 300, drawsPerChain: 200, inThread: true };
  const settings: [MechanismName, Partial<MechanismSettings>][] = [
    ["unweighted", {}],
    ["lw", { epsilon: 8 }],
    ["lw-final", { epsilon: 8 }],
    ["sw", { epsilon: 8 }],
    ["weighted-e", { epsilon: 12, g: 0.5 }],
  ];
  for (const [mechanism, extra] of settings) {
    const outcome = await runMechanism(
      { mechanism, m: 3, radius: 0.1, relativeRadius: true, ...extra },
      {
        model: MODEL,
        lipschitz: cpuLipschitz,
        laplace: () => 0,
        fit: fitter(MODEL, { ...sampler, cache: { fits, scope } }),
        predict: (draws, base, candidates) => predictLipschitz(MODEL, draws, base, candidates),
      },
    );
    // The final fit's own draws give Δ, and ε is its privacy map.
    const final = lipschitz(MODEL, outcome.fit!.draws, { alpha: outcome.alpha });
    assert.equal(outcome.lipschitz, final.overall, mechanism);
    assert.deepEqual(outcome.privacy, pseudoPosteriorPrivacy(final.overall, 3), mechanism);
    assert.equal(
      outcome.refits.findLast((r) => r.label === outcome.finalFit)!.lipschitz,
      final.overall,
    );
    if (extra.epsilon !== undefined) assert.ok(outcome.privacy.epsilon <= extra.epsilon, mechanism);
  }
  // The unweighted fit was made once, for the first mechanism.
  assert.ok(fits.hits >= settings.length - 1, `${fits.hits} hits, ${fits.misses} misses`);
});
