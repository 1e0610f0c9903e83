/**
 * Issue 23's peer side by side: ppsynth's default logistic model (the `student-t` coefficient
 * prior) on a real public-use file, the March 1988 CPS (examples/cps1988.csv, n = 28,155),
 * against the recorded rstan fit of test/reference/logistic_student_t.stan
 * (test/reference/cps1988_stan.R): parttime ~ education + experience + ethnicity + smsa,
 * unweighted. Every coefficient's posterior mean within 4 combined MCSE, √(sd₁²/ESS₁ +
 * sd₂²/ESS₂) with bulk ESS; and the model's prior, to the last digit, the Stan program's
 * β_k ~ Student-t(3, 0, 2.5) (the posterior at n = 28,155 hardly depends on it).
 *
 * The fit runs on the file's 2,906 distinct (outcome, covariates) rows, each weighted by its count
 * (`mergeEqualRecords`): the same posterior at a tenth of the records (issue 36), its log density
 * and gradient checked against the 28,155-row model's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fitForStan } from "../mcmc/_stan_reference.ts";
import { CPS1988_DESIGN, CPS1988_MODEL, CPS1988_REFERENCE, mergeEqualRecords } from "./_cps1988.ts";
import { createModel } from "../../src/models/mod.ts";
import { UNWEIGHTED } from "../../src/models/model.ts";
import { lgamma } from "../../src/stats/special.ts";

const REFERENCE = CPS1988_REFERENCE;
const DESIGN = CPS1988_DESIGN;
const MODEL = CPS1988_MODEL;
const MERGED = mergeEqualRecords(DESIGN);
const MERGED_MODEL = createModel("logistic", { ...MERGED.design, coefficientPrior: "student-t" });

/** log t_3(β; 0, 2.5), the Stan program's prior of every coefficient. */
function logStudentT(beta: number): number {
  const nu = 3;
  const s = 2.5;
  return lgamma((nu + 1) / 2) - lgamma(nu / 2) - 0.5 * Math.log(nu * Math.PI) - Math.log(s) -
    0.5 * (nu + 1) * Math.log1p((beta / s) ** 2 / nu);
}

Deno.test("the CPS 1988 design and prior are the Stan program's: X = (1, education, experience, afam, smsa=yes), β_k ~ t(3, 0, 2.5)", () => {
  assert.equal(DESIGN.n, REFERENCE.data.n);
  assert.deepEqual(DESIGN.outcomeLevels, REFERENCE.data.outcome_levels);
  assert.deepEqual(DESIGN.coefficientNames, REFERENCE.coefficients);
  const k = DESIGN.k;
  // With every α_i = 0 the log density is the prior's; in the sampled coordinates u = (β, v) it
  // is Σ_k log t(β_k) + Σ_k log p(v_k), so at a fixed v its change in β is Σ_k Δ log t(β_k).
  const prior = (beta: number[]) =>
    MODEL.logDensity(Float64Array.of(...beta, ...beta.map(() => 0.3)), null, {
      alpha: new Float64Array(DESIGN.n),
    });
  const base = [0, 0, 0, 0, 0];
  for (const beta of [[-2, 0.1, 0.05, 1, -0.5], [7, -4, 0.5, -12, 30]]) {
    const want = beta.reduce((sum, b) => sum + logStudentT(b) - logStudentT(0), 0);
    const got = prior(beta) - prior(base);
    assert.ok(Math.abs(got - want) < 1e-12 * Math.max(1, Math.abs(want)), `${got} vs ${want}`);
  }
  assert.equal(MODEL.dim, 2 * k);
});

Deno.test("the CPS 1988 file's equal records merged and weighted by their counts keep its log density and gradient", () => {
  assert.equal(MERGED.design.n, 2906);
  assert.equal(MERGED.alpha.reduce((sum, c) => sum + c, 0), DESIGN.n);
  const points = [
    [-2, 0.1, 0.05, 1, -0.5, 0, 0, 0, 0, 0],
    [-1, -0.1, 0.02, 0.3, 0.2, 1, 2, -1, 0, 0.5],
  ];
  for (const u of points) {
    const [grad, mergedGrad] = [new Float64Array(MODEL.dim), new Float64Array(MODEL.dim)];
    const want = MODEL.logDensity(Float64Array.from(u), grad, UNWEIGHTED);
    const got = MERGED_MODEL.logDensity(Float64Array.from(u), mergedGrad, { alpha: MERGED.alpha });
    assert.ok(Math.abs(got - want) < 1e-10 * Math.abs(want), `${got} vs ${want}`);
    grad.forEach((g, j) => {
      assert.ok(Math.abs(mergedGrad[j] - g) < 1e-9 * Math.max(1, Math.abs(g)), `∂${j}`);
    });
  }
});

Deno.test("NUTS posterior means of the default logistic model on the CPS 1988 file match rstan's within 4 combined MCSE", async () => {
  assert.equal(REFERENCE.sampler.divergences, 0, "the reference fit has divergences");
  const fit = await fitForStan(MERGED_MODEL, { alpha: MERGED.alpha }, 23, 1000);
  REFERENCE.coefficients.forEach((name, j) => {
    const ours = fit.summary[name];
    const stan = REFERENCE.fit[`beta[${j + 1}]`];
    const combined = Math.sqrt(ours.sd ** 2 / ours.essBulk + stan.sd ** 2 / stan.ess_bulk);
    const difference = ours.mean - stan.mean;
    assert.ok(
      Math.abs(difference) <= 4 * combined,
      `${name}: ppsynth ${ours.mean}, Stan ${stan.mean}, 4·MCSE ${4 * combined}`,
    );
  });
});
