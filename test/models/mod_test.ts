import assert from "node:assert/strict";
import {
  BetaModel,
  createModel,
  GPU_HMC_MODEL_NAMES,
  gpuSpec,
  hasGpuHmc,
  LogisticModel,
  LognormalModel,
  MODEL_NAMES,
  type ModelName,
  modelRequirements,
  MODELS,
  NegBinModel,
  NormalModel,
  outcomeKind,
  PoissonModel,
} from "../../src/models/mod.ts";
import type { Design } from "../../src/models/model.ts";
import { makeDesign } from "./_helpers.ts";

Deno.test("`createModel()` builds each model of SPEC §5 and `outcomeKind()` names its outcome", () => {
  const cases: [ModelName, unknown, string, string | null][] = [
    ["poisson", PoissonModel, "count", null],
    ["negbin", NegBinModel, "count", "phi"],
    ["beta", BetaModel, "unit-interval", "phi"],
    ["normal", NormalModel, "real", "sigma"],
    ["lognormal", LognormalModel, "positive", "sigma"],
    ["logistic", LogisticModel, "binary", null],
  ];
  const design = makeDesign(Float64Array.from([0.2, 0.5, 0.7]), 2, 1);
  for (const [name, cls, kind, extra] of cases) {
    const model = createModel(name, design);
    assert.ok(model instanceof (cls as typeof PoissonModel), name);
    assert.equal(model.name, name);
    assert.equal(outcomeKind(name), kind);
    assert.equal(model.dim, 4 + (extra === null ? 0 : 1));
    assert.equal(model.paramNames.at(-1), extra ?? "sigma_beta_x1");
  }
  assert.equal(outcomeKind("categorical"), "categorical");
  assert.equal(outcomeKind("hurdle"), "non-negative");
  assert.throws(() => createModel("gamma" as ModelName, design), RangeError);
  assert.throws(() => outcomeKind("gamma" as ModelName), RangeError);
});

Deno.test("every registry entry builds a model of its own name and metric", () => {
  const design = { ...makeDesign(Float64Array.from([0.2, 0.5, 0.7]), 2, 1) };
  const weighted = { ...design, weight: Float64Array.of(1, 2, 3) };
  const designs: Partial<Record<string, Design>> = {
    fbs: weighted,
    fbp: weighted,
    logistic: { ...design, outcomeLevels: ["0", "1"] },
    categorical: { ...design, outcomeLevels: ["a", "b", "c"] },
  };
  assert.deepEqual(MODEL_NAMES, [
    "poisson",
    "negbin",
    "beta",
    "normal",
    "lognormal",
    "fbs",
    "fbp",
    "logistic",
    "categorical",
    "hurdle",
  ]);
  for (const descriptor of MODELS) {
    const model = createModel(descriptor.name, designs[descriptor.name] ?? design);
    assert.equal(model.name, descriptor.name);
    assert.equal(model.metric ?? "diag", descriptor.metric);
  }
  assert.deepEqual(GPU_HMC_MODEL_NAMES, [
    "poisson",
    "negbin",
    "beta",
    "normal",
    "lognormal",
    "logistic",
    "categorical",
  ]);
  assert.equal(hasGpuHmc("fbs"), false);
  assert.equal(hasGpuHmc("hurdle"), false);
  assert.equal(hasGpuHmc("gamma"), false);
  assert.equal(gpuSpec("gamma"), null);
  assert.equal(gpuSpec("normal")?.kernel, "gaussian");
});

Deno.test("`createModel()` rejects a malformed design", () => {
  const good = makeDesign(Float64Array.from([1, 2, 3]), 2, 1);
  const noIntercept = { ...good, x: good.x.map((v, i) => (i === 2 ? 0.5 : v)) };
  assert.throws(() => createModel("poisson", noIntercept), /column 0 must be the intercept/);
  assert.throws(() => createModel("poisson", { ...good, n: 4 }), RangeError);
  assert.throws(() => createModel("poisson", { ...good, k: 3 }), RangeError);
  assert.throws(() => createModel("poisson", { ...good, coefficientNames: ["a"] }), RangeError);
});

Deno.test("`logDensity()` rejects an α of the wrong length or a non-positive censor", () => {
  const model = createModel("poisson", makeDesign(Float64Array.from([1, 2, 3]), 1, 1));
  const u = model.initialPoint();
  assert.throws(() => model.logDensity(u, null, { alpha: new Float64Array(2) }), RangeError);
  assert.throws(() => model.logDensity(u, null, { alpha: null, censor: 0 }), RangeError);
  assert.throws(() => model.logDensity(u, new Float64Array(1), { alpha: null }), RangeError);
});

Deno.test("`modelRequirements()` says what each model needs of a request (issue 26)", () => {
  const survey = MODEL_NAMES.filter((name) => modelRequirements(name).surveyWeight);
  assert.deepEqual(survey, ["fbs", "fbp"]);
  assert.deepEqual(MODEL_NAMES.filter((name) => modelRequirements(name).stratumSizes), ["fbp"]);
  assert.deepEqual(
    MODEL_NAMES.filter((name) => modelRequirements(name).outcomes === "one"),
    survey,
  );
  for (const name of MODEL_NAMES) {
    const { bounds } = modelRequirements(name);
    // Bounds by definition go with an outcome that holds them: beta's unit interval.
    if (outcomeKind(name) === "unit-interval") assert.deepEqual(bounds, { lower: 0, upper: 1 });
    else assert.equal(bounds, null, name);
  }
  assert.throws(() => modelRequirements("gamma" as ModelName), RangeError);
});
