/**
 * `deno bench`: one log-density-and-gradient evaluation (the NUTS hot loop) per model, and the
 * CPU Lipschitz bound over S = 100 draws, at n = 1000 and n = 10,000.
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

for (const n of [1000, 10_000]) {
  for (const name of MODELS) {
    const rng = new Rng(1);
    const y = Float64Array.from({ length: n }, () => outcome(name, rng));
    const model = createModel(name, {
      n,
      k: 1,
      y,
      x: new Float64Array(n).fill(1),
      coefficientNames: ["intercept"],
    });
    const u = model.initialPoint();
    const grad = new Float64Array(model.dim);
    const weighting = { alpha: null };
    Deno.bench({
      name: `${name} logDensity+gradient, n=${n}`,
      group: `gradient n=${n}`,
      fn: () => {
        u[0] += 1e-9; // defeat the per-η cache between calls, as NUTS moves every step
        model.logDensity(u, grad, weighting);
      },
    });
    const draws = new Float64Array(100 * model.dim);
    for (let s = 0; s < 100; s++) {
      const jittered = u.map((value) => value + 0.01 * rng.normal());
      draws.set(model.constrain(jittered), s * model.dim);
    }
    Deno.bench({
      name: `${name} Lipschitz bound, S=100, n=${n}`,
      group: `lipschitz n=${n}`,
      fn: () => {
        lipschitz(model, draws);
      },
    });
  }
}
