/**
 * SW's calibration rounds: where Δ falls more slowly than α (Δ = c·√α here, as a whole file's
 * centred term does when a lower weight widens the posterior), the linear rescale approaches the
 * target only as r ↦ √(0.99·r) and misses it after its four extra rounds; the squared step that
 * follows reaches it.
 */
import assert from "node:assert/strict";
import { readCsv } from "../../src/data/csv.ts";
import { buildDesign } from "../../src/data/design.ts";
import { fitModel } from "../../src/mcmc/fit.ts";
import { lipschitzTarget } from "../../src/mechanisms/calibrate.ts";
import { overallOf } from "../../src/mechanisms/lipschitz.ts";
import type { LipschitzBackend } from "../../src/mechanisms/lipschitz_backend.ts";
import { runMechanism } from "../../src/mechanisms/run_mechanism.ts";
import { createModel } from "../../src/models/mod.ts";

/** Δ_i = C·√α_i for every record and draw. */
const C = 10;
const squareRootBound: LipschitzBackend = {
  name: "cpu",
  compute: (model, _draws, options = {}) => {
    const n = model.design.n;
    const perRecord = Float64Array.from(
      { length: n },
      (_, i) => C * Math.sqrt(options.alpha?.[i] ?? 1),
    );
    return Promise.resolve({ perRecord, ...overallOf(perRecord, new Int32Array(n)) });
  },
};

Deno.test("SW reaches ε where Δ ∝ √α: four linear rounds miss it, the squared step lands on it", async () => {
  const data = await readCsv(new URL("../../examples/skewed_counts.csv", import.meta.url).pathname);
  const model = createModel("negbin", buildDesign(data, { y: "y" }, "count"));
  const options = { seed: 3, chains: 1, warmup: 50, draws: 20 };
  const epsilon = 1;
  const m = 1;
  const outcome = await runMechanism(
    { mechanism: "sw", m, epsilon, radius: 0.1, relativeRadius: true },
    {
      model,
      lipschitz: squareRootBound,
      laplace: () => 0,
      fit: (weighting) => Promise.resolve(fitModel(model, weighting, options)),
    },
  );
  const target = lipschitzTarget(epsilon, m);
  // The linear rule from the same start: r = Δ/target after each round.
  let r = (C * Math.sqrt(target / C)) / target;
  for (let round = 0; round < 4; round++) r = Math.sqrt(0.99 * r);
  assert.ok(r > 1, `the linear rescale would end at ${r} × the target`);
  assert.ok(outcome.privacy.epsilon <= epsilon, `ε = ${outcome.privacy.epsilon}`);
  // unweighted, the first scalar, four linear rounds, one squared step.
  assert.equal(outcome.refits.length, 7);
  const alpha = outcome.alpha![0];
  assert.ok(Math.abs(C * Math.sqrt(alpha) - outcome.lipschitz) < 1e-12);
  assert.ok(outcome.lipschitz > 0.97 * target, `Δ = ${outcome.lipschitz}: no α is wasted`);
});
