/**
 * Which Lipschitz backend runs (`--backend auto|cpu|gpu`), with the fall-back to the CPU.
 *
 * - `cpu`: the f64 TypeScript loop, on every core for large S·n (`parallel_lipschitz.ts`), whose
 *   workers the backend's signal stops.
 * - `gpu`: the WebGPU kernels whenever an adapter exists and the model has a kernel.
 * - `auto`: a hardware GPU only, and only where it pays: S·n ≥ 4·10⁶ draw×record evaluations
 *   (below that the fixed cost of packing and dispatch loses to the CPU loop). A software
 *   adapter (Mesa's lavapipe or llvmpipe, SwiftShader, or any adapter that says
 *   `isFallbackAdapter`) runs on the same CPU cores the f64 loop would use, and the end-to-end
 *   runs it took part in were slower (issue 13), so `auto` never picks one; `gpu` still can.
 *   Nor does `auto` pick the joint-record pass of several outcomes (`lipschitz_joint.ts`), which
 *   sums the conditionals' values on the CPU and was slower than the CPU loop on lavapipe; `gpu`
 *   runs it.
 *
 * Without an adapter, for a model without a kernel (every registry model has one; several outcomes
 * run `lipschitz_joint.ts`, which needs every conditional's), and on any device error, the CPU
 * computes the bound and a line on stderr says so. The answers are the same either way: the GPU
 * backend confirms its maximum in f64. `name` tells which backend computed the last bound.
 *
 * @module
 */
import type { LipschitzBackend } from "../mechanisms/lipschitz_backend.ts";
import { parallelLipschitz } from "../mechanisms/parallel_lipschitz.ts";
import type { LipschitzOptions, LipschitzResult } from "../mechanisms/lipschitz.ts";
import { isJointModel } from "../models/joint.ts";
import type { Model } from "../models/model.ts";
import { BackendTrace } from "./backend_trace.ts";
import { acquireGpu, GpuError } from "./device.ts";
import { createGpuLipschitz } from "./lipschitz_gpu.ts";
import { hasLipschitzKernel } from "./lipschitz_joint.ts";

/** The `--backend` choices. */
export type BackendChoice = "auto" | "cpu" | "gpu";

/** Draw×record evaluations from which `auto` prefers the GPU (measured, see the module). */
export const AUTO_GPU_MIN_EVALUATIONS = 4_000_000;

/** Adapter names of software (CPU) WebGPU implementations. */
const SOFTWARE_ADAPTER = /llvmpipe|lavapipe|swiftshader|software rasterizer/i;

/**
 * Whether a GPU is a software adapter: `isFallbackAdapter`, or a known software implementation's
 * name in its description.
 *
 * @param gpu The adapter's fall-back flag and description.
 * @returns True for a software adapter.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isSoftwareAdapter } from "./select_lipschitz.ts";
 * assert.equal(isSoftwareAdapter({ isFallback: false, description: "llvmpipe (LLVM 15.0.6)" }), true);
 * ```
 */
export function isSoftwareAdapter(
  gpu: { readonly isFallback: boolean; readonly description: string },
): boolean {
  return gpu.isFallback || SOFTWARE_ADAPTER.test(gpu.description);
}

/** A backend that picks the GPU or the CPU per call and remembers which one ran last. */
export interface SelectingLipschitz extends LipschitzBackend {
  /** Why the CPU ran when the GPU was asked for, if it did (for the log and the report). */
  readonly note: string | null;
}

/**
 * Builds the backend for a `--backend` choice.
 *
 * @param choice auto, cpu or gpu.
 * @param log Where fall-back notes go (default: nowhere; the command line passes stderr).
 * @param signal Aborting it stops a CPU pass in workers (a stopped synthesis).
 */
export async function selectLipschitz(
  choice: BackendChoice,
  log: (line: string) => void = () => {},
  signal?: AbortSignal,
): Promise<SelectingLipschitz> {
  let gpuBackend: LipschitzBackend | null = null;
  const trace = new BackendTrace(log);
  if (choice !== "cpu") {
    const gpu = await acquireGpu().catch(() => null);
    if (gpu === null) {
      const note = "no WebGPU adapter: the Lipschitz bound runs on the CPU";
      if (choice === "gpu") trace.fallBack(note);
      else trace.explain(note);
    } else if (choice === "auto" && isSoftwareAdapter(gpu)) {
      trace.explain("a software WebGPU adapter: auto runs the Lipschitz bound on the CPU");
    } else {
      gpuBackend = createGpuLipschitz(gpu);
    }
  }
  return Object.assign(trace, {
    async compute(model: Model, draws: Float64Array, options?: LipschitzOptions) {
      const evaluations = (draws.length / model.dim) * model.design.n;
      const wanted = gpuBackend !== null && hasLipschitzKernel(model) &&
        (choice === "gpu" || (!isJointModel(model) && evaluations >= AUTO_GPU_MIN_EVALUATIONS));
      if (wanted) {
        try {
          const result: LipschitzResult = await gpuBackend!.compute(model, draws, options);
          trace.ran("gpu");
          return result;
        } catch (error) {
          if (!(error instanceof GpuError)) throw error;
          trace.fallBack(`GPU error, the Lipschitz bound ran on the CPU: ${error.message}`);
        }
      } else if (choice === "gpu" && gpuBackend !== null) {
        trace.fallBack(
          `no GPU kernel for the ${model.name} model: the Lipschitz bound runs on the CPU`,
        );
      }
      trace.ran("cpu");
      return parallelLipschitz(model, draws, options, { signal });
    },
  });
}
