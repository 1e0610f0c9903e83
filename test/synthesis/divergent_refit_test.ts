/**
 * A release's fit with divergent transitions is refitted once at target acceptance 0.95
 * (`refitDivergent`, `release.ts`): on a categorical outcome whose declared level has no records
 * (the intercept-only case of test/api/outcomes_test.ts, where about 7 % of releases were refused
 * for divergences), seed 39's fit diverges 14 times at the default 0.8 and not at all when
 * refitted; a fit without divergences is the same fit with or without the option.
 */
import assert from "node:assert/strict";
import { parseCsv } from "../../src/data/csv.ts";
import { buildDesign } from "../../src/data/design.ts";
import { createModel } from "../../src/models/mod.ts";
import { UNWEIGHTED } from "../../src/models/model.ts";
import { DIVERGENT_REFIT_ACCEPTANCE, fitter } from "../../src/synthesis/release.ts";

const rows = ["kind", ...Array.from({ length: 40 }, (_, i) => ["red", "green", "blue"][i % 3])];
const MODEL = createModel("categorical", {
  ...buildDesign(
    parseCsv(rows.join("\n"), "kinds.csv"),
    { y: "kind", levels: ["red", "green", "blue", "violet"] },
    "categorical",
  ),
  coefficientPrior: "student-t",
});
const SAMPLER = { chains: 4, warmup: 300, drawsPerChain: 1000, inThread: true };

Deno.test("a fit with divergent transitions is refitted at target acceptance 0.95, its cost counted", async () => {
  const diverged = await fitter(MODEL, { ...SAMPLER, seed: 39 })(UNWEIGHTED, "unweighted");
  assert.equal(diverged.divergences, 14, "the default adaptation diverges at this seed");
  assert.ok(diverged.flagged);
  const refitted = await fitter(MODEL, { ...SAMPLER, seed: 39, refitDivergent: true })(
    UNWEIGHTED,
    "unweighted",
  );
  assert.equal(DIVERGENT_REFIT_ACCEPTANCE, 0.95);
  assert.equal(refitted.divergences, 0);
  assert.ok(!refitted.flagged, `R̂ ${refitted.rhatMax}, bulk ESS ${refitted.essBulkMin}`);
  assert.equal(
    refitted.setup.warmStartRejected,
    "14 divergent transitions: refitted at target acceptance 0.95",
  );
  assert.ok(refitted.gradientEvaluations > diverged.gradientEvaluations, "both fits' cost");
  const mean = (steps: readonly number[]) => steps.reduce((a, b) => a + b, 0) / steps.length;
  assert.ok(
    mean(refitted.stepSizes) < mean(diverged.stepSizes),
    `smaller steps: ${refitted.stepSizes} against ${diverged.stepSizes}`,
  );
});

Deno.test("a fit without divergences is the same fit with refitDivergent", async () => {
  const [plain, option] = await Promise.all(
    [false, true].map((refitDivergent) =>
      fitter(MODEL, { ...SAMPLER, seed: 1, refitDivergent })(UNWEIGHTED, "unweighted")
    ),
  );
  assert.equal(plain.divergences, 0);
  assert.deepEqual(option.draws, plain.draws);
  assert.equal(option.gradientEvaluations, plain.gradientEvaluations);
  assert.equal(option.setup.warmStartRejected, undefined);
});
