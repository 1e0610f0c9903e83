import assert from "node:assert/strict";
import { FitFlaggedError } from "../../src/mcmc/fit.ts";
import type { Fit } from "../../src/mcmc/fit.ts";
import type { MechanismContext, MechanismName } from "../../src/mechanisms/mechanism.ts";
import { censoredPrivacy, pseudoPosteriorPrivacy } from "../../src/mechanisms/privacy.ts";
import { LatentClassModel } from "../../src/models/latent_class.ts";
import { Rng } from "../../src/random/rng.ts";
import {
  latentClassContext,
  releaseLatentClass,
  runFileMechanism,
} from "../../src/synthesis/latent_class_release.ts";

// A file of 300 records from three latent classes over four columns of three levels.
const TRUTH = (() => {
  const K = 3;
  const skeleton = new LatentClassModel({
    n: 1,
    columns: [0, 1, 2, 3].map((j) => ({ name: `c${j}`, levels: 3, codes: Int32Array.of(0) })),
  }, K);
  const theta = new Float64Array(skeleton.dim);
  theta.set([0.5, 0.3, 0.2]);
  for (let k = 0; k < K; k++) {
    for (let j = 0; j < 4; j++) {
      for (let l = 0; l < 3; l++) theta[skeleton.phiIndex(k, j, l)] = l === (k + j) % 3 ? 0.8 : 0.1;
    }
  }
  return skeleton.simulate(theta, 300, new Rng(21));
})();
const MODEL = new LatentClassModel(TRUTH, 6);
const GIBBS = { seed: 5, chains: 2, warmup: 300, draws: 1000 };
const M = 2;

/**
 * The latent class context of {@link MODEL} and {@link GIBBS}, its fits kept by weighting: a
 * Gibbs fit is a function of its weighting (the same seed for every refit), so the tests that
 * run a mechanism on it share the unweighted fit instead of repeating it (issue 36).
 */
const CONTEXT: MechanismContext = (() => {
  const context = latentClassContext(MODEL, GIBBS);
  const fits = new Map<string, Promise<Fit>>();
  return {
    ...context,
    fit(weighting, label) {
      const key = `${weighting.censor}|${weighting.alpha?.join(",")}`;
      let fit = fits.get(key);
      if (fit === undefined) fits.set(key, fit = context.fit(weighting, label));
      return fit;
    },
  };
})();

/**
 * Δ recomputed from the final fit's draws by `recordTerm`, record by record: the largest half
 * range of u_i over the draws (the centred term), and the uncentred max |u_i| beside it.
 */
function deltaByRecordTerm(fit: Fit, alpha: Float64Array | null) {
  let centred = 0;
  let uncentred = 0;
  // u_i is a function of record i's codes in the file and α_i: records alike in both have the
  // same range, found once, at the first of them (issue 36: 300 records, 3^4 = 81 code patterns).
  const ranged = new Set<string>();
  for (let i = 0; i < MODEL.n; i++) {
    const key = `${TRUTH.columns.map((column) => column.codes[i])} ${alpha?.[i] ?? 1}`;
    if (ranged.has(key)) continue;
    ranged.add(key);
    let hi = -Infinity;
    let lo = Infinity;
    for (let s = 0; s < fit.S; s++) {
      const theta = fit.draws.subarray(s * fit.dim, (s + 1) * fit.dim);
      const u = MODEL.recordTerm(theta, i, alpha === null ? 1 : alpha[i]);
      hi = Math.max(hi, u);
      lo = Math.min(lo, u);
    }
    centred = Math.max(centred, (hi - lo) / 2);
    uncentred = Math.max(uncentred, -lo);
  }
  return { centred, uncentred };
}

function settings(mechanism: MechanismName, epsilon: number) {
  return { mechanism, m: M, epsilon, radius: 0.1, relativeRadius: true };
}

for (const [mechanism, epsilon] of [["sw", 6], ["lw", 3], ["weighted-e", 8]] as const) {
  Deno.test(`${mechanism} on the latent class model meets ε = ${epsilon}: 2Δm, Δ the half range of recordTerm`, async () => {
    const release = await releaseLatentClass(MODEL, settings(mechanism, epsilon), GIBBS);
    const { outcome } = release;
    const { centred: delta, uncentred } = deltaByRecordTerm(outcome.fit!, outcome.alpha);
    assert.ok(delta < uncentred, `${delta} vs ${uncentred}`);
    assert.ok(
      Math.abs(delta - outcome.lipschitz) <= 1e-12 * delta,
      `${delta} vs ${outcome.lipschitz}`,
    );
    const want = pseudoPosteriorPrivacy(delta, M);
    assert.equal(outcome.privacy.guarantee, want.guarantee);
    assert.ok(Math.abs(outcome.privacy.epsilon - want.epsilon) <= 1e-12 * want.epsilon);
    assert.ok(outcome.privacy.epsilon <= epsilon, `ε = ${outcome.privacy.epsilon}`);
    assert.ok(
      outcome.unweightedLipschitz! > outcome.lipschitz,
      `${outcome.unweightedLipschitz} ${outcome.lipschitz}`,
    );
    assert.equal(outcome.fit!.flagged, false);
    assert.equal(release.files.length, M);
    for (const file of release.files) {
      assert.equal(file.n, MODEL.n);
      assert.deepEqual(file.columns.map((c) => c.levels), [3, 3, 3, 3]);
    }
  });
}

Deno.test("LW-final on the latent class model re-weights (a k accepted) within ε = 10", async () => {
  const outcome = await runFileMechanism(
    settings("lw-final", 10),
    CONTEXT,
  );
  assert.ok(outcome.privacy.epsilon <= 10);
  assert.equal(typeof outcome.k, "number");
  const { centred } = deltaByRecordTerm(outcome.fit!, outcome.alpha);
  assert.ok(Math.abs(centred - outcome.lipschitz) < 1e-9);
});

Deno.test("the latent class release refuses CW, the histogram and a flagged fit", async () => {
  await assert.rejects(
    () => runFileMechanism(settings("cw", 8), CONTEXT),
    /one-dimensional/,
  );
  await assert.rejects(
    () => runFileMechanism(settings("histogram", 8), CONTEXT),
    /one-dimensional/,
  );
  const short = { seed: 5, chains: 2, warmup: 20, draws: 40 };
  await assert.rejects(
    () =>
      releaseLatentClass(
        MODEL,
        { ...settings("sw", 6), epsilon: undefined, matchLipschitz: 3 },
        short,
      ),
    FitFlaggedError,
  );
});

Deno.test("censored-w on the latent class model is 2Cm-DP with every clamped term within C", async () => {
  const outcome = await runFileMechanism(
    settings("censored-w", 8),
    CONTEXT,
  );
  const C = outcome.censor!;
  assert.deepEqual(outcome.privacy, censoredPrivacy(C, M));
  const fit = outcome.fit!;
  for (let s = 0; s < fit.S; s += 50) {
    const theta = fit.draws.subarray(s * fit.dim, (s + 1) * fit.dim);
    for (let i = 0; i < MODEL.n; i++) {
      const u = MODEL.recordTerm(theta, i, outcome.alpha![i]);
      assert.ok(u <= 0 && Math.abs(Math.max(u, -C)) <= C);
    }
  }
});
