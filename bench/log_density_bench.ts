/**
 * `deno bench`: one log-density-and-gradient evaluation (the NUTS hot loop) per model, and the
 * CPU Lipschitz bound over S = 100 draws, at n = 1000 and n = 10,000, with the intercept alone
 * (k = 1: every record shares η) and with three standard normal covariates (k = 4: every record
 * has its own η, as on a real file).
 *
 *     deno bench --allow-read bench/
 *
 * @module
 */
import { lipschitz } from "../src/mechanisms/lipschitz.ts";
import { createModel } from "../src/models/mod.ts";
import { sampleBeta, sampleNegBinomial, sampleNormal } from "../src/random/distributions.ts";
import { Rng } from "../src/random/rng.ts";

/** The regression models (the survey models need weights and are benchmarked by their fits). */
const MODELS = ["poisson", "negbin", "beta", "normal", "lognormal"] as const;

function outcome(name: typeof MODELS[number], rng: Rng): number {
  switch (name) {
    case "poisson":
    case "negbin":
      return sampleNegBinomial(rng, 100, 10);
    case "beta":
      return sampleBeta(rng, 2, 5);
    case "normal":
      return sampleNormal(rng, 3, 1);
    case "lognormal":
      return Math.exp(sampleNormal(rng, 3, 1));
  }
}

/** n×k row-major covariates: the intercept, then standard normals. */
function covariates(n: number, k: number, rng: Rng): Float64Array {
  const x = new Float64Array(n * k);
  for (let i = 0; i < n; i++) {
    x[i * k] = 1;
    for (let j = 1; j < k; j++) x[i * k + j] = 0.1 * rng.normal();
  }
  return x;
}

for (const [n, k] of [[1000, 1], [10_000, 1], [1000, 4], [10_000, 4]]) {
  for (const name of MODELS) {
    const rng = new Rng(1);
    const y = Float64Array.from({ length: n }, () => outcome(name, rng));
    const model = createModel(name, {
      n,
      k,
      y,
      x: covariates(n, k, rng),
      coefficientNames: Array.from({ length: k }, (_, j) => j === 0 ? "intercept" : `x${j}`),
    });
    const u = model.initialPoint();
    const grad = new Float64Array(model.dim);
    // Unweighted, and censored at C = 50 with α_i ~ uniform(0, 1) (the censoring mechanisms'
    // record loop, which the Gaussian models' sums do not replace).
    const alpha = Float64Array.from({ length: n }, () => rng.uniform());
    for (
      const [label, weighting] of [["", { alpha: null }], [" censored", {
        alpha,
        censor: 50,
      }]] as const
    ) {
      Deno.bench({
        name: `${name} logDensity+gradient${label}, n=${n}, k=${k}`,
        group: `gradient${label} n=${n} k=${k}`,
        fn: () => {
          u[0] += 1e-9; // defeat the per-η cache between calls, as NUTS moves every step
          model.logDensity(u, grad, weighting);
        },
      });
    }
    const draws = new Float64Array(100 * model.dim);
    for (let s = 0; s < 100; s++) {
      const jittered = u.map((value) => value + 0.01 * rng.normal());
      draws.set(model.constrain(jittered), s * model.dim);
    }
    Deno.bench({
      name: `${name} Lipschitz bound, S=100, n=${n}, k=${k}`,
      group: `lipschitz n=${n} k=${k}`,
      fn: () => {
        lipschitz(model, draws);
      },
    });
  }
}
