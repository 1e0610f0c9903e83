/**
 * Which pass computes a whole-file model's per-record extremes max_s |u_i(θ_s)| and
 * min_s |u_i(θ_s)| (SPEC §13; the release's Δ_i is their half-difference), with the fall-back to
 * the CPU; `select_latent_class.ts` and `select_bayes_net.ts` bind it to their model. Every pass
 * gives the model's one-thread `termMaxima` bit for bit (both extremes and their first draws);
 * only the time differs.
 *
 * - `cpu`: `termMaxima` on this thread.
 * - `cpu-parallel`: the draws split over every core (small problems stay on this thread).
 * - `gpu`: the WebGPU kernel with its f64 confirmation whenever an adapter exists, software
 *   adapters included.
 * - `auto`: a hardware GPU from the model's threshold of work, else every core. As for the GLM
 *   kernels (`select_lipschitz.ts`), a software adapter runs on the cores the CPU pass would use
 *   and was slower than it (docs/performance.md), so `auto` never picks one.
 *
 * Without an adapter and on any device error (`GpuError`: a shape the kernel does not take, a
 * lost device), the CPU on every core computes the extremes and the note (and `log`, once per
 * reason) says so.
 *
 * @module
 */
import type { TermMaxima } from "../models/latent_class.ts";
import { BackendTrace } from "./backend_trace.ts";
import { acquireGpu, type GpuContext, GpuError } from "./device.ts";
import { isSoftwareAdapter } from "./select_lipschitz.ts";

/** The whole-file Lipschitz backends. */
export type TermBackendChoice = "auto" | "cpu" | "cpu-parallel" | "gpu";

/** One problem's three passes and its size. */
export interface TermPassProblem {
  /** `termMaxima` on this thread. */
  cpu(): TermMaxima;
  /** The every-core pass. */
  parallel(): Promise<TermMaxima>;
  /** The kernel and its f64 confirmation (throws `GpuError` on device failures). */
  gpu(context: GpuContext): Promise<TermMaxima>;
  /** The work `auto` compares with its threshold. */
  readonly work: number;
}

/** A pass over the draws that remembers where it ran last. */
export interface TermPass {
  /** Where the last extremes were computed. */
  readonly name: "cpu" | "gpu";
  /** Why the CPU ran when a GPU was wanted, if it did. */
  readonly note: string | null;
  /** The problem's extremes, by the chosen backend. */
  run(problem: TermPassProblem): Promise<TermMaxima>;
}

/**
 * The pass of a backend choice (see the module). The GPU is acquired on the first `run`.
 *
 * @param choice auto, cpu, cpu-parallel or gpu.
 * @param model The model's name in notes ("latent class").
 * @param autoWork The work from which `auto` takes a hardware GPU.
 * @param log Where fall-back notes go.
 * @returns The pass.
 */
export function termPass(
  choice: TermBackendChoice,
  model: string,
  autoWork: number,
  log: (line: string) => void,
): TermPass {
  let gpu: Promise<GpuContext | null> | null = null;
  const trace = new BackendTrace(log);
  return Object.assign(trace, {
    async run(problem: TermPassProblem): Promise<TermMaxima> {
      trace.ran("cpu");
      if (choice === "cpu") return problem.cpu();
      if (choice !== "cpu-parallel") {
        gpu ??= acquireGpu().catch(() => null);
        const context = await gpu;
        if (context === null) {
          trace.fallBack(`no WebGPU adapter: the ${model} Lipschitz bound runs on the CPU`);
        } else if (choice === "auto" && isSoftwareAdapter(context)) {
          trace.explain(
            `a software WebGPU adapter: auto runs the ${model} Lipschitz bound on the CPU`,
          );
        } else if (choice === "gpu" || problem.work >= autoWork) {
          try {
            const maxima = await problem.gpu(context);
            trace.ran("gpu");
            return maxima;
          } catch (error) {
            if (!(error instanceof GpuError)) throw error;
            trace.fallBack(
              `GPU error, the ${model} Lipschitz bound ran on the CPU: ${error.message}`,
            );
          }
        }
      }
      return await problem.parallel();
    },
  });
}

/** A model's pass: `compute(...args)` runs the backend choice on the problem those arguments pose. */
export interface ModelTermPass<Args extends unknown[]> extends Pick<TermPass, "name" | "note"> {
  /** The model's `termMaxima(...args)`, exactly. */
  compute(...args: Args): Promise<TermMaxima>;
}

/**
 * {@linkcode termPass} bound to a model: its `compute` runs the problem `problemOf` poses for its
 * arguments.
 *
 * @param pass The backend choice's pass.
 * @param problemOf A model's three passes and size for `compute`'s arguments.
 * @returns The model's pass.
 */
export function modelTermPass<Args extends unknown[]>(
  pass: TermPass,
  problemOf: (...args: Args) => TermPassProblem,
): ModelTermPass<Args> {
  return {
    get name() {
      return pass.name;
    },
    get note() {
      return pass.note;
    },
    compute: (...args) => pass.run(problemOf(...args)),
  };
}
