/**
 * Many-chain HMC on the GPU (SPEC §6; ARCHITECTURE.md "BlackJAX"): tens to thousands of chains
 * advance in lockstep through jittered fixed-length HMC trajectories, tuned during warmup by
 * cross-chain adaptation (ChEES trajectory length, dual-averaged step size, diagonal metric
 * from the cross-chain variance; `chees.ts`).
 *
 * Everything inside the sampling loop stays on the device: the log target and its gradient
 * (`hmc_target.ts`), the leapfrog steps, the Metropolis test, the Philox4x32-10 random numbers
 * and the adaptation. One queue submission covers `batchSize` iterations. An iteration is two
 * dispatches when the records fit one tile (1024): every chain's whole trajectory in one, the
 * Metropolis tests, the adaptation and the next trajectory's start in the other. With more
 * records each leapfrog step is two dispatches (tiled evaluation, reduction), encoded for the
 * most steps an iteration may take and sized on the device through indirect dispatches (empty
 * beyond the iteration's L). The host reads the device back once at the start (to check the
 * starting points), once at the end of warmup (to size the sampling batches) and once per
 * sampling batch (that batch's draws).
 *
 * Reproducibility: chain c starts at μ + L·ξ with ξ ~ uniform(−r, r)^d drawn from
 * `new Rng(seed).split(c)`, where μ and LLᵀ are the Laplace approximation's mode and covariance
 * (the CPU sampler's warm start), so every chain starts in the posterior's bulk: a chain started
 * where the density is far steeper than in the bulk (a small σ with the coefficients far off)
 * never accepts a move at the adapted step size. Without a Laplace approximation the chains
 * start at `model.initialPoint()` plus uniform(−r, r). Every device random
 * number is Philox4x32-10 with a key drawn from `new Rng(seed).split(2⁵³ − 1)` and the
 * counter (iteration, chain, purpose, block). The same seed on the same device and driver gives
 * the same draws; other devices may differ in the last bits of f32 arithmetic.
 *
 * Under the `student-t` coefficient prior the device samples the free coordinates only (the
 * coefficients and the extra parameter, whose posterior has the marginal β_j ~ Student-t(ν, 0,
 * s_j) as prior), and each kept draw gets the scale coordinates v, independent of everything
 * under the target with a known law, drawn exactly on the host as the CPU sampler draws them
 * (`src/mcmc/sample.ts`): from chain c's stream `new Rng(seed).split(c).split(0)`, one draw per
 * kept draw in order. The starting points are the full model's, restricted to the free
 * coordinates. The draws come back in the model's own u, as NUTS's do.
 *
 * @module
 */
import type { ExactCoordinates, Model, Weighting } from "../models/model.ts";
import { laplacePreconditioner, toPosition } from "../mcmc/precondition.ts";
import type { ChainInfo, SampleResult } from "../mcmc/sample.ts";
import { Rng } from "../random/rng.ts";
import { KEY_STREAM } from "../random/streams.ts";
import { bufferPool } from "./buffers.ts";
import { type GpuContext, GpuError, withErrorScopes } from "./device.ts";
import {
  adaptationEnd,
  type CheesOptions,
  DIVERGENCE_THRESHOLD,
  DUAL_AVERAGING,
  initialControl,
  resolveChees,
  samplingSlots,
} from "./chees.ts";
import {
  CC_CAPPED,
  CC_STEP_SUM,
  CC_WORDS,
  CF_EPS,
  CF_HEAD,
  CF_T,
  controlWords,
  CU_BAD,
  CU_DIV_WARMUP,
  CU_STRIDE,
  drawWords,
  type HmcParams,
  MODE_EVAL,
  MODE_RUN,
} from "./hmc_layout.ts";
import { HmcResources, type ReadbackSource, stageReadback } from "./hmc_resources.ts";
import { baseParams, gpuTarget } from "./hmc_target.ts";
import { checkInteger } from "../random/arguments.ts";

/** A device interaction the sampler reports to `onDeviceCall`. */
export type GpuHmcEvent = "submit" | "readback";

/** Options of {@linkcode sampleGpuHmc}. */
export interface GpuHmcOptions {
  /** Seed (non-negative safe integer) of the starting points and of the device's Philox key. */
  readonly seed: number;
  /** Number of chains, 2 to 65,535 (64). */
  readonly chains?: number;
  /** Warmup iterations per chain (500). */
  readonly warmup?: number;
  /** Kept draws per chain (250). */
  readonly draws?: number;
  /** Half-width r of the uniform jitter around the model's starting point (1). */
  readonly initJitter?: number;
  /** Cross-chain adaptation settings. */
  readonly adaptation?: CheesOptions;
  /** Iterations per queue submission (25; fewer when a batch's draws would not fit one buffer). */
  readonly batchSize?: number;
  /** Called with (iterations done, total iterations) summed over chains, once per batch. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Called before every queue submission and every buffer read-back (instrumentation). */
  readonly onDeviceCall?: (event: GpuHmcEvent) => void;
}

/** Attempts at a finite starting point per chain (as Stan and `sample.ts`). */
const MAX_INIT_ATTEMPTS = 100;

/**
 * Chain c's starting point: μ + L·ξ with ξ ~ uniform(−r, r)^d from `new Rng(seed).split(c)`
 * (see the module documentation; `model.initialPoint()` and L = I without a Laplace
 * approximation), redrawn while the f64 log density or its gradient is not finite (as
 * `sample.ts` does).
 */
function startingPoints(
  model: Model,
  weighting: Weighting,
  seed: number,
  chains: number,
  jitter: number,
): Float64Array {
  const d = model.dim;
  const logDensity = (u: Float64Array, grad: Float64Array) => model.logDensity(u, grad, weighting);
  const laplace = laplacePreconditioner(logDensity, model.initialPoint()).preconditioner;
  const identity = new Float64Array(d * d);
  for (let j = 0; j < d; j++) identity[j * d + j] = 1;
  const start = laplace ?? { mean: model.initialPoint(), factor: identity, source: "laplace" };
  const points = new Float64Array(chains * d);
  const grad = new Float64Array(d);
  const xi = new Float64Array(d);
  for (let c = 0; c < chains; c++) {
    const rng = new Rng(seed).split(c);
    const u = points.subarray(c * d, (c + 1) * d);
    let lp = NaN;
    for (let attempt = 0; attempt < (jitter === 0 ? 1 : MAX_INIT_ATTEMPTS); attempt++) {
      for (let j = 0; j < d; j++) xi[j] = jitter * (2 * rng.uniform() - 1);
      toPosition(start, xi, u);
      lp = logDensity(u, grad);
      if (Number.isFinite(lp) && grad.every(Number.isFinite)) break;
    }
    if (!Number.isFinite(lp) || !grad.every(Number.isFinite)) {
      throw new RangeError(
        `Cannot start chain ${c} as the log density or its gradient is not finite around ` +
          `init=[${[...start.mean].join(", ")}]: last logDensity=${lp}`,
      );
    }
  }
  return points;
}

/**
 * Writes each kept draw's exact coordinates into `out` (chain-major, `dim` per draw): chain c's
 * from `new Rng(seed).split(c).split(0)`, draw after draw, as `runChain` in `sample.ts` does.
 */
function fillExact(
  exact: ExactCoordinates,
  seed: number,
  out: Float64Array,
  chains: number,
  draws: number,
  dim: number,
): void {
  const drawn = new Float64Array(exact.indices.length);
  for (let c = 0; c < chains; c++) {
    const rng = new Rng(seed).split(c).split(0);
    for (let s = 0; s < draws; s++) {
      const row = (c * draws + s) * dim;
      exact.draw(rng, drawn);
      exact.indices.forEach((index, j) => (out[row + index] = drawn[j]));
    }
  }
}

/**
 * Samples the (pseudo) posterior of `model` under `weighting` with many-chain HMC on the GPU:
 * `warmup` iterations of cross-chain adaptation, then `draws` iterations with ε, T and M⁻¹
 * fixed, all chains in lockstep.
 *
 * @param gpu the device (see `acquireGpu`).
 * @param model a model with GPU HMC kernels that they hold (at most 16 coefficients,
 *   `gpuHmcRefusal` in `hmc_target.ts`).
 * @param weighting record weights α and the optional censoring bound C.
 * @param options seed, chains, warmup, draws and sampler settings.
 * @returns the unconstrained draws, chain-major, and per-chain diagnostics, as the CPU
 *   sampler's `sample` returns them (`summarizeFit(model, result)` makes a `Fit`).
 *   `treeDepthHits` counts post-warmup transitions whose L was capped at `maxLeapfrogSteps`.
 * @throws RangeError for bad options or starting points; GpuError when the device reports an
 *   error or returns a non-finite draw.
 */
export async function sampleGpuHmc(
  gpu: GpuContext,
  model: Model,
  weighting: Weighting,
  options: GpuHmcOptions,
): Promise<SampleResult> {
  const {
    seed,
    chains = 64,
    warmup = 500,
    draws = 250,
    initJitter = 1,
    batchSize = 25,
    onProgress,
    onDeviceCall = () => {},
  } = options;
  checkInteger("seed", seed, 0);
  checkInteger("chains", chains, 2, 65535);
  checkInteger("warmup", warmup, 0);
  checkInteger("draws", draws, 1);
  checkInteger("batchSize", batchSize, 1);
  if (!(initJitter >= 0 && Number.isFinite(initJitter))) {
    throw new RangeError(`Invalid initJitter: must be finite and ≥ 0: initJitter=${initJitter}`);
  }
  const chees = resolveChees(options.adaptation);
  const target = gpuTarget(model, weighting);
  const d = target.d;
  const dim = model.dim;
  const device = gpu.device;
  const full = startingPoints(model, weighting, seed, chains, initJitter);
  const start = d === dim
    ? full
    : Float64Array.from({ length: chains * d }, (_, q) =>
      full[Math.floor(q / d) * dim + target.free[q % d]]);
  const keyRng = new Rng(seed).split(KEY_STREAM);
  const key0 = keyRng.nextUint32();
  const key1 = keyRng.nextUint32();
  // The draws buffer of a batch must fit one storage binding.
  const batchLimit = Math.floor(
    gpu.limits.maxStorageBufferBindingSize / (4 * chains * drawWords(d)),
  );
  const batch = Math.max(1, Math.min(batchSize, Math.max(warmup, draws), batchLimit));
  const maxSlots = chees.maxLeapfrogSteps;
  const total = warmup + draws;
  const params: HmcParams = {
    ...baseParams(target, chains),
    maxSteps: maxSlots,
    warmup,
    adaptEnd: adaptationEnd(warmup, chees.adaptFraction),
    batchDraws: batch,
    drawBase: warmup,
    key0,
    key1,
    totalIters: total,
    targetAccept: chees.targetAcceptance,
    daGamma: DUAL_AVERAGING.gamma,
    daT0: DUAL_AVERAGING.t0,
    daKappa: DUAL_AVERAGING.kappa,
    trajRate: chees.trajectoryLearningRate,
    emaFactor: chees.metricEmaFactor,
    divergence: DIVERGENCE_THRESHOLD,
  };
  const ctrlBytes = 4 * controlWords(d);
  const submit = (encoder: GPUCommandEncoder) => {
    onDeviceCall("submit");
    device.queue.submit([encoder.finish()]);
  };
  const readback = (encoder: GPUCommandEncoder, sources: ReadbackSource[]) =>
    stageReadback(device, encoder, sources, () => onDeviceCall("readback"));
  let done = 0;
  const progress = (iterations: number) => {
    done += iterations;
    onProgress?.(chains * done, chains * total);
  };

  return await bufferPool(device).exclusive(async () => {
    const resources = await withErrorScopes(
      device,
      "GPU HMC setup",
      () => Promise.resolve(new HmcResources(gpu, target, chains, maxSlots, batch)),
    );
    /** Encodes `iterations` iterations of `slots` leapfrog slots each in one compute pass. */
    const encodeBatch = (encoder: GPUCommandEncoder, iterations: number, slots: number) => {
      const pass = encoder.beginComputePass({ label: "hmc iterations" });
      for (let i = 0; i < iterations; i++) resources.encodeIteration(pass, slots);
      pass.end();
    };
    // Starting points: evaluate, check, begin iteration 0.
    await withErrorScopes(device, "GPU HMC start", async () => {
      device.queue.writeBuffer(resources.ctrlF, 0, initialControl(d, chees.initialStepSize));
      device.queue.writeBuffer(resources.ctrlU, 0, new Uint32Array(CC_WORDS));
      resources.writePositions(start);
      resources.writeParams({ ...params, mode: MODE_EVAL });
      const encoder = device.createCommandEncoder({ label: "hmc start" });
      const pass = encoder.beginComputePass();
      resources.encodeEvaluation(pass);
      resources.encodeAdapt(pass);
      pass.end();
      const read = readback(encoder, [{ buffer: resources.chainU, size: 4 * chains * CU_STRIDE }]);
      submit(encoder);
      const flags = new Uint32Array((await read())[0]);
      for (let c = 0; c < chains; c++) {
        if (flags[c * CU_STRIDE + CU_BAD] !== 0) {
          throw new RangeError(
            `Cannot start chain ${c} on the GPU as its log density or gradient is not finite ` +
              `in f32 at its starting point`,
          );
        }
      }
    });

    // Warmup, with the step size and trajectory length read back at its end.
    let stepSize = chees.initialStepSize;
    let trajectory = chees.initialStepSize;
    resources.writeParams({ ...params, mode: MODE_RUN });
    for (let begun = 0; begun < warmup; begun += batch) {
      const iterations = Math.min(batch, warmup - begun);
      const last = begun + iterations === warmup;
      await withErrorScopes(device, "GPU HMC warmup", async () => {
        const encoder = device.createCommandEncoder({ label: "hmc warmup" });
        encodeBatch(encoder, iterations, maxSlots);
        const read = last
          ? readback(encoder, [{ buffer: resources.ctrlF, size: ctrlBytes }])
          : null;
        submit(encoder);
        if (read === null) {
          await device.queue.onSubmittedWorkDone();
        } else {
          const control = new Float32Array((await read())[0]);
          stepSize = control[CF_EPS];
          trajectory = control[CF_T];
        }
      });
      progress(iterations);
    }

    // Sampling: ε, T and M⁻¹ fixed; each batch's draws read back once.
    const slots = samplingSlots(stepSize, trajectory, maxSlots);
    const rowWords = drawWords(d);
    const out = new Float64Array(chains * draws * dim);
    const acceptance = new Float64Array(chains);
    const divergences = new Float64Array(chains);
    let control = new Float32Array(0);
    let counters = new Uint32Array(0);
    let chainFlags = new Uint32Array(0);
    for (let first = 0; first < draws; first += batch) {
      const iterations = Math.min(batch, draws - first);
      const last = first + iterations === draws;
      await withErrorScopes(device, "GPU HMC sampling", async () => {
        resources.writeParams({ ...params, mode: MODE_RUN, drawBase: warmup + first });
        const encoder = device.createCommandEncoder({ label: "hmc sampling" });
        encodeBatch(encoder, iterations, slots);
        const sources: ReadbackSource[] = [
          { buffer: resources.draws, size: 4 * iterations * chains * rowWords },
        ];
        if (last) {
          sources.push(
            { buffer: resources.ctrlF, size: ctrlBytes },
            { buffer: resources.ctrlU, size: 4 * CC_WORDS },
            { buffer: resources.chainU, size: 4 * chains * CU_STRIDE },
          );
        }
        const read = readback(encoder, sources);
        submit(encoder);
        const parts = await read();
        const rows = new Float32Array(parts[0]);
        for (let s = 0; s < iterations; s++) {
          for (let c = 0; c < chains; c++) {
            const row = (s * chains + c) * rowWords;
            const dst = (c * draws + first + s) * dim;
            for (let j = 0; j < d; j++) {
              const v = rows[row + j];
              if (!Number.isFinite(v)) {
                throw new GpuError(
                  `GPU HMC returned a non-finite draw: chain ${c}, draw ${
                    first + s
                  }, coordinate ${j}`,
                );
              }
              out[dst + target.free[j]] = v;
            }
            acceptance[c] += rows[row + d];
            divergences[c] += rows[row + d + 1];
          }
        }
        if (last) {
          control = new Float32Array(parts[1]);
          counters = new Uint32Array(parts[2]);
          chainFlags = new Uint32Array(parts[3]);
        }
      });
      progress(iterations);
    }

    if (target.exact !== null) fillExact(target.exact, seed, out, chains, draws, dim);
    const eps = control[CF_EPS];
    const inverseMassDiag = [...control.subarray(CF_HEAD, CF_HEAD + d)];
    const capped = counters[CC_CAPPED];
    const evaluations = 1 + counters[CC_STEP_SUM];
    const chainInfo: ChainInfo[] = Array.from({ length: chains }, (_, c) => ({
      stepSize: eps,
      inverseMassDiag,
      divergences: divergences[c],
      warmupDivergences: chainFlags[c * CU_STRIDE + CU_DIV_WARMUP],
      treeDepthHits: capped,
      meanAcceptance: acceptance[c] / draws,
      gradientEvaluations: evaluations,
    }));
    return {
      draws: out,
      dim,
      chains,
      drawsPerChain: draws,
      stepSizes: chainInfo.map((info) => info.stepSize),
      divergences: chainInfo.reduce((sum, info) => sum + info.divergences, 0),
      treeDepthHits: chains * capped,
      gradientEvaluations: chains * evaluations,
      chainInfo,
    };
  });
}
