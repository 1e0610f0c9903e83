/**
 * Where the Lipschitz bound is computed: the interface every backend implements (the CPU loop
 * here, the WebGPU kernels in `src/gpu`), so mechanisms never depend on which one ran.
 *
 * @module
 */
import type { Model } from "../models/model.ts";
import { lipschitz, type LipschitzOptions, type LipschitzResult } from "./lipschitz.ts";

/** A way of computing Δ_{α,x_i} and Δ_{α,x} from S draws (SPEC §1). */
export interface LipschitzBackend {
  /** "cpu" or "gpu", reported with every release. */
  readonly name: "cpu" | "gpu";
  /**
   * Per-record and overall bounds of |α_i·ℓ_i(θ_s)| over the S×dim constrained `draws`.
   * The overall bound is exact in f64 (or an upper bound of it): never below the truth.
   */
  compute(
    model: Model,
    draws: Float64Array,
    options?: LipschitzOptions,
  ): Promise<LipschitzResult>;
}

/** The f64 CPU loop of {@linkcode lipschitz}, streaming over draws in O(n) memory. */
export const cpuLipschitz: LipschitzBackend = {
  name: "cpu",
  compute: (model, draws, options) => Promise.resolve(lipschitz(model, draws, options)),
};
