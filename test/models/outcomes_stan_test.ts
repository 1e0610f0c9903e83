/**
 * ppsynth's NUTS posterior of the α-weighted logistic, categorical and hurdle models against the
 * recorded rstan fits of test/reference/outcomes_stan.R (`_stan_outcome.ts`): every posterior mean
 * within 4 combined MCSE. Apart from the models' unit tests, which run in `deno task test:quick`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { checkAgainstStan, OUTCOME_REFERENCE } from "./_stan_outcome.ts";

Deno.test("NUTS posterior means of the weighted logistic model match rstan's within 4 combined MCSE", async () => {
  const coefficients = OUTCOME_REFERENCE.coefficients;
  await checkAgainstStan(
    "logistic",
    { y: "yb" },
    () =>
      Object.fromEntries(coefficients.flatMap((c, j) => [
        [c, `beta[${j + 1}]`],
        [`sigma_beta_${c}`, `sigma_beta[${j + 1}]`],
      ])),
  );
});

Deno.test("NUTS posterior means of the weighted categorical model match rstan's within 4 combined MCSE", async () => {
  const { coefficients, yc_levels: levels } = OUTCOME_REFERENCE;
  const { model } = await checkAgainstStan(
    "categorical",
    { y: "yc" },
    () =>
      Object.fromEntries(
        levels.slice(1).flatMap((level, l) =>
          coefficients.flatMap((c, j) => [
            [`level=${level}:${c}`, `beta[${j + 1},${l + 1}]`],
            [`sigma_beta_level=${level}:${c}`, `sigma_beta[${j + 1},${l + 1}]`],
          ])
        ),
      ),
  );
  assert.deepEqual(model.design.outcomeLevels, levels);
});

Deno.test("NUTS posterior means of the weighted hurdle model match rstan's within 4 combined MCSE", async () => {
  const coefficients = OUTCOME_REFERENCE.coefficients;
  await checkAgainstStan("hurdle", { y: "yh" }, () =>
    Object.fromEntries([
      ...coefficients.flatMap((c, j) => [
        [`nonzero:${c}`, `gamma[${j + 1}]`],
        [`amount:${c}`, `beta[${j + 1}]`],
        [`sigma_beta_nonzero:${c}`, `sigma_gamma[${j + 1}]`],
        [`sigma_beta_amount:${c}`, `sigma_beta[${j + 1}]`],
      ]),
      ["sigma", "sigma"],
    ]));
});
