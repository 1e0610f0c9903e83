/**
 * Which pass computes the Bayesian network's per-record extremes max_s |u_i(θ_s)| and
 * min_s |u_i(θ_s)| (SPEC §13, `src/models/bayes_net.ts`): `select_term.ts`'s choice bound to
 * `BayesNetModel.termMaxima`, `parallelBayesNetMaxima` (`parallel_bayes_net.ts`) and
 * `gpuBayesNetMaxima` (`lipschitz_bayes_net.ts`), with `auto` taking a hardware GPU from
 * {@linkcode AUTO_GPU_MIN_TERM_LOOKUPS} draw × record × column lookups (docs/performance.md,
 * "Bayesian network Lipschitz pass"). Every pass gives `termMaxima`'s answer bit for bit.
 *
 * @module
 */
import type { StopFlag } from "../data/worker_stop.ts";
import { parallelBayesNetMaxima } from "../mechanisms/parallel_bayes_net.ts";
import type { BayesNetModel } from "../models/bayes_net.ts";
import { gpuBayesNetMaxima } from "./lipschitz_bayes_net.ts";
import {
  type ModelTermPass,
  modelTermPass,
  type TermBackendChoice,
  termPass,
} from "./select_term.ts";

/**
 * Draw × record × column lookups from which `auto` takes a hardware GPU: about 3 s on one CPU
 * thread (docs/performance.md), a second or less on every core of a 4-core machine.
 */
export const AUTO_GPU_MIN_TERM_LOOKUPS = 500_000_000;

/**
 * A pass over the draws that remembers where it ran last: `compute(model, draws, dim, alpha, stop)`
 * is `model.termMaxima(draws, dim, alpha)`, exactly; on the CPU it reads `stop` once a draw (the
 * GPU's batches are awaited: a stopped worker ends between them).
 */
export type BayesNetMaximaPass = ModelTermPass<
  [
    model: BayesNetModel,
    draws: Float64Array,
    dim: number,
    alpha: Float64Array | null,
    stop?: StopFlag,
  ]
>;

/**
 * The pass of a backend choice (see `select_term.ts`). The GPU is acquired on the first
 * `compute`.
 *
 * @param choice auto, cpu, cpu-parallel or gpu.
 * @param log Where fall-back notes go (default: nowhere).
 * @returns The pass.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BayesNetModel } from "../models/bayes_net.ts";
 * import { bayesNetMaximaPass } from "./select_bayes_net.ts";
 * const file = { n: 2, columns: [{ name: "a", levels: 2, codes: Int32Array.of(1, 0) }] };
 * const model = new BayesNetModel(file);
 * // One column, no parents: g = 0, then log θ of its two levels.
 * const draws = Float64Array.of(0, Math.log(0.25), Math.log(0.75), 0, Math.log(0.5), Math.log(0.5));
 * const maxima = await bayesNetMaximaPass("cpu").compute(model, draws, 3, null);
 * assert.deepEqual(maxima, model.termMaxima(draws, 3, null));
 * ```
 */
export function bayesNetMaximaPass(
  choice: TermBackendChoice,
  log: (line: string) => void = () => {},
): BayesNetMaximaPass {
  const pass = termPass(choice, "Bayesian network", AUTO_GPU_MIN_TERM_LOOKUPS, log);
  return modelTermPass(pass, (model, draws, dim, alpha, stop) => ({
    cpu: () => model.termMaxima(draws, dim, alpha, stop),
    parallel: () => parallelBayesNetMaxima(model, draws, dim, alpha, { stop }),
    gpu: async (context) => (await gpuBayesNetMaxima(context, model, draws, dim, alpha)).maxima,
    work: (draws.length / dim) * model.n * model.order.length,
  }));
}
