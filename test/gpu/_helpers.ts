/**
 * Shared pieces of the GPU tests: the adapter (acquired once), the two ways a GPU test is
 * registered (ignored without an adapter; without one in CI it fails), and a one-pass compute
 * dispatch over storage buffers.
 *
 * @module
 */
import { acquireGpu, type GpuContext } from "../../src/gpu/device.ts";

/** The WebGPU adapter, or null where there is none. */
export const gpu: GpuContext | null = await acquireGpu();
const inCi = Deno.env.get("CI") === "true";

/**
 * Logs the adapter that runs `what`, or that `what` are ignored. With `failInCi`, a missing adapter
 * in CI registers the failing test "a WebGPU adapter is available in CI" (for files whose tests
 * use `GPU_TEST`, which only ignores them).
 */
export function announceGpu(what: string, failInCi = false): void {
  if (gpu !== null) {
    console.log(`WebGPU adapter for ${what}: ${gpu.description}`);
  } else if (!inCi) {
    console.log(`no WebGPU adapter: ${what} are ignored`);
  } else if (failInCi) {
    Deno.test("a WebGPU adapter is available in CI", () => {
      throw new Error("no WebGPU adapter in CI");
    });
  } else {
    console.log("no WebGPU adapter in CI");
  }
}

/** `Deno.test` options of a GPU test: ignored without an adapter, sanitizers off. */
export const GPU_TEST = { ignore: gpu === null, sanitizeResources: false, sanitizeOps: false };

/**
 * The settings of a `--sampler gpu-hmc` synthesis at ε = 12 (m = 2, paper prior, 32 chains, 640
 * draws after 100 warmup, flagged fits allowed), for a `SynthesisSpec` with y and mechanism. The
 * tests that use it check what the release is made of (GPU draws, ε from their Δ), not the fit.
 */
export const GPU_HMC_RUN = {
  epsilon: 12,
  seed: 3,
  sampler: "gpu-hmc",
  prior: "paper",
  allowFlagged: true,
  chains: 32,
  draws: 640,
  warmup: 100,
  m: 2,
} as const;

/** Registers a GPU test: ignored without an adapter, except in CI, where it fails. */
export function gpuTest(name: string, fn: (gpu: GpuContext) => Promise<void>): void {
  Deno.test({
    name,
    ignore: gpu === null && !inCi,
    fn: async () => {
      if (gpu === null) throw new Error("no WebGPU adapter in CI");
      await fn(gpu);
    },
  });
}

/**
 * Records one compute pass of `pipeline` with `buffers` bound at bindings 0, 1, … of group 0 and
 * ⌈invocations/64⌉ workgroups; the caller copies the results out and submits the encoder.
 */
export function encodePass(
  device: GPUDevice,
  pipeline: GPUComputePipeline,
  buffers: readonly GPUBuffer[],
  invocations: number,
): GPUCommandEncoder {
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  const entries = buffers.map((buffer, binding) => ({ binding, resource: { buffer } }));
  pass.setBindGroup(0, device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries }));
  pass.dispatchWorkgroups(Math.ceil(invocations / 64));
  pass.end();
  return encoder;
}
