import assert from "node:assert/strict";
import { sampleBayesNet } from "../../src/mcmc/bayes_net_exact.ts";
import type { Fit } from "../../src/mcmc/fit.ts";
import type { MechanismName } from "../../src/mechanisms/mechanism.ts";
import { pseudoPosteriorPrivacy } from "../../src/mechanisms/privacy.ts";
import { BayesNetModel } from "../../src/models/bayes_net.ts";
import { Rng } from "../../src/random/rng.ts";
import { bayesNetContext } from "../../src/synthesis/bayes_net_release.ts";
import { runFileMechanism } from "../../src/synthesis/latent_class_release.ts";

// 300 records of four 3-level columns drawn from a network fitted to a small chain-shaped file.
const FILE = (() => {
  const n = 60;
  const rng = new Rng(31);
  const columns = [0, 1, 2, 3].map((j) => ({ name: `c${j}`, levels: 3, codes: new Int32Array(n) }));
  for (let i = 0; i < n; i++) {
    columns[0].codes[i] = Math.floor(rng.uniform() * 3);
    for (let j = 1; j < 4; j++) {
      columns[j].codes[i] = rng.uniform() < 0.7
        ? columns[j - 1].codes[i]
        : Math.floor(rng.uniform() * 3);
    }
  }
  const seedModel = new BayesNetModel({ n, columns });
  const fit = sampleBayesNet(seedModel, null, { seed: 2, chains: 1, draws: 2 });
  return seedModel.simulate(fit.draws.subarray(0, fit.dim), 300, new Rng(32));
})();
const MODEL = new BayesNetModel(FILE);
const DRAWS = { seed: 5, chains: 2, draws: 500 };
const M = 2;

/** Δ recomputed record by record from `recordTerm`: the largest half range of u_i over the draws. */
function deltaByRecordTerm(fit: Fit, alpha: Float64Array | null): number {
  let delta = 0;
  for (let i = 0; i < MODEL.n; i++) {
    let hi = -Infinity;
    let lo = Infinity;
    for (let s = 0; s < fit.S; s++) {
      const theta = fit.draws.subarray(s * fit.dim, (s + 1) * fit.dim);
      const u = MODEL.recordTerm(theta, i, alpha === null ? 1 : alpha[i]);
      hi = Math.max(hi, u);
      lo = Math.min(lo, u);
    }
    delta = Math.max(delta, (hi - lo) / 2);
  }
  return delta;
}

function settings(mechanism: MechanismName, epsilon: number) {
  return { mechanism, m: M, epsilon, radius: 0.1, relativeRadius: true };
}

for (const [mechanism, epsilon] of [["sw", 6], ["lw", 6], ["weighted-e", 8]] as const) {
  Deno.test(`${mechanism} on the Bayesian network meets ε = ${epsilon}: 2Δm, Δ the half range of recordTerm`, async () => {
    const outcome = await runFileMechanism(
      settings(mechanism, epsilon),
      bayesNetContext(MODEL, DRAWS),
    );
    const delta = deltaByRecordTerm(outcome.fit!, outcome.alpha);
    assert.ok(
      Math.abs(delta - outcome.lipschitz) <= 1e-12 * delta,
      `${delta} vs ${outcome.lipschitz}`,
    );
    const want = pseudoPosteriorPrivacy(delta, M);
    assert.equal(outcome.privacy.guarantee, want.guarantee);
    assert.ok(Math.abs(outcome.privacy.epsilon - want.epsilon) <= 1e-12 * want.epsilon);
    assert.ok(outcome.privacy.epsilon <= epsilon, `ε = ${outcome.privacy.epsilon}`);
    assert.ok(outcome.unweightedLipschitz! > outcome.lipschitz);
    assert.equal(outcome.fit!.flagged, false);
  });
}

Deno.test("the Bayesian network release refuses CW, the histogram and censoring", async () => {
  const context = bayesNetContext(MODEL, DRAWS);
  await assert.rejects(() => runFileMechanism(settings("cw", 8), context), /one-dimensional/);
  await assert.rejects(
    () => runFileMechanism(settings("histogram", 8), context),
    /one-dimensional/,
  );
  await assert.rejects(() => runFileMechanism(settings("censored", 8), context), /censoring/);
});

Deno.test("a fit of too few exact draws is flagged (bulk ESS < 400), as any fit", async () => {
  const context = bayesNetContext(MODEL, { seed: 5, chains: 2, draws: 50 });
  const fit = await context.fit({ alpha: null }, "unweighted");
  assert.equal(fit.flagged, true);
});
