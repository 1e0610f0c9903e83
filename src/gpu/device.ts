/**
 * WebGPU adapter and device selection, with the adapter's real limits requested and errors
 * from the device surfaced as exceptions (never as wrong numbers).
 *
 * One device per process is shared by every kernel; pipelines are compiled once per device
 * (see {@linkcode cachedPipeline}). Where no adapter exists (`navigator.gpu` missing or
 * `requestAdapter()` null) {@linkcode acquireGpu} returns null and callers fall back to the CPU.
 *
 * @module
 */

/** The limits the kernels depend on, as granted to the device. */
export interface GpuLimits {
  readonly maxStorageBufferBindingSize: number;
  readonly maxBufferSize: number;
  readonly maxComputeWorkgroupsPerDimension: number;
  readonly maxComputeInvocationsPerWorkgroup: number;
  readonly maxComputeWorkgroupSizeX: number;
  readonly maxStorageBuffersPerShaderStage: number;
}

/** A usable GPU: the device, its granted limits and a one-line description of the adapter. */
export interface GpuContext {
  readonly device: GPUDevice;
  readonly limits: GpuLimits;
  /** e.g. "llvmpipe (LLVM 15.0.6, 256 bits) (vulkan, fallback)". */
  readonly description: string;
  /** True for a software adapter such as Mesa's lavapipe. */
  readonly isFallback: boolean;
}

/** A failure reported by the device (validation, out of memory, internal, or lost). */
export class GpuError extends Error {
  override name = "GpuError";
}

let shared: Promise<GpuContext | null> | undefined;

function describe(info: GPUAdapterInfo, isFallback: boolean): string {
  const name = info.description || [info.vendor, info.architecture, info.device]
    .filter((part) => part !== "").join(" ");
  return `${name || "unknown adapter"}${isFallback ? " (fallback)" : ""}`;
}

/**
 * Gives Mesa's Vulkan drivers a private runtime directory when the environment has none: without
 * one they print "XDG_RUNTIME_DIR is invalid or not set" twice on every adapter request. Needs
 * `--allow-env=XDG_RUNTIME_DIR` and write access to the temporary directory; without them it
 * does nothing. The directory (0700, empty) is removed when the process ends.
 */
function runtimeDirForMesa(): void {
  try {
    const env = Deno.permissions.querySync({ name: "env", variable: "XDG_RUNTIME_DIR" });
    if (env.state !== "granted" || Deno.env.get("XDG_RUNTIME_DIR")) return;
    const dir = Deno.makeTempDirSync({ prefix: "ppsynth_runtime_" });
    Deno.env.set("XDG_RUNTIME_DIR", dir);
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
  } catch {
    // No permission to write a temporary directory: Mesa's warning stays, nothing else changes.
  }
}

/**
 * The process's GPU, created on first use with the adapter's full limits, or null when no
 * adapter is available. A lost device is dropped so that the next call asks for a new one.
 */
export function acquireGpu(): Promise<GpuContext | null> {
  shared ??= (async () => {
    runtimeDirForMesa();
    const adapter = await navigator.gpu?.requestAdapter({ powerPreference: "high-performance" });
    if (!adapter) return null;
    const wanted = adapter.limits;
    const device = await adapter.requestDevice({
      label: "ppsynth",
      requiredLimits: {
        maxStorageBufferBindingSize: wanted.maxStorageBufferBindingSize,
        maxBufferSize: wanted.maxBufferSize,
        maxComputeWorkgroupsPerDimension: wanted.maxComputeWorkgroupsPerDimension,
        maxComputeInvocationsPerWorkgroup: wanted.maxComputeInvocationsPerWorkgroup,
        maxComputeWorkgroupSizeX: wanted.maxComputeWorkgroupSizeX,
        maxStorageBuffersPerShaderStage: wanted.maxStorageBuffersPerShaderStage,
      },
    });
    device.lost.then(() => {
      shared = undefined;
    });
    const l = device.limits;
    const isFallback = (adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean })
      .isFallbackAdapter ?? false;
    return {
      device,
      limits: {
        maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
        maxBufferSize: l.maxBufferSize,
        maxComputeWorkgroupsPerDimension: l.maxComputeWorkgroupsPerDimension,
        maxComputeInvocationsPerWorkgroup: l.maxComputeInvocationsPerWorkgroup,
        maxComputeWorkgroupSizeX: l.maxComputeWorkgroupSizeX,
        maxStorageBuffersPerShaderStage: l.maxStorageBuffersPerShaderStage,
      },
      description: describe(adapter.info, isFallback),
      isFallback,
    };
  })();
  return shared;
}

/**
 * Runs `work` inside validation, out-of-memory and internal error scopes and throws a
 * {@linkcode GpuError} if the device reported any of them.
 *
 * @param device The device.
 * @param label What was being done, for the message.
 * @param work The GPU work (encoding, submitting, reading back).
 */
export async function withErrorScopes<T>(
  device: GPUDevice,
  label: string,
  work: () => Promise<T>,
): Promise<T> {
  device.pushErrorScope("validation");
  device.pushErrorScope("out-of-memory");
  device.pushErrorScope("internal");
  let result: T | undefined;
  let failure: unknown;
  try {
    result = await work();
  } catch (error) {
    failure = error;
  }
  const errors = await Promise.all([
    device.popErrorScope(),
    device.popErrorScope(),
    device.popErrorScope(),
  ]);
  const error = errors.find((e) => e !== null);
  if (error) throw new GpuError(`${label}: ${error.constructor.name}: ${error.message}`);
  if (failure !== undefined) throw failure;
  return result as T;
}

const pipelines = new WeakMap<GPUDevice, Map<string, GPUComputePipeline>>();

/**
 * A compute pipeline compiled once per device and WGSL source (keyed by `label`).
 *
 * @param device The device.
 * @param label A unique name for the shader module and pipeline.
 * @param code The WGSL source.
 * @param entryPoint The compute entry point (default "main").
 */
export function cachedPipeline(
  device: GPUDevice,
  label: string,
  code: string,
  entryPoint = "main",
): GPUComputePipeline {
  let cache = pipelines.get(device);
  if (cache === undefined) {
    cache = new Map();
    pipelines.set(device, cache);
  }
  const key = `${label}#${entryPoint}`;
  let pipeline = cache.get(key);
  if (pipeline === undefined) {
    const module = device.createShaderModule({ label, code });
    pipeline = device.createComputePipeline({
      label: key,
      layout: "auto",
      compute: { module, entryPoint },
    });
    cache.set(key, pipeline);
  }
  return pipeline;
}
