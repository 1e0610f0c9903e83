/**
 * Which pass computes the latent class model's per-record extremes max_s |u_i(θ_s)| and
 * min_s |u_i(θ_s)| (SPEC §13): `select_term.ts`'s choice bound to `LatentClassModel.termMaxima`,
 * `parallelTermMaxima` (`parallel_latent_class.ts`) and `gpuTermMaxima`
 * (`lipschitz_latent_class.ts`), with `auto` taking a hardware GPU from
 * {@linkcode AUTO_GPU_MIN_CLASS_EVALUATIONS} draw × group × class evaluations (docs/performance.md,
 * "Latent class Lipschitz pass"). K above the kernel's class limit is a `GpuError`, so the CPU
 * on every core computes it.
 *
 * @module
 */
import type { StopFlag } from "../data/worker_stop.ts";
import { parallelTermMaxima } from "../mechanisms/parallel_latent_class.ts";
import type { LatentClassModel } from "../models/latent_class.ts";
import { gpuTermMaxima } from "./lipschitz_latent_class.ts";
import {
  type ModelTermPass,
  modelTermPass,
  type TermBackendChoice,
  termPass,
} from "./select_term.ts";

/** The latent class Lipschitz backends. */
export type LatentClassBackendChoice = TermBackendChoice;

/**
 * Draw × group × class evaluations from which `auto` takes a hardware GPU: the every-core CPU
 * pass takes about a second there.
 */
export const AUTO_GPU_MIN_CLASS_EVALUATIONS = 50_000_000;

/**
 * A pass over the draws that remembers where it ran last: `compute(model, draws, alpha, stop)` is
 * `model.termMaxima(draws, alpha)`, exactly; on the CPU it reads `stop` once a draw (the GPU's
 * batches are awaited: a stopped worker ends between them).
 */
export type LatentClassMaximaPass = ModelTermPass<
  [model: LatentClassModel, draws: Float64Array, alpha: Float64Array | null, stop?: StopFlag]
>;

/**
 * The pass of a backend choice (see the module). The GPU is acquired on the first `compute`.
 *
 * @param choice auto, cpu, cpu-parallel or gpu.
 * @param log Where fall-back notes go (default: nowhere).
 * @returns The pass.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LatentClassModel } from "../models/latent_class.ts";
 * import { latentClassMaximaPass } from "./select_latent_class.ts";
 * const file = { n: 1, columns: [{ name: "a", levels: 2, codes: Int32Array.of(1) }] };
 * const model = new LatentClassModel(file, 2);
 * const draws = Float64Array.of(0.25, 0.75, 0.5, 0.5, 0.1, 0.9);
 * const maxima = await latentClassMaximaPass("cpu").compute(model, draws, null);
 * assert.deepEqual(maxima, model.termMaxima(draws, null));
 * ```
 */
export function latentClassMaximaPass(
  choice: LatentClassBackendChoice,
  log: (line: string) => void = () => {},
): LatentClassMaximaPass {
  const pass = termPass(choice, "latent class", AUTO_GPU_MIN_CLASS_EVALUATIONS, log);
  return modelTermPass(pass, (model, draws, alpha, stop) => ({
    cpu: () => model.termMaxima(draws, alpha, stop),
    parallel: () => parallelTermMaxima(model, draws, alpha, { stop }),
    gpu: async (context) => (await gpuTermMaxima(context, model, draws, alpha)).maxima,
    get work() {
      return (draws.length / model.dim) * model.termGroups(alpha).alpha.length * model.K;
    },
  }));
}
