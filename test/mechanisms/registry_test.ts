/**
 * The mechanism registry (issue 26): every name of `MECHANISM_NAMES` has its value, whose
 * privacy map carries the guarantee the job policy reads (ε-DP for censoring and the histogram,
 * aDP for the rest); and a mechanism defined only here ("half-sw") is added with `withMechanism`
 * and run by `runMechanism`, touching no file of `src/`.
 */
import assert from "node:assert/strict";
import { readCsv } from "../../src/data/csv.ts";
import { buildDesign } from "../../src/data/design.ts";
import { fitModel } from "../../src/mcmc/fit.ts";
import { lipschitzTarget } from "../../src/mechanisms/calibrate.ts";
import { defineMechanism } from "../../src/mechanisms/kinds/kind.ts";
import { released } from "../../src/mechanisms/kinds/steps.ts";
import { cpuLipschitz } from "../../src/mechanisms/lipschitz_backend.ts";
import { MECHANISM_NAMES } from "../../src/mechanisms/mechanism.ts";
import { NEIGHBOURS, pseudoPosteriorPrivacy } from "../../src/mechanisms/privacy.ts";
import { lookupMechanism, MECHANISMS, withMechanism } from "../../src/mechanisms/registry.ts";
import { runMechanism } from "../../src/mechanisms/run_mechanism.ts";
import { swAlphaForLipschitz } from "../../src/mechanisms/weights.ts";
import { createModel } from "../../src/models/mod.ts";

/**
 * The toy: SW at half the scalar weight that would hit the target (so about half the ε). SW's
 * privacy map (the pseudo posterior's) and what SW accepts, but ε required.
 */
const HALF_SW = defineMechanism({
  ...MECHANISMS.sw,
  name: "half-sw",
  summary: "scalar-weighted at half SW's α (a test's mechanism)",
  accepts: { ...MECHANISMS.sw.accepts, epsilon: "required" },
  run: async (run) => {
    const unweighted = await run.unweighted();
    const target = lipschitzTarget(run.needEpsilon("half-sw"), run.m);
    const scalar = swAlphaForLipschitz(target, unweighted.bound.overall) / 2;
    const fit = await run.stage(`half-sw alpha=${scalar.toPrecision(4)}`, {
      alpha: new Float64Array(run.n).fill(scalar),
    });
    return released(fit, unweighted);
  },
});

Deno.test("the registry holds every mechanism name, in order, each under its own name", () => {
  assert.deepEqual(Object.keys(MECHANISMS), [...MECHANISM_NAMES]);
  for (const name of MECHANISM_NAMES) {
    const mechanism = lookupMechanism(MECHANISMS, name);
    assert.equal(mechanism.name, name);
    const dp = name === "censored" || name === "censored-w" || name === "histogram";
    assert.equal(mechanism.privacy.guarantee, dp ? "DP" : "aDP", name);
    assert.equal(mechanism.privacy.neighbours, NEIGHBOURS);
    assert.ok(Object.isFrozen(mechanism) && Object.isFrozen(mechanism.accepts), name);
  }
  assert.ok(Object.isFrozen(MECHANISMS));
});

Deno.test("each privacy map takes what its guarantee rests on", () => {
  assert.equal(MECHANISMS.lw.privacy.input, "lipschitz");
  assert.equal(MECHANISMS.censored.privacy.input, "censor");
  assert.equal(MECHANISMS.histogram.privacy.input, "epsilon");
  assert.deepEqual(MECHANISMS.sw.privacy.map(1.5, 3), pseudoPosteriorPrivacy(1.5, 3));
  assert.deepEqual(MECHANISMS["censored-w"].privacy.map(0.5, 2), {
    guarantee: "DP",
    epsilonPerDataset: 1,
    epsilon: 2,
  });
  // The histogram is charged once, whatever m.
  assert.equal(MECHANISMS.histogram.privacy.map(2, 5).epsilon, 2);
});

Deno.test("what the mechanisms accept: CW's ball and the histogram take one outcome", () => {
  const one = MECHANISM_NAMES.filter((name) => MECHANISMS[name].accepts.outcomes === "one");
  assert.deepEqual(one, ["cw", "cw-final", "histogram"]);
  const numeric = MECHANISM_NAMES.filter((name) => MECHANISMS[name].accepts.numericOutcome);
  assert.deepEqual(numeric, ["cw", "cw-final"]);
  const bounds = MECHANISM_NAMES.filter((name) => MECHANISMS[name].accepts.bounds);
  assert.deepEqual(bounds, ["histogram"]);
  const epsilon = MECHANISM_NAMES.filter((name) => MECHANISMS[name].accepts.epsilon === "required");
  assert.deepEqual(epsilon, ["weighted-e", "censored", "censored-w", "histogram"]);
});

Deno.test("withMechanism adds to a copy, refuses a taken name; an unknown name is refused", () => {
  const registry = withMechanism(MECHANISMS, HALF_SW);
  assert.equal(registry["half-sw"], HALF_SW);
  assert.equal(registry.sw, MECHANISMS.sw);
  assert.equal(Object.hasOwn(MECHANISMS, "half-sw"), false);
  assert.throws(() => withMechanism(registry, HALF_SW), /already registered/);
  assert.throws(() => withMechanism(MECHANISMS, { ...HALF_SW, name: "sw" }), /already registered/);
  assert.throws(
    () => lookupMechanism(MECHANISMS, "half-sw" as never),
    /Invalid mechanism: unknown "half-sw"/,
  );
});

Deno.test("a mechanism defined in a test runs through runMechanism with its registry", async () => {
  const data = await readCsv(
    new URL("../../examples/skewed_counts.csv", import.meta.url).pathname,
  );
  const model = createModel("negbin", buildDesign(data, { y: "y" }, "count"));
  const options = { seed: 3, chains: 2, warmup: 150, draws: 150 };
  const epsilon = 8;
  const m = 2;
  const outcome = await runMechanism(
    { mechanism: "half-sw", m, epsilon, radius: 0.1, relativeRadius: true },
    {
      model,
      lipschitz: cpuLipschitz,
      laplace: () => 0,
      fit: (weighting) => Promise.resolve(fitModel(model, weighting, options)),
    },
    withMechanism(MECHANISMS, HALF_SW),
  );
  assert.equal(outcome.mechanism, "half-sw");
  assert.deepEqual(outcome.refits.map((r) => r.label.split(" ")[0]), ["unweighted", "half-sw"]);
  const alpha = swAlphaForLipschitz(lipschitzTarget(epsilon, m), outcome.unweightedLipschitz!) /
    2;
  assert.ok(outcome.alpha!.every((a) => a === alpha));
  assert.equal(outcome.finalFit, `half-sw alpha=${alpha.toPrecision(4)}`);
  // The mechanism's own privacy map, applied by runMechanism to the final fit's Δ.
  assert.equal(outcome.lipschitz, outcome.bound!.overall);
  assert.deepEqual(outcome.privacy, pseudoPosteriorPrivacy(outcome.lipschitz, m));
  assert.ok(outcome.privacy.epsilon < epsilon, `ε = ${outcome.privacy.epsilon}`);
});
