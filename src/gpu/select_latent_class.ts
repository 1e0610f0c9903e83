/**
 * Which pass computes the latent class model's per-record extremes max_s |u_i(θ_s)| and
 * min_s |u_i(θ_s)| (SPEC §13; the release's Δ_i is their half-difference), with the fall-back to
 * the CPU. Every pass gives `LatentClassModel.termMaxima`'s answer bit for bit (both extremes
 * and their first draws); only the time differs.
 *
 * - `cpu`: `termMaxima` on this thread.
 * - `cpu-parallel`: the draws split over every core (`parallel_latent_class.ts`; small problems
 *   stay on this thread).
 * - `gpu`: the WebGPU kernel with its f64 confirmation (`lipschitz_latent_class.ts`) whenever an
 *   adapter exists, software adapters included.
 * - `auto`: a hardware GPU from {@linkcode AUTO_GPU_MIN_CLASS_EVALUATIONS} draw × group × class
 *   evaluations, else every core. As for the GLM kernels (`select_lipschitz.ts`), a software
 *   adapter runs on the cores the CPU pass would use and was slower than it (docs/performance.md,
 *   "Latent class Lipschitz pass"), so `auto` never picks one.
 *
 * Without an adapter, for K above the kernel's class limit, and on any device error, the CPU on
 * every core computes the extremes and the note (and `log`, once per reason) says so.
 *
 * @module
 */
import { parallelTermMaxima } from "../mechanisms/parallel_latent_class.ts";
import type { LatentClassModel, TermMaxima } from "../models/latent_class.ts";
import { acquireGpu, type GpuContext, GpuError } from "./device.ts";
import { gpuTermMaxima } from "./lipschitz_latent_class.ts";
import { isSoftwareAdapter } from "./select_lipschitz.ts";

/** The latent class Lipschitz backends. */
export type LatentClassBackendChoice = "auto" | "cpu" | "cpu-parallel" | "gpu";

/**
 * Draw × group × class evaluations from which `auto` takes a hardware GPU: the every-core CPU
 * pass takes about a second there.
 */
export const AUTO_GPU_MIN_CLASS_EVALUATIONS = 50_000_000;

/** A pass over the draws that remembers where it ran last. */
export interface LatentClassMaximaPass {
  /** Where the last extremes were computed. */
  readonly name: "cpu" | "gpu";
  /** Why the CPU ran when a GPU was wanted, if it did. */
  readonly note: string | null;
  /**
   * `model.termMaxima(draws, alpha)`, exactly.
   *
   * @param model The latent class model bound to the confidential file.
   * @param draws S×dim draws.
   * @param alpha α (null: all 1).
   */
  compute(
    model: LatentClassModel,
    draws: Float64Array,
    alpha: Float64Array | null,
  ): Promise<TermMaxima>;
}

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
  let last: "cpu" | "gpu" = "cpu";
  let note: string | null = null;
  let gpu: Promise<GpuContext | null> | null = null;
  const logged = new Set<string>();
  const fallBack = (why: string) => {
    note = why;
    if (!logged.has(why)) log(`ppsynth: ${why}`);
    logged.add(why);
  };
  return {
    get name() {
      return last;
    },
    get note() {
      return note;
    },
    async compute(model, draws, alpha) {
      last = "cpu";
      if (choice === "cpu") return model.termMaxima(draws, alpha);
      if (choice !== "cpu-parallel") {
        gpu ??= acquireGpu().catch(() => null);
        const context = await gpu;
        const evaluations = (draws.length / model.dim) * model.termGroups(alpha).alpha.length *
          model.K;
        if (context === null) {
          fallBack("no WebGPU adapter: the latent class Lipschitz bound runs on the CPU");
        } else if (choice === "auto" && isSoftwareAdapter(context)) {
          note = "a software WebGPU adapter: auto runs the latent class Lipschitz bound on the CPU";
        } else if (choice === "gpu" || evaluations >= AUTO_GPU_MIN_CLASS_EVALUATIONS) {
          try {
            const { maxima } = await gpuTermMaxima(context, model, draws, alpha);
            last = "gpu";
            return maxima;
          } catch (error) {
            if (!(error instanceof GpuError)) throw error;
            fallBack(
              `GPU error, the latent class Lipschitz bound ran on the CPU: ${error.message}`,
            );
          }
        }
      }
      return await parallelTermMaxima(model, draws, alpha);
    },
  };
}
