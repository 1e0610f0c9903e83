import assert from "node:assert/strict";
import type { Fit } from "../../src/mcmc/fit.ts";
import type { LipschitzResult } from "../../src/mechanisms/lipschitz.ts";
import type { MechanismSettings } from "../../src/mechanisms/mechanism.ts";
import { runMechanism } from "../../src/mechanisms/run_mechanism.ts";
import { createModel } from "../../src/models/mod.ts";

const N = 6;
const MODEL = createModel("poisson", {
  n: N,
  k: 1,
  y: Float64Array.of(1, 2, 3, 4, 5, 60),
  x: new Float64Array(N).fill(1),
  coefficientNames: ["intercept"],
});

/**
 * Runs Weighted-e on a scripted pipeline: the k-th fit gets the k-th list of per-record bounds
 * (the unweighted fit first), so the cascade is exactly the one written down.
 */
function scripted(bounds: number[][], extra: Partial<MechanismSettings> = {}) {
  let call = 0;
  const fit = { draws: new Float64Array(0), warmup: 0, setup: { precondition: "none" } };
  return runMechanism({
    mechanism: "weighted-e",
    m: 1,
    epsilon: 2, // ε/m = 2: records with Δ_i > 2 are zeroed; the target is Δ ≤ 1
    radius: 0.1,
    relativeRadius: true,
    ...extra,
  }, {
    model: MODEL,
    fit: () => Promise.resolve(fit as unknown as Fit),
    lipschitz: {
      name: "cpu",
      compute: (_m, _draws, options) => {
        const alpha = options?.alpha;
        const perRecord = Float64Array.from(bounds[call++]);
        // A scripted bound is 0 wherever the weights are 0, as a real one is.
        perRecord.forEach((b, i) => assert.ok(alpha?.[i] !== 0 || b === 0, `record ${i}`));
        const overall = Math.max(...perRecord);
        return Promise.resolve(
          { perRecord, overall, argmax: { record: 0, draw: 0 } } satisfies LipschitzResult,
        );
      },
    },
    laplace: () => 0,
  });
}

Deno.test("Weighted-e truncates once by default, as the slides do", async () => {
  const outcome = await scripted([
    [1, 1, 1, 1, 2, 9], // unweighted: LW gives record 6 the weight 0
    [0.5, 0.5, 0.5, 0.5, 3, 0], // LW g = 0: record 5 is above ε/m = 2
    [0.5, 0.5, 0.5, 2.5, 0, 0], // truncation 1 zeroes record 5; record 4 rises above 2
    [0.5, 0.5, 0.5, 0, 0, 0], // a second round would zero record 4
  ]);
  assert.deepEqual(outcome.refits.map((r) => r.label), [
    "unweighted",
    "lw g=0",
    "truncate round 1",
  ]);
  assert.equal(outcome.finalFit, "truncate round 1");
  assert.equal(outcome.lipschitz, 2.5);
});

Deno.test("Weighted-e never releases a fit above the LW fit it started from", async () => {
  // The cascade of the contraction study at small n: each round's wider posterior pushes other
  // records over, and the second round ends above the LW fit's Δ.
  const outcome = await scripted([
    [1, 1, 1, 1, 2, 9],
    [0.5, 0.5, 0.5, 0.5, 3, 0],
    [0.5, 0.5, 0.5, 2.5, 0, 0],
    [0.5, 0.5, 4, 0, 0, 0],
    [0.5, 0.5, 0, 0, 0, 0],
  ], { retruncations: 3 });
  // Round 2 raised Δ (4 > 2.5): the search stops there, round 3 is never fitted, and the
  // lowest-Δ fit (round 1, 2.5 < LW's 3) is released.
  assert.deepEqual(outcome.refits.map((r) => r.lipschitz), [9, 3, 2.5, 4]);
  assert.equal(outcome.finalFit, "truncate round 1");
  assert.ok(outcome.lipschitz <= outcome.refits[1].lipschitz);
});

Deno.test("when truncation only raises Δ, Weighted-e releases the LW fit", async () => {
  const outcome = await scripted([
    [1, 1, 1, 1, 2, 9],
    [0.5, 0.5, 0.5, 0.5, 3, 0],
    [0.5, 0.5, 0.5, 5, 0, 0],
  ]);
  assert.equal(outcome.finalFit, "lw g=0");
  assert.equal(outcome.lipschitz, 3);
});
