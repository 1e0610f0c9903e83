/**
 * Plumbing shared by the papers' Monte Carlo studies (SPEC §9): replicate seeds, a memoising
 * mechanism context (the pipeline's `fitter` in this thread), summaries over replicates, and
 * running a study (the scheduler and its transports are `replicate_scheduler.ts`) to its JSON and
 * markdown files (the markdown helpers are `markdown.ts`).
 *
 * A study (`study.ts`) is `replicate(r, seed, settings) → record` (plain JSON, a pure
 * function of its arguments) plus `aggregate(records, settings) → summary` (pure), so the result is
 * a pure function of (seed, R, settings) however the replicates are scheduled. Replicate r draws
 * its data from `new Rng(seed).split(r)`; its fit seed and its synthesis and noise streams are
 * split from that generator (streams {@linkcode REPLICATE_FIT_STREAM},
 * {@linkcode REPLICATE_SYNTHESIS_STREAM} + j and {@linkcode REPLICATE_NOISE_STREAM} + j of
 * `src/random/streams.ts`, clear of the data streams 0, 1, 2, …).
 *
 * @module
 */
import { writeFilesAtomically } from "../data/write_files.ts";
import { quantile } from "../stats/quantile.ts";
import type { Fit } from "../mcmc/fit.ts";
import { cpuLipschitz, type LipschitzBackend } from "../mechanisms/lipschitz_backend.ts";
import type { LipschitzResult } from "../mechanisms/lipschitz.ts";
import type { MechanismContext } from "../mechanisms/mechanism.ts";
import type { Model, Weighting } from "../models/model.ts";
import { Rng } from "../random/rng.ts";
import { REPLICATE_FIT_STREAM } from "../random/streams.ts";
import { acquireGpu, type GpuContext } from "../gpu/device.ts";
import { createGpuLipschitz } from "../gpu/lipschitz_gpu.ts";
import { fitter } from "../synthesis/release.ts";
import {
  inThisThread,
  inWorkerThreads,
  type OnStage,
  scheduleReplicates,
} from "./replicate_scheduler.ts";
import type { Study, StudyResult } from "./study.ts";

/** NUTS settings of a study: K chains, each with `warmup` + `draws` iterations. */
export interface SamplerSettings {
  readonly chains: number;
  readonly warmup: number;
  /** Kept draws per chain (S = chains·draws). */
  readonly draws: number;
  /**
   * "gpu-hmc": every fit is the GPU's many-chain HMC (issue 27) in {@linkcode GPU_STUDY_CHAINS}
   * chains with the same warmup and at least S draws in all; absent: NUTS on the CPU.
   */
  readonly sampler?: "gpu-hmc";
  /**
   * "gpu": every Lipschitz bound on the GPU's kernels (`createGpuLipschitz`, its f32 maximum
   * confirmed in f64, so Δ and every Δ_i equal the CPU's bit for bit); absent: on the CPU.
   */
  readonly backend?: "gpu";
}

/** The chains of a study's GPU HMC fit (its cross-chain adaptation wants many). */
export const GPU_STUDY_CHAINS = 64;

/** Draws per chain of a study's GPU HMC fit: at least the CPU sampler's S in all. */
export function gpuDrawsPerChain(sampler: SamplerSettings): number {
  return Math.ceil(sampler.chains * sampler.draws / GPU_STUDY_CHAINS);
}

/** The studies' sampler: 2 chains × (500 warmup + 500 draws), S = 1000 draws per fit. */
export const STUDY_SAMPLER: SamplerSettings = Object.freeze({ chains: 2, warmup: 500, draws: 500 });

/**
 * What {@linkcode STUDY_SAMPLER} does to Δ, for the studies' reports: the pilot behind the choice
 * (Poisson n = 1600, the NB mixture n = 1000 and Beta(0.5, 3) n = 2000, five databases each, the
 * unweighted fit and the LW fit with c = 1, g = 0; seeds 900–904, fit seeds 31–35).
 */
export const SAMPLER_NOTE = "Δ is a maximum over the S draws, so fewer draws can only lower " +
  "it in expectation. A separate pilot (15 databases: five each of Poisson(100) " +
  "n = 1600, the NB mixture n = 1000 and Beta(0.5, 3) n = 2000; unweighted and LW fits) " +
  "compared Δ from 2 × 500 draws with Δ from Stan's default 4 × 1000: the ratio was " +
  "0.937–1.015 (median 0.993), so the bounds here are about 1% below those of 4 × 1000 draws " +
  "(up to 6% for one weighted beta fit), at a quarter of the cost.";

/** The generator of replicate r: `new Rng(seed).split(r)` (its data streams split from it). */
export function replicateRng(seed: number, r: number): Rng {
  return new Rng(seed).split(r);
}

/**
 * The fit seed of a replicate: 53 bits from the stream {@linkcode REPLICATE_FIT_STREAM} of its
 * generator, (w₀ mod 2²¹)·2³² + w₁ for the stream's first two words.
 *
 * @param replicate The replicate's generator (not advanced: the seed comes from a split).
 */
export function fitSeedOf(replicate: Rng): number {
  const stream = replicate.split(REPLICATE_FIT_STREAM);
  const high = stream.nextUint32() & 0x1fffff;
  return high * 2 ** 32 + stream.nextUint32();
}

/** What the fits of one replicate were like (SPEC §6 flags). */
export interface FitStats {
  /** Distinct fits made (memoised repeats not counted). */
  readonly fits: number;
  /** Fits with R̂ > 1.01 or bulk ESS < 400 for some parameter, or a divergence. */
  readonly flagged: number;
  /** Fits flagged on a parameter of the likelihood (any parameter but the prior scales σ_β). */
  readonly flaggedLikelihood: number;
  /** Post-warmup divergences summed over the fits. */
  readonly divergences: number;
}

function sameWeights(a: Float64Array | null, b: Float64Array | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/** Whether a likelihood parameter (not a σ_β prior scale) has R̂ > 1.01 or bulk ESS < 400. */
function likelihoodFlagged(fit: Fit): boolean {
  return Object.entries(fit.summary).some(([name, s]) =>
    !name.startsWith("sigma_beta") && !(s.rhat <= 1.01 && s.essBulk >= 400)
  );
}

/** A mechanism context for one replicate whose fits and Lipschitz bounds are memoised. */
export interface ReplicateFits {
  /** Give it to `runMechanism` (its `laplace` is the caller's). */
  readonly context: MechanismContext;
  /** The fits made so far. */
  stats(): FitStats;
}

/** This thread's WebGPU device for studies, acquired on first use. */
let gpuDevice: Promise<GpuContext> | null = null;

/**
 * The WebGPU device a study's `gpu-hmc` fits or GPU Lipschitz bounds run on (one per thread); an
 * Error when there is none.
 */
async function studyGpu(): Promise<GpuContext> {
  gpuDevice ??= acquireGpu().then((gpu) => {
    if (gpu === null) {
      throw new Error("Cannot run a study on the GPU as no WebGPU adapter was found");
    }
    return gpu;
  });
  return await gpuDevice;
}

/**
 * Builds a {@linkcode MechanismContext} whose `fit` is the pipeline's `fitter` in this thread (NUTS
 * with one seed, the replicate already runs in a worker) and
 * remembers every fit by its weighting (the bytes of α and the censoring level), so the
 * unweighted fit, the LW fit and every calibration step are computed once per replicate
 * however many mechanisms ask for them. Lipschitz bounds are remembered by (draws, α) likewise.
 * Memoisation changes no number: the same seed and weighting give the same draws.
 *
 * @param model The model bound to the replicate's data.
 * @param seed The replicate's fit seed.
 * @param options The sampler, the noise source and a callback told of each new fit.
 */
export function replicateFits(
  model: Model,
  seed: number,
  options: {
    readonly sampler: SamplerSettings;
    readonly laplace: (scale: number) => number;
    readonly onFit?: (label: string) => void;
  },
): ReplicateFits {
  const fits: { weighting: Weighting; fit: Fit }[] = [];
  const bounds = new WeakMap<
    Float64Array,
    { alpha: Float64Array | null; bound: LipschitzResult }[]
  >();
  const { sampler } = options;
  let gpuLipschitz: LipschitzBackend | null = null;
  const backend = async () =>
    sampler.backend === "gpu"
      ? (gpuLipschitz ??= createGpuLipschitz(await studyGpu()))
      : cpuLipschitz;
  const lipschitz: LipschitzBackend = {
    /** The backend the bounds ran on ("gpu" once a GPU bound was computed). */
    get name() {
      return gpuLipschitz?.name ?? cpuLipschitz.name;
    },
    async compute(model, draws, lipschitzOptions) {
      const alpha = lipschitzOptions?.alpha ?? null;
      const known = bounds.get(draws) ?? [];
      const hit = lipschitzOptions?.matrix
        ? undefined
        : known.find((b) => sameWeights(b.alpha, alpha));
      if (hit !== undefined) return hit.bound;
      const bound = await (await backend()).compute(model, draws, lipschitzOptions);
      known.push({ alpha: alpha === null ? null : alpha.slice(), bound });
      bounds.set(draws, known);
      return bound;
    },
  };
  const gpuHmc = sampler.sampler === "gpu-hmc";
  let fitOnce: MechanismContext["fit"] | null = null;
  const fitInThread = async (weighting: Weighting, label: string) => {
    fitOnce ??= fitter(model, {
      seed,
      chains: gpuHmc ? GPU_STUDY_CHAINS : sampler.chains,
      warmup: sampler.warmup,
      drawsPerChain: gpuHmc ? gpuDrawsPerChain(sampler) : sampler.draws,
      inThread: true,
      gpu: gpuHmc ? await studyGpu() : null,
    });
    return await fitOnce(weighting, label);
  };
  const fit = async (weighting: Weighting, label: string): Promise<Fit> => {
    const hit = fits.find((f) =>
      f.weighting.censor === weighting.censor && sameWeights(f.weighting.alpha, weighting.alpha)
    );
    if (hit !== undefined) return hit.fit;
    options.onFit?.(label);
    const result = await fitInThread(weighting, label);
    fits.push({
      weighting: {
        alpha: weighting.alpha === null ? null : weighting.alpha.slice(),
        censor: weighting.censor,
      },
      fit: result,
    });
    return result;
  };
  return {
    context: { model, fit, lipschitz, laplace: options.laplace },
    stats: () => ({
      fits: fits.length,
      flagged: fits.filter((f) => f.fit.flagged).length,
      flaggedLikelihood: fits.filter((f) => likelihoodFlagged(f.fit)).length,
      divergences: fits.reduce((s, f) => s + f.fit.divergences, 0),
    }),
  };
}

/** The fit statistics of all replicates, with the shares of fits flagged. */
export interface TotalFitStats extends FitStats {
  readonly flaggedShare: number;
  readonly flaggedLikelihoodShare: number;
}

/** Sums the fit statistics of the replicates. */
export function totalFitStats(stats: readonly FitStats[]): TotalFitStats {
  const sum = (key: keyof FitStats) => stats.reduce((s, x) => s + x[key], 0);
  const fits = sum("fits");
  return {
    fits,
    flagged: sum("flagged"),
    flaggedLikelihood: sum("flaggedLikelihood"),
    divergences: sum("divergences"),
    flaggedShare: fits === 0 ? 0 : sum("flagged") / fits,
    flaggedLikelihoodShare: fits === 0 ? 0 : sum("flaggedLikelihood") / fits,
  };
}

/** Min, quartiles and max (R's type-7 quantiles) of a sample, with its size and mean. */
export interface Summary {
  readonly count: number;
  readonly mean: number;
  readonly min: number;
  readonly q25: number;
  readonly median: number;
  readonly q75: number;
  readonly max: number;
}

function finiteSorted(name: string, values: readonly number[]): Float64Array {
  if (values.length === 0) throw new RangeError(`Invalid ${name}: must not be empty`);
  values.forEach((v, i) => {
    if (!Number.isFinite(v)) throw new RangeError(`Invalid ${name}: entry ${i} is not finite`);
  });
  return Float64Array.from(values).sort();
}

/**
 * Min, type-7 quartiles, max and mean of finite values.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { summarize } from "./study_runner.ts";
 * const s = summarize([4, 1, 3, 2]);
 * assert.deepEqual([s.min, s.q25, s.median, s.q75, s.max, s.mean], [1, 1.75, 2.5, 3.25, 4, 2.5]);
 * ```
 */
export function summarize(values: readonly number[]): Summary {
  const sorted = finiteSorted("values", values);
  return {
    count: sorted.length,
    mean: sorted.reduce((s, v) => s + v, 0) / sorted.length,
    min: sorted[0],
    q25: quantile(sorted, 0.25),
    median: quantile(sorted, 0.5),
    q75: quantile(sorted, 0.75),
    max: sorted[sorted.length - 1],
  };
}

/**
 * The 95% interval over replicates as the vector-weighted paper's Table 1 reports it: the type-7
 * 2.5% and 97.5% quantiles.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { interval95 } from "./study_runner.ts";
 * const values = Array.from({ length: 41 }, (_, i) => 40 - i); // 40, 39, …, 0
 * assert.deepEqual(interval95(values), [1, 39]);
 * ```
 */
export function interval95(values: readonly number[]): [number, number] {
  const sorted = finiteSorted("values", values);
  return [quantile(sorted, 0.025), quantile(sorted, 0.975)];
}

/** Options of {@linkcode runStudy}. */
export interface RunStudyOptions<S> {
  readonly seed: number;
  readonly replicates: number;
  readonly settings: S;
  /** Worker threads running replicates side by side (0: every replicate in this thread). */
  readonly workers: number;
  /** Told when replicate r (0-based) reaches a stage, and when it is done (stage "done"). */
  readonly onStage?: OnStage;
}

/**
 * Runs R replicates of `study` and aggregates them (`replicate_scheduler.ts`, in this thread
 * or in worker threads). The result does not depend on `workers`: each replicate is a pure
 * function of (r, seed, settings) and records are aggregated in replicate order.
 *
 * @param study The study.
 * @param options Seed, R, settings, worker threads and a progress callback.
 * @returns The JSON-able result.
 */
export function runStudy<S, R, A>(
  study: Study<S, R, A>,
  options: RunStudyOptions<S>,
): Promise<StudyResult<S, R, A>> {
  const transport = options.workers === 0 ? inThisThread : inWorkerThreads(options.workers);
  return scheduleReplicates(study, options, transport, options.onStage);
}

/** The JSON text of a result: two-space indented, with a final newline. */
export function studyJson(result: StudyResult<unknown, unknown, unknown>): string {
  return JSON.stringify(result, null, 2) + "\n";
}

/**
 * Writes `<name>.json` and `<name>.md` into `dir`, both or neither.
 *
 * @param dir The output folder (created if needed).
 * @param result The study's result.
 * @param markdown Its markdown report.
 */
export async function writeStudy(
  dir: string,
  result: StudyResult<unknown, unknown, unknown>,
  markdown: string,
): Promise<void> {
  await writeFilesAtomically(
    dir,
    new Map([[`${result.study}.json`, studyJson(result)], [`${result.study}.md`, markdown]]),
  );
}
