/**
 * Regression data for the GPU parity and sampler tests: n records with K = 3 (an intercept and
 * two covariates, η = 0.5 + 0.4·x₁ − 0.3·x₂) for any model of the GPU HMC sampler, the same
 * regressions under the `student-t` prior, categorical regressions drawn from the model, and
 * weights.
 *
 * @module
 */
import { CategoricalModel } from "../../src/models/categorical.ts";
import type { Design } from "../../src/models/model.ts";
import { createModel, type Model, type ModelName } from "../../src/models/mod.ts";
import { sampleNegBinomial, sampleNormal, sampleUniform } from "../../src/random/distributions.ts";
import { Rng } from "../../src/random/rng.ts";

/** A dataset of n records with K = 3 (intercept and two covariates) for `name`. */
export function dataset(name: ModelName, n: number, seed: number): Model {
  const rng = new Rng(seed);
  const k = 3;
  const x = new Float64Array(n * k);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x1 = sampleNormal(rng, 0, 1);
    const x2 = sampleUniform(rng, 0, 2);
    x.set([1, x1, x2], i * k);
    const eta = 0.5 + 0.4 * x1 - 0.3 * x2;
    switch (name) {
      case "poisson":
      case "negbin":
        y[i] = sampleNegBinomial(rng, 20 * Math.exp(eta), 4);
        break;
      case "beta":
        y[i] = 1 / (1 + Math.exp(-eta - sampleNormal(rng, 0, 0.8)));
        break;
      case "normal":
        y[i] = 10 * eta + sampleNormal(rng, 0, 2);
        break;
      case "logistic":
        y[i] = rng.uniform() < 1 / (1 + Math.exp(-4 * eta)) ? 1 : 0;
        break;
      default:
        y[i] = Math.exp(eta + sampleNormal(rng, 0, 0.5));
    }
  }
  return createModel(name, { n, k, y, x, coefficientNames: ["intercept", "x1", "x2"] });
}

/** α_i uniform on (0, 1), every 7th record 0. */
export function weights(n: number, seed: number): Float64Array {
  const rng = new Rng(seed);
  return Float64Array.from({ length: n }, (_, i) => (i % 7 === 3 ? 0 : rng.uniform()));
}

/**
 * A categorical regression of n records on k covariates (an intercept, then standard normals)
 * with the outcome `levels`, its outcome drawn from the model at θ = `theta(m)` (m = (L − 1)·k
 * coefficients, then their m scales); `prior` names the design's coefficient prior.
 */
export function categoricalData(
  n: number,
  k: number,
  levels: string[],
  seed: number,
  theta: (m: number) => Float64Array,
  prior?: Pick<Design, "coefficientPrior">,
): CategoricalModel {
  const rng = new Rng(seed);
  const x = new Float64Array(n * k);
  for (let i = 0; i < n; i++) {
    x[i * k] = 1;
    for (let j = 1; j < k; j++) x[i * k + j] = sampleNormal(rng, 0, 1);
  }
  const design = {
    n,
    k,
    y: new Float64Array(n),
    x,
    coefficientNames: Array.from({ length: k }, (_, j) => (j === 0 ? "intercept" : `x${j}`)),
    outcomeLevels: levels,
    ...prior,
  };
  const at = theta((levels.length - 1) * k);
  const y = new CategoricalModel(design).simulate(at, rng, new Float64Array(n));
  return new CategoricalModel({ ...design, y });
}

/**
 * A regression of n records on k covariates (intercept, then standard normals) under the
 * `student-t` prior, η = 0.5 + 0.4·x₁ − 0.3·x₂ (…), y drawn as `name`'s model would (logistic,
 * normal or lognormal).
 */
export function studentTRegression(name: ModelName, n: number, k: number, seed: number): Model {
  const rng = new Rng(seed);
  const x = new Float64Array(n * k);
  const y = new Float64Array(n);
  const slopes = [0.4, -0.3];
  for (let i = 0; i < n; i++) {
    x[i * k] = 1;
    let eta = 0.5;
    for (let j = 1; j < k; j++) {
      x[i * k + j] = sampleNormal(rng, 0, 1);
      eta += slopes[(j - 1) % 2] * x[i * k + j];
    }
    if (name === "logistic") y[i] = rng.uniform() < 1 / (1 + Math.exp(-2 * eta)) ? 1 : 0;
    else if (name === "normal") y[i] = 10 * eta + sampleNormal(rng, 0, 2);
    else y[i] = Math.exp(eta + sampleNormal(rng, 0, 0.5));
  }
  const coefficientNames = Array.from({ length: k }, (_, j) => (j === 0 ? "intercept" : `x${j}`));
  return createModel(name, { n, k, y, x, coefficientNames, coefficientPrior: "student-t" });
}

/**
 * n records with `levels` outcome levels and k covariates (an intercept, then standard normals),
 * the outcome drawn from the model at β_l = (intercept_l, ±1.2/j): intercepts 0.8, −0.8, 0.4.
 */
export function categoricalRegression(
  n: number,
  levels: number,
  k: number,
  seed: number,
): CategoricalModel {
  const names = Array.from({ length: levels }, (_, l) => `level${l}`);
  return categoricalData(n, k, names, seed, (m) => {
    const theta = new Float64Array(2 * m).fill(1);
    for (let l = 1; l < levels; l++) {
      for (let j = 0; j < k; j++) {
        theta[(l - 1) * k + j] = j === 0 ? [0.8, -0.8, 0.4][l - 1] : (l % 2 === 1 ? 1.2 : -1.2) / j;
      }
    }
    return theta;
  });
}
