/**
 * One NUTS fit of a regression model on simulated data, timed: the measure behind the models'
 * record loops (docs/decisions.md, "The models' record loops keep their dot products inline").
 * Micro-benchmarks of one log density (`log_density_bench.ts`) swing by up to 40 % between processes
 * with V8's on-stack-replacement luck, so two versions of the loops are compared by whole fits,
 * one per process, interleaved:
 *
 *     for r in 1 2 3 4 5; do for tree in /tmp/before /work/main; do
 *       deno run -A bench/record_loop_fit.ts --root $tree --model poisson --n 20000 --k 4
 *     done; done
 *
 * `--root` is the checkout whose `src/` is timed (default this one); `--censor` fits with α_i ~
 * uniform(½, 1) and C = 8 (the censoring mechanisms' record loop). Prints the seconds, the
 * divergences and R̂.
 *
 * @module
 */
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    root: { type: "string", default: new URL("../", import.meta.url).pathname },
    model: { type: "string", default: "poisson" },
    n: { type: "string", default: "20000" },
    k: { type: "string", default: "4" },
    censor: { type: "boolean", default: false },
  },
});
const root = values.root.replace(/\/$/, "");
const { createModel } = await import(`${root}/src/models/mod.ts`);
const { fitModel } = await import(`${root}/src/mcmc/fit.ts`);
const { Rng } = await import(`${root}/src/random/rng.ts`);

const n = Number(values.n);
const k = Number(values.k);
const name = values.model;
const rng = new Rng(7);
const x = new Float64Array(n * k);
for (let i = 0; i < n; i++) {
  x[i * k] = 1;
  for (let j = 1; j < k; j++) x[i * k + j] = rng.normal();
}
const placeholder = {
  n,
  k,
  y: new Float64Array(n).fill(name === "beta" ? 0.5 : 1),
  x,
  coefficientNames: Array.from({ length: k }, (_, j) => `c${j}`),
};
// y simulated from the model itself at β = (0.3 or 1 for the Poisson, 0.2, …).
const theta = createModel(name, placeholder).constrain(
  createModel(name, placeholder).initialPoint(),
);
for (let j = 0; j < k; j++) theta[j] = j === 0 ? (name === "poisson" ? 1 : 0.3) : 0.2;
const y = createModel(name, placeholder).simulate(theta, rng, new Float64Array(n));
const model = createModel(name, { ...placeholder, y });
const alpha = Float64Array.from({ length: n }, () => 0.5 + 0.5 * rng.uniform());
const weighting = values.censor ? { alpha, censor: 8 } : { alpha: null };
const start = performance.now();
const fit = fitModel(model, weighting, { seed: 3, chains: 2, warmup: 1000, draws: 1000 });
const seconds = (performance.now() - start) / 1000;
console.log(
  `${name} n=${n} k=${k}${values.censor ? " censored" : ""}: ${seconds.toFixed(2)} s, ` +
    `${fit.divergences} divergences, R̂ ${fit.rhatMax.toFixed(3)}`,
);
