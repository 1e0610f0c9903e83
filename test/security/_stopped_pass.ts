/**
 * The process that `stopped_work_test.ts` watches for a regression model's pass: a CPU pass over
 * S × n on a share worker per core — the Lipschitz bound (`parallelLipschitz`) or the Δ predictions
 * (`predictLipschitz`), as a synthesis runs them — whose signal is aborted {@link ABORT_AFTER_MS}
 * after it starts, half a second of its fifteen. It prints one line, how the pass ended: the abort's
 * reason, or "still running" when it had not ended {@link SETTLE_MS} after the abort; then it
 * stays up (a timer) until it is killed, so that its threads' CPU time can be read.
 *
 *     deno run --allow-read --allow-env test/security/_stopped_pass.ts lipschitz|prediction
 *
 * @module
 */
import { parallelLipschitz } from "../../src/mechanisms/parallel_lipschitz.ts";
import { predictLipschitz } from "../../src/mechanisms/predict_lipschitz.ts";
import { createModel } from "../../src/models/mod.ts";
import { Rng } from "../../src/random/rng.ts";

/** When the pass's signal is aborted, in ms after it starts (its workers are in their loops). */
const ABORT_AFTER_MS = 500;

/** How long after the abort the pass may take to end, in ms. */
const SETTLE_MS = 2000;

/**
 * Records, and draws per core: each share is 4·10⁸ log likelihoods of a negative binomial, about
 * 15 s of its core.
 */
const N = 20_000;
const S = 20_000 * navigator.hardwareConcurrency;

const rng = new Rng(7);
const z = Float64Array.from({ length: N }, () => rng.uniform() - 0.5);
const x = new Float64Array(2 * N);
z.forEach((v, i) => {
  x[2 * i] = 1;
  x[2 * i + 1] = v;
});
const y = Float64Array.from(z, (v) => Math.floor(10 * Math.exp(v) * rng.uniform()));
const model = createModel("negbin", { n: N, k: 2, y, x, coefficientNames: ["intercept", "z"] });
const draws = new Float64Array(S * model.dim);
for (let s = 0; s < S; s++) {
  const theta = [1.5 + 0.3 * rng.uniform(), 0.5 * rng.uniform(), 1, 1, 2 + 5 * rng.uniform()];
  draws.set(theta, s * model.dim);
}

const controller = new AbortController();
const pass = Deno.args[0] === "lipschitz"
  ? parallelLipschitz(model, draws, {}, { signal: controller.signal })
  : predictLipschitz(model, draws, null, [new Float64Array(N).fill(0.5)], controller.signal);
const ended = pass.then(() => "finished", (error) => String(error?.message ?? error));
await new Promise((resolve) => setTimeout(resolve, ABORT_AFTER_MS));
controller.abort(new Error("the synthesis was stopped"));
const settled = new Promise((resolve) => setTimeout(() => resolve("still running"), SETTLE_MS));
console.log(await Promise.race([ended, settled]));
setTimeout(() => {}, 600_000);
