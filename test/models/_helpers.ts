/**
 * Shared fixtures for the model tests: seeded designs, finite-difference gradients, a censoring
 * bound away from every kink, and the checks every model gets.
 *
 * @module
 */
import assert from "node:assert/strict";
import { det, inv, multiply } from "mathjs";
import { fitModel } from "../../src/mcmc/fit.ts";
import { Rng } from "../../src/random/rng.ts";
import type { Design, Model, Weighting } from "../../src/models/model.ts";
import { createModel, type ModelName, outcomeKind } from "../../src/models/mod.ts";
import { isSurveyModel, type SurveyDraw, type SurveyModel } from "../../src/models/survey_model.ts";

/** A design with an intercept and k − 1 standard normal covariates (seeded). */
export function makeDesign(y: Float64Array, k: number, seed: number): Design {
  const n = y.length;
  const rng = new Rng(seed, 7);
  const x = new Float64Array(n * k);
  for (let i = 0; i < n; i++) {
    x[i * k] = 1;
    for (let j = 1; j < k; j++) x[i * k + j] = rng.normal();
  }
  const names = ["intercept"];
  for (let j = 1; j < k; j++) names.push(`x${j}`);
  return { n, k, y, x, coefficientNames: names };
}

/**
 * Data simulated from the model itself: builds a model on placeholder outcomes, draws y at θ,
 * and returns a model bound to the draws.
 */
export function simulatedModel(
  build: (design: Design) => Model,
  placeholder: number,
  n: number,
  k: number,
  theta: (dim: number) => Float64Array,
  seed: number,
): Model {
  const design = makeDesign(new Float64Array(n).fill(placeholder), k, seed);
  const scaffold = build(design);
  const y = scaffold.simulate(theta(scaffold.dim), new Rng(seed, 11), new Float64Array(n));
  return build({ ...design, y });
}

/**
 * Central finite-difference gradient with one Richardson step:
 * (4·D(h/2) − D(h))/3, D(h) = (f(u + h e_j) − f(u − h e_j))/(2h), error O(h⁴).
 */
export function finiteDifferenceGradient(
  f: (u: Float64Array) => number,
  u: Float64Array,
  h = 1e-4,
): Float64Array {
  const g = new Float64Array(u.length);
  const v = Float64Array.from(u);
  const central = (j: number, step: number): number => {
    v[j] = u[j] + step;
    const up = f(v);
    v[j] = u[j] - step;
    const down = f(v);
    v[j] = u[j];
    return (up - down) / (2 * step);
  };
  for (let j = 0; j < u.length; j++) {
    const step = h * Math.max(1, Math.abs(u[j]));
    g[j] = (4 * central(j, step / 2) - central(j, step)) / 3;
  }
  return g;
}

/** Asserts |actual − expected| ≤ rtol·max(1, |expected|) entry by entry. */
export function assertAllClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  rtol: number,
  what: string,
): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let j = 0; j < actual.length; j++) {
    const tol = rtol * Math.max(1, Math.abs(expected[j]));
    assert.ok(
      Math.abs(actual[j] - expected[j]) <= tol,
      `${what}[${j}]: actual=${actual[j]}, expected=${expected[j]}, tol=${tol}`,
    );
  }
}

/** Asserts |actual − expected| ≤ atol + rtol·|expected|. */
export function assertClose(
  actual: number,
  expected: number,
  rtol: number,
  atol: number,
  what: string,
): void {
  const tol = atol + rtol * Math.abs(expected);
  assert.ok(
    Math.abs(actual - expected) <= tol,
    `${what}: actual=${actual}, expected=${expected}, diff=${actual - expected}, tol=${tol}`,
  );
}

/** n uniform draws in [lo, hi) from a seeded stream. */
export function uniforms(n: number, lo: number, hi: number, seed: number): Float64Array {
  const rng = new Rng(seed, 3);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = lo + (hi - lo) * rng.uniform();
  return out;
}

/**
 * A censoring bound C in the middle of the widest gap between consecutive sorted |α_i·ℓ_i| in
 * their middle half, so some records are clamped, some are not, and none sits near a kink.
 */
export function censorAwayFromKinks(model: Model, u: Float64Array, alpha: Float64Array): number {
  const l = model.logLik(model.constrain(u), new Float64Array(model.design.n));
  const c = Array.from(l, (v, i) => Math.abs(alpha[i] * v)).sort((a, b) => a - b);
  let best = -1;
  let at = 0;
  for (let i = Math.floor(c.length / 4); i < Math.floor((3 * c.length) / 4); i++) {
    if (c[i + 1] - c[i] > best) {
      best = c[i + 1] - c[i];
      at = 0.5 * (c[i] + c[i + 1]);
    }
  }
  assert.ok(best > 1e-2, `no usable gap for the censoring bound: widest=${best}`);
  return at;
}

/**
 * Checks logDensity's gradient against finite differences at u for one weighting, that the
 * value does not depend on whether a gradient is asked for, and that stale gradient entries are
 * overwritten.
 */
export function checkGradient(model: Model, u: Float64Array, weighting: Weighting, rtol = 1e-6) {
  const grad = new Float64Array(model.dim).fill(123.456);
  const value = model.logDensity(u, grad, weighting);
  assert.ok(Number.isFinite(value), `logDensity is not finite: ${value}`);
  assert.equal(model.logDensity(u, null, weighting), value);
  const fd = finiteDifferenceGradient((v) => model.logDensity(v, null, weighting), u);
  assertAllClose(grad, fd, rtol, `${model.name} gradient (K=${model.design.k})`);
}

/** Draws a random u around a centre: coefficients ±spread, log-scales in [−1, 1]. */
export function randomU(model: Model, centre: Float64Array, spread: number, seed: number) {
  const rng = new Rng(seed, 5);
  const u = Float64Array.from(centre);
  const k = model.design.k;
  for (let j = 0; j < k; j++) u[j] += spread * (2 * rng.uniform() - 1);
  for (let j = k; j < model.dim; j++) u[j] = 2 * rng.uniform() - 1;
  return u;
}

/**
 * The gradient checks every model gets: several random points, random α ∈ [0, 1], with and
 * without censoring (bound placed away from kinks).
 */
export function checkGradients(model: Model, centre: Float64Array, spread: number, seed: number) {
  for (let r = 0; r < 3; r++) {
    const u = randomU(model, centre, spread, seed + r);
    checkGradientWeightings(model, u, uniforms(model.design.n, 0, 1, seed + 100 + r));
  }
}

/** constrain ∘ unconstrain is the identity, and the names are the documented ones. */
export function checkRoundTrip(model: Model, theta: Float64Array, extraName: string | null) {
  const u = model.unconstrain(theta);
  assertAllClose(model.constrain(u), theta, 1e-14, `${model.name} round trip`);
  assertAllClose(model.unconstrain(model.constrain(u)), u, 1e-14, `${model.name} round trip u`);
  const names = [...model.design.coefficientNames];
  for (const c of model.design.coefficientNames) names.push(`sigma_beta_${c}`);
  if (extraName !== null) names.push(extraName);
  assert.deepEqual(model.paramNames, names);
  assert.equal(model.dim, names.length);
  const bad = Float64Array.from(theta);
  bad[model.design.k] = 0;
  assert.throws(() => model.unconstrain(bad), RangeError);
}

/**
 * {@linkcode checkRoundTrip} of a model whose last parameter is the dispersion φ (named "phi"),
 * and u_φ = log(1/φ).
 */
export function checkPhiRoundTrip(model: Model, theta: Float64Array) {
  checkRoundTrip(model, theta, "phi");
  const last = model.dim - 1;
  assertClose(model.unconstrain(theta)[last], -Math.log(theta[last]), 1e-15, 0, "u_phi");
}

/**
 * A model of two linear predictors on a design of K = 2 (4 coefficients, then their 4 prior
 * scales, then any others): its parameter names are `names` (the dimension their count), its
 * metric is diagonal, constrain ∘ unconstrain is the identity at θ with u = log θ from the
 * scales on, θ with parameter `bad` at 0 is refused with `refusal`, and a u of 4 values with a
 * RangeError.
 */
export function checkTwoPartRoundTrip(
  model: Model,
  names: readonly string[],
  theta: Float64Array,
  bad: number,
  refusal: RegExp,
) {
  assert.equal(model.dim, names.length);
  assert.deepEqual(model.paramNames, names);
  assert.equal(model.metric, "diag");
  const u = model.unconstrain(theta);
  assertAllClose(model.constrain(u), theta, 1e-14, "round trip");
  assertAllClose(u.subarray(4), Array.from(theta.subarray(4), Math.log), 1e-15, "log scales");
  const refused = Float64Array.from(theta);
  refused[bad] = 0;
  assert.throws(() => model.unconstrain(refused), refusal);
  assert.throws(() => model.constrain(new Float64Array(4)), RangeError);
}

/**
 * Mean of `reps` simulated datasets' record means against the model mean, within 5 standard
 * errors computed from the model variance.
 */
export function checkSimulatedMean(
  model: Model,
  theta: Float64Array,
  mean: (i: number) => number,
  variance: (i: number) => number,
  reps: number,
  seed: number,
) {
  const n = model.design.n;
  const out = new Float64Array(n);
  const rng = new Rng(seed, 13);
  let sum = 0;
  for (let r = 0; r < reps; r++) {
    model.simulate(theta, rng, out);
    for (let i = 0; i < n; i++) sum += out[i];
  }
  let mu = 0;
  let v = 0;
  for (let i = 0; i < n; i++) {
    mu += mean(i);
    v += variance(i);
  }
  const total = n * reps;
  const se = Math.sqrt((v / n) / total);
  const got = sum / total;
  assert.ok(
    Math.abs(got - mu / n) < 5 * se,
    `${model.name} simulated mean ${got} vs model mean ${mu / n} (se ${se})`,
  );
}

/**
 * Simulates `reps` datasets from `model` at `theta` (one `Rng(seed, 13)` for all) and passes each
 * record's simulated outcome to `record`.
 */
export function simulateRecords(
  model: Model,
  theta: Float64Array,
  reps: number,
  seed: number,
  record: (i: number, y: number) => void,
): void {
  const n = model.design.n;
  const out = new Float64Array(n);
  const rng = new Rng(seed, 13);
  for (let r = 0; r < reps; r++) {
    model.simulate(theta, rng, out);
    for (let i = 0; i < n; i++) record(i, out[i]);
  }
}

/** Asserts that `count` events in `reps` trials are within 5 standard errors of probability p. */
export function assertFrequency(count: number, reps: number, p: number, label: string): void {
  const se = Math.sqrt(p * (1 - p) / reps);
  const got = count / reps;
  assert.ok(Math.abs(got - p) < 5 * se, `${label}: ${got} vs ${p}`);
}

/**
 * A record whose ℓ is not finite, given α = 0, leaves the target and gradient exactly as
 * without it.
 */
export function checkZeroWeightRecord(
  build: (design: Design) => Model,
  y: Float64Array,
  badY: number,
  u: Float64Array,
) {
  const base = makeDesign(y, 2, 99);
  const n = base.n + 1;
  const x = new Float64Array(n * 2);
  x.set(base.x);
  x[2 * base.n] = 1;
  x[2 * base.n + 1] = 0.3;
  const yy = new Float64Array(n);
  yy.set(y);
  yy[base.n] = badY;
  const withBad = build({ ...base, n, x, y: yy });
  const without = build(base);
  const theta = withBad.constrain(u);
  const l = withBad.logLik(theta, new Float64Array(n));
  assert.ok(!Number.isFinite(l[base.n]), `ℓ of the bad record is finite: ${l[base.n]}`);
  const alpha = new Float64Array(n).fill(1);
  alpha[base.n] = 0;
  for (const censor of [undefined, 1]) {
    const g1 = new Float64Array(withBad.dim);
    const g2 = new Float64Array(without.dim);
    const v1 = withBad.logDensity(u, g1, { alpha, censor });
    const v2 = without.logDensity(u, g2, { alpha: alpha.subarray(0, base.n), censor });
    assert.ok(Number.isFinite(v1));
    assert.equal(v1, v2);
    assert.deepEqual(g1, g2);
  }
}

/**
 * logDensity(u, α) − logDensity(u, α = 0) equals Σ_i clamp(α_i·ℓ_i, ±C) computed from logLik:
 * the target is the prior plus the weighted (and censored) record log-likelihoods.
 */
export function checkTargetIsWeightedSum(
  model: Model,
  u: Float64Array,
  alpha: Float64Array,
  censor?: number,
) {
  const n = model.design.n;
  const l = model.logLik(model.constrain(u), new Float64Array(n));
  const c = censor ?? Infinity;
  let want = 0;
  for (let i = 0; i < n; i++) want += Math.min(c, Math.max(-c, alpha[i] * l[i]));
  const prior = model.logDensity(u, null, { alpha: new Float64Array(n) });
  const got = model.logDensity(u, null, { alpha, censor }) - prior;
  assertClose(got, want, 1e-12, 1e-12 * Math.abs(prior), `${model.name} weighted sum`);
}

/**
 * `checkTargetIsWeightedSum` at θ with α uniform on [0, 1] (seed `alphaSeed`), uncensored and
 * censored at C = 1.5.
 */
export function checkTargetAt(model: Model, theta: Float64Array, alphaSeed: number) {
  const u = model.unconstrain(theta);
  const alpha = uniforms(model.design.n, 0, 1, alphaSeed);
  checkTargetIsWeightedSum(model, u, alpha);
  checkTargetIsWeightedSum(model, u, alpha, 1.5);
}

/**
 * For K = 1 and 3, `checkGradientWeightings` at three points `jitter` draws near θ, each with its
 * own α uniform on [0, 1]; `build(k)` gives the model and θ.
 */
export function checkGradientsForK<M extends Model>(
  build: (k: number) => { model: M; theta: Float64Array },
  jitter: (model: M, theta: Float64Array, seed: number) => Float64Array,
) {
  for (const k of [1, 3]) {
    const { model, theta } = build(k);
    for (let r = 0; r < 3; r++) {
      const u = jitter(model, theta, 10 * k + r);
      const alpha = uniforms(model.design.n, 0, 1, 50 + 10 * k + r);
      checkGradientWeightings(model, u, alpha);
    }
  }
}

/** The coefficient names of a 3-level {@linkcode factorSurveyDesign}, each after `prefix`. */
export function threeLevelNames(prefix: string): string[] {
  return ["intercept", "level=2", "level=3"].map((c) => prefix + c);
}

/**
 * A survey design whose K − 1 covariates are the treatment dummies of a K-level factor (record i
 * at level i mod K), record i's (y, w) being `draw(i mod K)`, called in record order.
 */
export function factorSurveyDesign(
  n: number,
  k: number,
  draw: (level: number) => [number, number],
): Design {
  const x = new Float64Array(n * k);
  const y = new Float64Array(n);
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i * k] = 1;
    const level = i % k;
    if (level > 0) x[i * k + level] = 1;
    [y[i], w[i]] = draw(level);
  }
  const names = ["intercept"];
  for (let j = 1; j < k; j++) names.push(`level=${j + 1}`);
  return { n, k, y, x, coefficientNames: names, weight: w };
}

/** The log density at r of the bivariate normal N(0, s), from mathjs's inverse and determinant. */
export function bivariateNormalLogPdf(r: number[], s: number[][]): number {
  const quad = multiply(r, multiply(inv(s), r)) as unknown as number;
  return -Math.log(2 * Math.PI) - 0.5 * Math.log(det(s) as number) - 0.5 * quad;
}

/**
 * Asserts that m deviations from a N(0, sd²) law, given by their sum and sum of squares, have a
 * mean within 5·sd/√m of 0 and a mean square within 5·√(2/m)·sd² of sd².
 */
export function assertNormalDeviations(
  sum: number,
  sumSq: number,
  m: number,
  sd: number,
  label: string,
) {
  const mean = sum / m;
  assert.ok(Math.abs(mean) < 5 * sd / Math.sqrt(m), `${label}: mean ${mean}`);
  // Var of the sample variance of normals ≈ 2σ⁴/m.
  const variance = sumSq / m;
  const se = Math.sqrt(2 / m) * sd * sd;
  assert.ok(Math.abs(variance - sd * sd) < 5 * se, `${label}: variance ${variance}`);
}

/** A design with K = 2 whose covariate is η itself, so θ = (0, 1, …) puts record i at η_i. */
export function designAtEta(y: number[], eta: number[]): Design {
  const x = new Float64Array(2 * y.length);
  for (let i = 0; i < y.length; i++) {
    x[2 * i] = 1;
    x[2 * i + 1] = eta[i];
  }
  return {
    n: y.length,
    k: 2,
    y: Float64Array.from(y),
    x,
    coefficientNames: ["intercept", "eta"],
  };
}

/**
 * A survey model bound to `withBad` ignores record `bad` when α_bad = 0 although its ℓ is not
 * finite: logDensity and its gradient (α = 0.7 elsewhere, censored or not) equal those of the
 * model built on `base` without that record.
 */
export function checkSurveyZeroWeightRecord(
  withBad: Model,
  build: (design: Design) => Model,
  base: Design,
  theta: Float64Array,
  bad: number,
) {
  const { n, k } = base;
  const alpha = new Float64Array(n).fill(0.7);
  alpha[bad] = 0;
  assert.ok(!Number.isFinite(withBad.logLik(theta, new Float64Array(n))[bad]));
  const keep = (v: Float64Array, width: number) =>
    v.filter((_, i) => Math.floor(i / width) !== bad);
  const without = build({
    ...base,
    n: n - 1,
    y: keep(base.y, 1),
    x: keep(base.x, k),
    weight: keep(base.weight!, 1),
  });
  const u = withBad.unconstrain(theta);
  for (const censor of [undefined, 1]) {
    const g1 = new Float64Array(withBad.dim);
    const g2 = new Float64Array(without.dim);
    const v1 = withBad.logDensity(u, g1, { alpha, censor });
    const v2 = without.logDensity(u, g2, { alpha: keep(alpha, 1), censor });
    assert.ok(Number.isFinite(v1));
    assertClose(v1, v2, 1e-14, 0, "value");
    assertAllClose(g1, g2, 1e-13, "gradient");
  }
}

/**
 * The survey model `name` (class `Survey`) refuses a design without weights, is built by
 * `createModel()` from `design`, is a survey model, and its outcome is positive.
 */
export function checkSurveyModelBuilt(
  name: ModelName,
  Survey: new (design: Design) => Model,
  design: Design,
) {
  const { weight: _, ...noWeight } = design;
  assert.throws(() => new Survey(noWeight), /weight/);
  const model = createModel(name, design);
  assert.ok(model instanceof Survey);
  assert.ok(isSurveyModel(model));
  assert.equal(outcomeKind(name), "positive");
}

/**
 * constrain ∘ unconstrain is the identity at θ; θ with each `[j, value]` of `refused` in place
 * is refused with a RangeError, as is a u of 3 values. Returns u = unconstrain(θ).
 */
export function checkRangeChecks(
  model: Model,
  theta: Float64Array,
  refused: readonly (readonly [number, number])[],
): Float64Array {
  const u = model.unconstrain(theta);
  assertAllClose(model.constrain(u), theta, 1e-14, "θ round trip");
  for (const [j, value] of refused) {
    const bad = Float64Array.from(theta);
    bad[j] = value;
    assert.throws(() => model.unconstrain(bad), RangeError);
  }
  assert.throws(() => model.constrain(new Float64Array(3)), RangeError);
  return u;
}

/**
 * {@linkcode checkSurveyZeroWeightRecord} of the model built on `base` with record `bad`'s
 * `field` (y or weight) set to 0, which makes its ℓ not finite.
 */
export function checkSurveyZeroRecord(
  build: (design: Design) => Model,
  base: Design,
  theta: Float64Array,
  field: "y" | "weight",
  bad = 5,
) {
  const values = Float64Array.from(base[field]!);
  values[bad] = 0;
  checkSurveyZeroWeightRecord(build({ ...base, [field]: values }), build, base, theta, bad);
}

/**
 * Draws 400 surveys of `model` at θ (n records, record i at level i mod k of the design's
 * factor) from one stream (`new Rng(6, 1)`), each with `simulateSurvey(θ, rng, out, total)`,
 * calls `check(out)` after each and asserts log ỹ*_i − `mean(level)` is N(0, σ_y²) at every
 * level (`label(level)` naming it); then that `simulate()` draws the outcomes of
 * `simulateSurvey()` from the same stream.
 */
export function checkSurveyOutcomes(
  model: SurveyModel,
  theta: Float64Array,
  k: number,
  sigmaY: number,
  mean: (level: number) => number,
  options: {
    readonly total?: number;
    readonly check: (out: SurveyDraw) => void;
    readonly label: (level: number) => string;
  },
) {
  const n = model.design.n;
  const out = { y: new Float64Array(n), w: new Float64Array(n) };
  const rng = new Rng(6, 1);
  const sum = new Float64Array(k);
  const sumSq = new Float64Array(k);
  const count = new Float64Array(k);
  for (let r = 0; r < 400; r++) {
    model.simulateSurvey(theta, rng, out, options.total);
    options.check(out);
    for (let i = 0; i < n; i++) {
      const d = Math.log(out.y[i]) - mean(i % k);
      sum[i % k] += d;
      sumSq[i % k] += d * d;
      count[i % k]++;
    }
  }
  for (let level = 0; level < k; level++) {
    assertNormalDeviations(sum[level], sumSq[level], count[level], sigmaY, options.label(level));
  }
  const a = model.simulateSurvey(theta, new Rng(8), out).y.slice();
  assert.deepEqual(model.simulate(theta, new Rng(8), new Float64Array(n)), a);
}

/**
 * θ for a regression model of dimension `dim`: intercept `b0`, 0.3 for every other coefficient and
 * scale, and `extra` for the model-specific last parameter (σ, φ) where the model has one.
 */
export const thetaAt = (b0: number, extra?: number) => (dim: number): Float64Array => {
  const t = new Float64Array(dim).fill(0.3);
  t[0] = b0;
  if (extra !== undefined) t[dim - 1] = extra;
  return t;
};

/** The parameters of the two log-density tests every regression model gets. */
export interface LogDensityCase {
  /** The outcome of the scaffold design the data are simulated from. */
  readonly placeholder: number;
  /** θ as `thetaAt(b0, extra)` for the gradient test, with the jitter radius and seed base. */
  readonly gradient: {
    readonly at: readonly number[];
    readonly radius: number;
    readonly seed: number;
  };
  /** θ as `thetaAt(b0, extra)` for the weighted-sum test, and its censoring bound. */
  readonly target: { readonly at: readonly number[]; readonly censor: number };
}

/**
 * Registers the log-density tests every regression model gets: the gradient against finite
 * differences (K = 1 and 3) and the target as the prior plus Σ clamp(α·ℓ, ±C).
 */
export function logDensityTests(
  label: string,
  build: (design: Design) => Model,
  c: LogDensityCase,
): void {
  const [b0, extra] = c.gradient.at;
  Deno.test(`\`${label}.logDensity()\` gradient matches finite differences (K = 1 and 3)`, () => {
    for (const k of [1, 3]) {
      const model = simulatedModel(build, c.placeholder, 40, k, thetaAt(b0, extra), 1 + k);
      const centre = new Float64Array(model.dim);
      centre[0] = b0;
      checkGradients(model, centre, c.gradient.radius, c.gradient.seed + k);
    }
  });
  Deno.test(`\`${label}.logDensity()\` is the prior plus Σ clamp(α·ℓ, ±C)`, () => {
    const theta = thetaAt(c.target.at[0], c.target.at[1]);
    const model = simulatedModel(build, c.placeholder, 30, 3, theta, 5);
    const u = model.unconstrain(theta(model.dim));
    const alpha = uniforms(30, 0, 1, 6);
    checkTargetIsWeightedSum(model, u, alpha);
    checkTargetIsWeightedSum(model, u, alpha, c.target.censor);
  });
}

/** An intercept-only Poisson model of the two counts 1 and 2, for the shape checks of callers. */
export function twoRecordPoisson(): Model {
  return createModel("poisson", {
    n: 2,
    k: 1,
    y: Float64Array.of(1, 2),
    x: Float64Array.of(1, 1),
    coefficientNames: ["intercept"],
  });
}

/** Checks the gradient at u unweighted, with α, and with α and a censoring bound away from kinks. */
export function checkGradientWeightings(model: Model, u: Float64Array, alpha: Float64Array): void {
  checkGradient(model, u, { alpha: null });
  checkGradient(model, u, { alpha });
  checkGradient(model, u, { alpha, censor: censorAwayFromKinks(model, u, alpha) });
}

/**
 * Fits `model` unweighted (seed 13, 2 chains, 300 warm-up and 300 draws) and asserts there are no
 * divergences and every posterior mean is within 4 sd + 0.02 of θ.
 */
export function checkFitRecovers(model: Model, theta: Float64Array): void {
  const fit = fitModel(model, { alpha: null }, { seed: 13, chains: 2, warmup: 300, draws: 300 });
  assert.equal(fit.divergences, 0);
  for (let j = 0; j < model.dim; j++) {
    const s = fit.summary[model.paramNames[j]];
    assert.ok(
      Math.abs(s.mean - theta[j]) < 4 * s.sd + 0.02,
      `${model.paramNames[j]}: mean ${s.mean} sd ${s.sd}, true ${theta[j]}`,
    );
  }
}
