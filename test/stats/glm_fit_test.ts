import assert from "node:assert/strict";
import { columnDesign, fitLogistic, fitOls, GlmFitError } from "../../src/stats/glm_fit.ts";
import type { Column } from "../../src/data/dataset.ts";
import { readUtilityReference, UTILITY_EXPECTED } from "../synthesis/_utility_reference.ts";

interface RFit {
  names: string[];
  coefficients: number[];
  standardErrors: number[];
  fitted: number[];
  deviance: number;
  sigma?: number;
  informationStandardErrors?: number[];
}

const expected = JSON.parse(await Deno.readTextFile(UTILITY_EXPECTED)) as {
  levels: Record<string, string[]>;
  ols: RFit;
  logistic: RFit;
};
const all = await readUtilityReference();

/** The confidential rows (dataset = 0) of a column, as numbers or level strings. */
function confidential(name: string): (number | string)[] {
  const dataset = all.columns.get("dataset") as Extract<Column, { kind: "numeric" }>;
  const column = all.columns.get(name)!;
  const out: (number | string)[] = [];
  for (let i = 0; i < all.n; i++) {
    if (dataset.values[i] !== 0) continue;
    out.push(column.kind === "numeric" ? column.values[i] : column.levels[column.codes[i]]);
  }
  return out;
}

/** Treatment dummies as R's model.matrix names them. */
function dummies(name: string): { names: string[]; columns: Float64Array[] } {
  const levels = expected.levels[name];
  const values = confidential(name);
  const names = levels.slice(1).map((level) => `${name}${level}`);
  const columns = levels.slice(1).map((level) =>
    Float64Array.from(values, (v) => v === level ? 1 : 0)
  );
  return { names, columns };
}

function numeric(name: string): Float64Array {
  return Float64Array.from(confidential(name) as number[]);
}

/**
 * R's model.matrix(~ numeric + factors) of the confidential rows: the intercept, the `numeric`
 * columns, then each factor's treatment dummies.
 */
function referenceDesign(numericNames: string[], factors: string[]) {
  const numerics = numericNames.map(numeric);
  const dummyColumns = factors.map(dummies);
  return columnDesign(
    ["(Intercept)", ...numericNames, ...dummyColumns.flatMap((f) => f.names)],
    [
      new Float64Array(numerics[0].length).fill(1),
      ...numerics,
      ...dummyColumns.flatMap((f) => f.columns),
    ],
  );
}

/** Asserts that every relative error of R's fit is below 1e-9. */
function assertWithin1e9(errors: Record<string, number>): void {
  for (const [what, error] of Object.entries(errors)) assert.ok(error < 1e-9, `${what}: ${error}`);
}

/** max |a − b| / max(1, |b|) over the entries. */
function relativeError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  assert.equal(a.length, b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i])));
  }
  return worst;
}

Deno.test("`fitOls()` agrees with R's lm(A ~ x1 + region + B) to 1e-9", () => {
  const design = referenceDesign(["x1"], ["region", "B"]);
  const fit = fitOls(design, numeric("A"));
  assert.deepEqual(fit.names, expected.ols.names);
  const errors = {
    coefficients: relativeError(fit.coefficients, expected.ols.coefficients),
    standardErrors: relativeError(fit.standardErrors, expected.ols.standardErrors),
    fitted: relativeError(fit.fitted, expected.ols.fitted),
    sigma: relativeError([fit.sigma], [expected.ols.sigma!]),
    deviance: relativeError([fit.deviance], [expected.ols.deviance]),
  };
  console.log("lm agreement (max relative error):", errors);
  assertWithin1e9(errors);
  assert.equal(fit.dfResidual, design.rows - 6);
});

Deno.test("`fitLogistic()` agrees with R's glm(D ~ x1 + A + B, binomial) to 1e-9 (summary()'s SEs to 1e-6)", () => {
  const design = referenceDesign(["x1", "A"], ["B"]);
  const fit = fitLogistic(design, dummies("D").columns[0]);
  assert.deepEqual(fit.names, expected.logistic.names);
  assert.equal(fit.separated, false);
  const errors = {
    coefficients: relativeError(fit.coefficients, expected.logistic.coefficients),
    standardErrors: relativeError(
      fit.standardErrors,
      expected.logistic.informationStandardErrors!,
    ),
    fitted: relativeError(fit.fitted, expected.logistic.fitted),
    deviance: relativeError([fit.deviance], [expected.logistic.deviance]),
  };
  // summary.glm's standard errors are one IRLS step behind the estimate (about 1e-7).
  const summarySE = relativeError(fit.standardErrors, expected.logistic.standardErrors);
  console.log("glm agreement (max relative error):", errors, { summarySE }, fit.iterations);
  assertWithin1e9(errors);
  assert.ok(summarySE < 1e-6, `summary() standard errors: ${summarySE}`);
});

Deno.test("`fitOls()` is unmoved by a column's location and scale (centring, then mapping back)", () => {
  // y = 3 + 2·x exactly, with x near 1e6 ± 1: XᵀX is ill-conditioned before centring.
  const x = Float64Array.from({ length: 50 }, (_, i) => 1e6 + (i - 25) / 25);
  const y = Float64Array.from(x, (v, i) => 3 + 2 * v + (i % 2 === 0 ? 1e-3 : -1e-3));
  const fit = fitOls(columnDesign(["(Intercept)", "x"], [new Float64Array(50).fill(1), x]), y);
  // The exact least-squares line through alternating ±1e-3 residuals.
  let mx = 0, my = 0;
  for (let i = 0; i < 50; i++) (mx += x[i] / 50, my += y[i] / 50);
  let sxy = 0, sxx = 0;
  for (let i = 0; i < 50; i++) (sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) ** 2);
  assert.ok(Math.abs(fit.coefficients[1] - sxy / sxx) < 1e-9);
  assert.ok(Math.abs(fit.coefficients[1] - 2) < 1e-3);
});

Deno.test("an aliased column is an error naming it, or dropped as R's NA coefficient", () => {
  const one = new Float64Array(6).fill(1);
  const a = Float64Array.of(1, 0, 0, 1, 0, 0);
  const b = Float64Array.of(0, 1, 1, 0, 0, 0);
  const c = Float64Array.from(a, (v, i) => 1 - v - b[i]); // a + b + c = 1
  const y = Float64Array.of(1, 2, 3, 2, 5, 4);
  const design = columnDesign(["(Intercept)", "a", "b", "c"], [one, a, b, c]);
  assert.throws(() => fitOls(design, y), (error: Error) => {
    assert.ok(error instanceof GlmFitError && error.reason === "aliased");
    assert.match(error.message, /column "c" is constant or a linear combination/);
    return true;
  });
  const fit = fitOls(design, y, { aliased: "drop" });
  assert.deepEqual(fit.aliased, ["c"]);
  assert.deepEqual(fit.names, ["(Intercept)", "a", "b"]);
  // Group means: c-group (rows 5, 6) mean 4.5; a-group 1.5; b-group 2.5.
  const want = [4.5, -3, -2];
  want.forEach((v, j) => assert.ok(Math.abs(fit.coefficients[j] - v) < 1e-12));
  // A constant column beside the intercept.
  const constant = columnDesign(["(Intercept)", "k"], [one, new Float64Array(6).fill(7)]);
  assert.throws(() => fitOls(constant, y), /column "k" is constant/);
});

Deno.test('separation and non-convergence are errors, never NaN; `separation: "limit"` gives the limit', () => {
  const one = new Float64Array(8).fill(1);
  // Quasi-complete separation: g = 1 ⇒ y = 1; within g = 0 the outcome varies.
  const g = Float64Array.of(0, 0, 0, 0, 1, 1, 1, 1);
  const x = Float64Array.of(0.3, -1, 0.5, 2, 0.1, 0.4, -0.2, 1);
  const y = Float64Array.of(0, 1, 0, 1, 1, 1, 1, 1);
  const design = columnDesign(["(Intercept)", "x", "g"], [one, x, g]);
  assert.throws(() => fitLogistic(design, y), (error: Error) => {
    assert.ok(error instanceof GlmFitError && error.reason === "separation");
    assert.match(error.message, /separated .*diverging: .*"g"/);
    return true;
  });
  const limit = fitLogistic(design, y, { separation: "limit" });
  assert.equal(limit.separated, true);
  for (let i = 4; i < 8; i++) assert.ok(limit.fitted[i] > 1 - 1e-9);
  // Within g = 0 the limit is the logistic fit of y on x there alone.
  const sub = fitLogistic(
    columnDesign(["(Intercept)", "x"], [one.subarray(0, 4), x.subarray(0, 4)]),
    y.subarray(0, 4),
  );
  for (let i = 0; i < 4; i++) assert.ok(Math.abs(limit.fitted[i] - sub.fitted[i]) < 1e-8);
  assert.ok([...limit.fitted].every(Number.isFinite));
  // Complete separation on x.
  const complete = columnDesign(["(Intercept)", "x"], [
    one,
    Float64Array.of(1, 2, 3, 4, 5, 6, 7, 8),
  ]);
  assert.throws(
    () => fitLogistic(complete, Float64Array.of(0, 0, 0, 0, 1, 1, 1, 1)),
    /separated/,
  );
  // Too few iterations for a well-posed fit: a convergence error.
  const well = columnDesign(["(Intercept)", "x"], [one, x]);
  assert.throws(
    () => fitLogistic(well, Float64Array.of(0, 1, 0, 1, 1, 0, 1, 1), { maxIterations: 1 }),
    (error: Error) => error instanceof GlmFitError && error.reason === "convergence",
  );
});

Deno.test("bad inputs are clear errors", () => {
  const one = Float64Array.of(1, 1, 1);
  assert.throws(
    () => fitOls(columnDesign(["(Intercept)", "x"], [one, Float64Array.of(1, NaN, 2)]), one),
    /column "x" is not finite in row 2/,
  );
  assert.throws(
    () => fitLogistic(columnDesign(["(Intercept)"], [one]), Float64Array.of(0, 2, 1)),
    /not 0 or 1 in row 2/,
  );
  assert.throws(
    () =>
      fitOls(
        columnDesign(["(Intercept)", "x"], [one.subarray(0, 2), Float64Array.of(1, 2)]),
        one.subarray(0, 2),
      ),
    /no residual degrees of freedom/,
  );
});
