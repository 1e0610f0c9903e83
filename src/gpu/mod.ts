/**
 * WebGPU kernels and their plumbing: the device (adapter, limits, error scopes, pipeline cache),
 * the buffer pool and the Lipschitz backend of SPEC §1.
 *
 * @module
 */
export * from "./device.ts";
export { BufferPool, bufferPool } from "./buffers.ts";
export {
  createGpuLipschitz,
  type GpuLipschitzBackend,
  type GpuLipschitzOptions,
  type TilingLimits,
} from "./lipschitz_gpu.ts";
export { type GpuHmcOptions, sampleGpuHmc } from "./hmc.ts";
export { type CheesOptions } from "./chees.ts";
export { evaluateGpuLogDensity } from "./hmc_resources.ts";
export { type BackendChoice, selectLipschitz } from "./select_lipschitz.ts";
