/**
 * A worker for `exit_race.ts`: takes the process's GPU (`acquireGpu`), makes one buffer and
 * answers "gpu" (or "none" without an adapter).
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { acquireGpu } from "../src/gpu/device.ts";

self.onmessage = async () => {
  const gpu = await acquireGpu();
  gpu?.device.createBuffer({ size: 256, usage: GPUBufferUsage.STORAGE }).destroy();
  self.postMessage(gpu === null ? "none" : "gpu");
};
