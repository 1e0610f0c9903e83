/**
 * The device side of the many-chain HMC kernels: the buffers (from the device's pool), pipelines
 * and bind groups of one run, the encoders of its dispatches, the staged read-back, and
 * {@linkcode evaluateGpuLogDensity}, which evaluates Σ_i clamp(α_i·ℓ_i, ±C) + log prior +
 * log-Jacobian and its gradient at given points (the same kernels the sampler of `hmc.ts` steps
 * with). The packing is `hmc_target.ts`.
 *
 * @module
 */
import type { Model, Weighting } from "../models/model.ts";
import { bufferPool } from "./buffers.ts";
import { cachedPipeline, type GpuContext, GpuError, withErrorScopes } from "./device.ts";
import {
  CC_WORDS,
  chainStride,
  controlWords,
  CS_LOGP,
  CU_BAD,
  CU_STRIDE,
  drawWords,
  type HmcParams,
  MAX_DISPATCH,
  MAX_NV,
  packParams,
  PARAMS_BYTES,
} from "./hmc_layout.ts";
import { baseParams, type GpuTarget, gpuTarget, hmcShaderSource } from "./hmc_target.ts";

/** Bindings each entry point uses (its "auto" bind group layout has exactly these). */
const ENTRY_BINDINGS = {
  lik_fused: [0, 1, 2, 3, 4, 5],
  lik_tiled: [0, 1, 2, 6],
  reduce_step: [0, 2, 3, 4, 5, 6],
  adapt: [0, 2, 3, 4, 5, 7, 8],
} as const;

type Entry = keyof typeof ENTRY_BINDINGS;

const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;

/** Bytes of a buffer holding `words` 4-byte words (at least one). */
function bytes(words: number): number {
  return 4 * Math.max(1, words);
}

/**
 * The device buffers (from the device's {@linkcode bufferPool}: use inside its `exclusive`),
 * pipelines and bind groups of one many-chain run, and the encoders of its dispatches.
 * `maxSteps` is the most leapfrog steps one iteration may take; `batchDraws` the most iterations
 * one batch stores. Every buffer the kernels read is written here or by the kernels before it is
 * read, so pooled buffers need no clearing.
 */
export class HmcResources {
  readonly device: GPUDevice;
  readonly target: GpuTarget;
  readonly chains: number;
  readonly params: GPUBuffer;
  readonly chainF: GPUBuffer;
  readonly chainU: GPUBuffer;
  readonly ctrlF: GPUBuffer;
  readonly ctrlU: GPUBuffer;
  readonly draws: GPUBuffer;
  readonly args: GPUBuffer;
  readonly #bindings: GPUBuffer[];
  readonly #pipelines = new Map<Entry, GPUComputePipeline>();
  readonly #groups = new Map<Entry, GPUBindGroup>();

  /**
   * Takes every buffer from the pool (records uploaded) and compiles or reuses the model's
   * pipelines.
   *
   * @param gpu the device.
   * @param target the model's GPU description.
   * @param chains number of chains (1 to 65,535).
   * @param maxSteps most leapfrog steps per iteration.
   * @param batchDraws most stored iterations per batch.
   */
  constructor(
    gpu: GpuContext,
    target: GpuTarget,
    chains: number,
    maxSteps: number,
    batchDraws: number,
  ) {
    if (!Number.isSafeInteger(chains) || chains < 1 || chains > MAX_DISPATCH) {
      throw new RangeError(
        `Invalid chains: must be an integer in [1, ${MAX_DISPATCH}]: chains=${chains}`,
      );
    }
    const device = gpu.device;
    this.device = device;
    this.target = target;
    this.chains = chains;
    const d = target.d;
    const pool = bufferPool(device);
    const limit = gpu.limits.maxStorageBufferBindingSize;
    const sizes: number[] = [];
    const make = (role: string, words: number, usage = STORAGE) => {
      const size = bytes(words);
      if (size > limit) {
        throw new RangeError(
          `Cannot run ${chains} chains of this model on this GPU as its ${role} buffer needs ` +
            `${size} bytes, above the device's storage binding limit: limit=${limit}`,
        );
      }
      sizes.push(size);
      return pool.acquire(`hmc.${role}`, usage, size);
    };
    this.params = pool.acquire(
      "hmc.params",
      GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
      PARAMS_BYTES,
    );
    sizes.push(PARAMS_BYTES);
    const recs = make("records", target.records.length);
    this.chainF = make("chainF", chains * chainStride(d));
    this.chainU = make("chainU", chains * CU_STRIDE);
    this.ctrlF = make("ctrlF", controlWords(d));
    this.ctrlU = make("ctrlU", CC_WORDS);
    const partials = make("partials", target.tiles > 1 ? chains * target.tiles * MAX_NV : 1);
    this.draws = make("draws", batchDraws * chains * drawWords(d));
    this.args = make("indirect", 6 * maxSteps, STORAGE | GPUBufferUsage.INDIRECT);
    this.#bindings = [
      this.params,
      recs,
      this.chainF,
      this.chainU,
      this.ctrlF,
      this.ctrlU,
      partials,
      this.draws,
      this.args,
    ];
    if (target.records.length > 0) device.queue.writeBuffer(recs, 0, target.records);

    const code = hmcShaderSource(target.kernel, target.perLevel);
    const label = `hmc-${target.kernel}`;
    for (const entry of Object.keys(ENTRY_BINDINGS) as Entry[]) {
      const pipeline = cachedPipeline(device, label, code, entry);
      this.#pipelines.set(entry, pipeline);
      this.#groups.set(
        entry,
        device.createBindGroup({
          label: `${label} ${entry}`,
          layout: pipeline.getBindGroupLayout(0),
          entries: ENTRY_BINDINGS[entry].map((binding) => ({
            binding,
            resource: { buffer: this.#bindings[binding], size: sizes[binding] },
          })),
        }),
      );
    }
  }

  /** Uploads the parameter block (takes effect for the next submission). */
  writeParams(params: HmcParams): void {
    this.device.queue.writeBuffer(this.params, 0, packParams(params));
  }

  /**
   * Uploads unconstrained positions (chains × D, chain-major) into the chains' q vectors and
   * zeroes the rest of their state.
   */
  writePositions(points: Float64Array): void {
    const d = this.target.d;
    const stride = chainStride(d);
    const block = new Float32Array(this.chains * stride);
    for (let c = 0; c < this.chains; c++) {
      for (let j = 0; j < d; j++) block[c * stride + j] = points[c * d + j];
    }
    this.device.queue.writeBuffer(this.chainF, 0, block);
    this.device.queue.writeBuffer(this.chainU, 0, new Uint32Array(this.chains * CU_STRIDE));
  }

  #dispatch(pass: GPUComputePassEncoder, entry: Entry, x: number, y = 1): void {
    pass.setPipeline(this.#pipelines.get(entry)!);
    pass.setBindGroup(0, this.#groups.get(entry)!);
    pass.dispatchWorkgroups(x, y);
  }

  #dispatchIndirect(pass: GPUComputePassEncoder, entry: Entry, offset: number): void {
    pass.setPipeline(this.#pipelines.get(entry)!);
    pass.setBindGroup(0, this.#groups.get(entry)!);
    pass.dispatchWorkgroupsIndirect(this.args, offset);
  }

  /** Encodes one evaluation of every chain at its current position (direct dispatches). */
  encodeEvaluation(pass: GPUComputePassEncoder): void {
    if (this.target.tiles === 1) {
      this.#dispatch(pass, "lik_fused", 1, this.chains);
    } else {
      this.#dispatch(pass, "lik_tiled", this.target.tiles, this.chains);
      this.#dispatch(pass, "reduce_step", this.chains);
    }
  }

  /**
   * Encodes one iteration: the trajectories (with one tile a single dispatch that takes all L
   * leapfrog steps; otherwise `slots` ≥ L pairs of indirect dispatches, which the adaptation
   * kernel sizes to nothing beyond L) and then the adaptation kernel, which ends the iteration
   * and begins the next.
   */
  encodeIteration(pass: GPUComputePassEncoder, slots: number): void {
    if (this.target.tiles === 1) {
      this.#dispatch(pass, "lik_fused", 1, this.chains);
    } else {
      for (let l = 0; l < slots; l++) {
        this.#dispatchIndirect(pass, "lik_tiled", 24 * l);
        this.#dispatchIndirect(pass, "reduce_step", 24 * l + 12);
      }
    }
    this.encodeAdapt(pass);
  }

  /** Encodes the adaptation kernel alone (after the starting points' evaluation). */
  encodeAdapt(pass: GPUComputePassEncoder): void {
    this.#dispatch(pass, "adapt", 1);
  }
}

/** A buffer region to read back. */
export interface ReadbackSource {
  readonly buffer: GPUBuffer;
  /** Bytes from the start of the buffer. */
  readonly size: number;
}

/**
 * Appends copies of `sources` into one mappable staging buffer to `encoder`; after the encoder
 * is submitted, the returned function maps the staging buffer once and returns a copy of each
 * region (then releases it).
 *
 * @param device the device.
 * @param encoder the command encoder of the submission that produces the data.
 * @param sources the regions, in order.
 * @param onMap called just before the map (instrumentation).
 * @returns a function resolving to the regions' bytes.
 */
export function stageReadback(
  device: GPUDevice,
  encoder: GPUCommandEncoder,
  sources: readonly ReadbackSource[],
  onMap: () => void = () => {},
): () => Promise<ArrayBuffer[]> {
  const offsets: number[] = [];
  let total = 0;
  for (const source of sources) {
    offsets.push(total);
    total += source.size;
  }
  const staging = device.createBuffer({
    label: "hmc readback",
    size: Math.max(4, total),
    usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
  });
  sources.forEach((source, i) => {
    if (source.size > 0) {
      encoder.copyBufferToBuffer(source.buffer, 0, staging, offsets[i], source.size);
    }
  });
  return async () => {
    onMap();
    try {
      await staging.mapAsync(GPUMapMode.READ);
    } catch (error) {
      staging.destroy();
      throw new GpuError(`Cannot read back HMC results: ${(error as Error).message}`);
    }
    const mapped = staging.getMappedRange();
    const parts = sources.map((source, i) => mapped.slice(offsets[i], offsets[i] + source.size));
    staging.unmap();
    staging.destroy();
    return parts;
  };
}

/** Log density and gradient of a model's target at several points, from the GPU kernels. */
export interface GpuEvaluation {
  /** log π(u_s) per point (non-finite where `finite[s]` is false). */
  readonly logDensity: Float64Array;
  /** ∇log π(u_s), points × D, point-major. */
  readonly gradient: Float64Array;
  /** Whether every record term, the sum and the gradient were finite at point s. */
  readonly finite: boolean[];
}

/**
 * Evaluates log π(u) = Σ_i clamp(α_i·ℓ_i(θ(u)), ±C) + log ξ(θ(u)) + log|dθ/du| and its gradient
 * on the GPU in f32, at each of the given unconstrained points: the twin of
 * `model.logDensity(u, grad, weighting)`. Under the `student-t` coefficient prior the points are
 * the kernels' free coordinates (`gpuTarget(…).free`: the coefficients and the extra parameter)
 * and the prior is the marginal Σ_j log t_ν(β_j; 0, s_j) without its constants: the model's log
 * density at any scale coordinates v, less their own log density and those constants.
 *
 * @param gpu the device.
 * @param model a model with GPU HMC kernels (`gpuTarget`).
 * @param weighting α and censoring.
 * @param points m × D unconstrained points, point-major (1 ≤ m ≤ 65,535), D = `gpuTarget`'s d.
 * @returns the values and gradients.
 */
export async function evaluateGpuLogDensity(
  gpu: GpuContext,
  model: Model,
  weighting: Weighting,
  points: Float64Array,
): Promise<GpuEvaluation> {
  const target = gpuTarget(model, weighting);
  const d = target.d;
  const m = points.length / d;
  if (!Number.isInteger(m) || m < 1) {
    throw new RangeError(
      `Invalid points: length must be a positive multiple of dim=${d}: length=${points.length}`,
    );
  }
  return await bufferPool(gpu.device).exclusive(() =>
    withErrorScopes(gpu.device, "GPU log density", async () => {
      const resources = new HmcResources(gpu, target, m, 1, 1);
      resources.writeParams(baseParams(target, m));
      resources.writePositions(points);
      const encoder = gpu.device.createCommandEncoder({ label: "hmc evaluate" });
      const pass = encoder.beginComputePass();
      resources.encodeEvaluation(pass);
      pass.end();
      const read = stageReadback(gpu.device, encoder, [
        { buffer: resources.chainF, size: 4 * m * chainStride(d) },
        { buffer: resources.chainU, size: 4 * m * CU_STRIDE },
      ]);
      gpu.device.queue.submit([encoder.finish()]);
      const [chainBytes, flagBytes] = await read();
      const chainF = new Float32Array(chainBytes);
      const chainU = new Uint32Array(flagBytes);
      const stride = chainStride(d);
      const logDensity = new Float64Array(m);
      const gradient = new Float64Array(m * d);
      const finite: boolean[] = [];
      for (let s = 0; s < m; s++) {
        logDensity[s] = chainF[s * stride + 6 * d + CS_LOGP];
        for (let j = 0; j < d; j++) gradient[s * d + j] = chainF[s * stride + 2 * d + j];
        finite.push(chainU[s * CU_STRIDE + CU_BAD] === 0);
      }
      return { logDensity, gradient, finite };
    })
  );
}
