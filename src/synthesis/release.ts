/**
 * The one release pipeline (SPEC §7), in the steps every caller shares: the command line, the
 * HTTP jobs and the Redis workers (through `synthesize`) and the four studies.
 *
 * 1. {@linkcode fitter}: the fit a mechanism asks for, with its parts injected (NUTS in worker
 *    threads or in this thread, or many-chain HMC on the GPU), the same seed for every refit.
 * 2. {@linkcode runMechanismUnderCap}: the mechanism on a {@linkcode MechanismContext} (model, fit,
 *    Lipschitz backend, noise), with the ε cap: a target ε is a cap for every mechanism, and a
 *    result above it is a `CalibrationError`, never a release.
 * 3. {@linkcode syntheticDatasets}: the m datasets, each from its posterior draw
 *    ({@linkcode datasetDrawIndices}) by {@linkcode simulateDataset} (or from the noisy
 *    histogram), as the release and every study draw them.
 *
 * @module
 */
import type { GpuContext } from "../gpu/device.ts";
import { sampleGpuHmc } from "../gpu/hmc.ts";
import {
  ESS_BULK_THRESHOLD,
  type Fit,
  fitModel,
  type FitOptions,
  RHAT_THRESHOLD,
  summarizeFit,
} from "../mcmc/fit.ts";
import { WARM_WARMUP, type WarmStart, warmStartFrom, warmupProblem } from "../mcmc/warm_start.ts";
import { fitModelParallel } from "../mcmc/parallel_fit.ts";
import { CalibrationError } from "../mechanisms/calibrate.ts";
import { sampleFromHistogram } from "../mechanisms/histogram.ts";
import type {
  MechanismContext,
  MechanismOutcome,
  MechanismSettings,
} from "../mechanisms/mechanism.ts";
import { runMechanism } from "../mechanisms/run_mechanism.ts";
import type { Model, Weighting } from "../models/model.ts";
import { isJointModel } from "../models/joint.ts";
import { isSurveyModel } from "../models/survey_model.ts";
import type { Rng } from "../random/rng.ts";

/**
 * Progress of a fit: its label, the iterations done of the total, and with several outcomes the
 * outcome whose conditional it fits (`joint_fit.ts`).
 */
export type FitProgress = (
  label: string,
  done: number,
  total: number,
  conditional?: string,
) => void;

/** Options of {@linkcode fitter}. */
export interface FitterOptions {
  readonly seed: number;
  readonly chains: number;
  readonly warmup: number;
  /** Draws kept per chain. */
  readonly drawsPerChain: number;
  /** Many-chain HMC on this GPU instead of NUTS (null or absent: NUTS on the CPU). */
  readonly gpu?: GpuContext | null;
  /** NUTS in this thread (the studies, which already run in worker threads) or in workers. */
  readonly inThread?: boolean;
  /** Worker threads of NUTS (default: the logical cores, at most the chains). */
  readonly threads?: number;
  readonly onProgress?: FitProgress;
  /** Warm-start each refit from the fit before it (default true; CPU fits only). */
  readonly warmStart?: boolean;
  /** Warmup iterations of a warm-started refit (default `WARM_WARMUP`, 250). */
  readonly warmStartWarmup?: number;
  /**
   * The first fit, too, tries the short warmup first (around the Laplace approximation, which
   * already knows the posterior's location and scale), kept only when its diagnostics pass as a
   * warm start's must, else refitted with the full warmup (default false: the studies keep the
   * papers' procedure).
   */
  readonly shortFirstWarmup?: boolean;
  /**
   * A fit without divergences whose chains have not mixed (R̂ > 1.01 or bulk ESS < 400) is run
   * on from its own end: warm-started with the short warmup (its draws' preconditioner, each
   * chain's last state and step size), {@linkcode CONTINUATION_THIN} times as many iterations,
   * every such one kept, so S never changes; that run replaces it when it passes a release's
   * checks (no divergence, R̂, bulk ESS; default false: the studies keep the papers' procedure).
   */
  readonly continueUnmixed?: boolean;
  /**
   * A CPU fit with divergent transitions is run once more, cold with the full warmup, its step
   * size adapted to a target acceptance of {@linkcode DIVERGENT_REFIT_ACCEPTANCE} instead of 0.8
   * (Stan's advice for divergences: smaller steps through the posterior's high curvature); that
   * fit replaces it, with the first one's cost counted, and is checked as any fit (default false:
   * the studies keep the papers' procedure).
   */
  readonly refitDivergent?: boolean;
  /**
   * Aborting it stops the fits: no fit starts after it, NUTS's chain workers are terminated and
   * GPU HMC stops at its next batch; the fit rejects with the signal's reason.
   */
  readonly signal?: AbortSignal;
  /**
   * Fits shared with other fitters (see {@linkcode FitCache}), under `scope`: a string that names
   * the model, its data and every setting the model is built from, so that two fitters with the
   * same scope fit the same posterior (absent: every fit is made).
   */
  readonly cache?: { readonly fits: FitCache; readonly scope: string };
}

/**
 * Fits shared between syntheses that make the same fits: a hit is the same fit by construction,
 * as its key is everything the fit depends on: the caller's scope (the model, its data identity
 * and the settings it is built from), the fitter's settings and seed, the fit it warm-starts from
 * (itself keyed so, back to the first fit) and the exact bytes of the weights α and the censoring
 * level; a miss fits. It exists for tests and studies that run one synthesis under several
 * Lipschitz backends, whose fits are identical; a release never passes one. Fits of GPU HMC are
 * not shared. The fits handed out are shared objects: no caller may write into them.
 */
export class FitCache {
  readonly #fits = new Map<string, { readonly id: number; readonly fit: Fit }>();
  readonly #data = new WeakMap<object, number>();
  #dataCount = 0;
  /** Fits handed out from the cache. */
  hits = 0;
  /** Fits made (and kept). */
  misses = 0;

  /** The number of fits kept. */
  get size(): number {
    return this.#fits.size;
  }

  /**
   * A scope for {@linkcode FitterOptions.cache}: `data` by identity (the same object is the same
   * data; a dataset is never written to) and `settings` by value, as canonical JSON.
   *
   * @param data The data the model is built from.
   * @param settings Everything else the model and the fitter are built from.
   */
  scope(data: object, settings: unknown): string {
    let id = this.#data.get(data);
    if (id === undefined) this.#data.set(data, id = ++this.#dataCount);
    return `data ${id} ${canonicalJson(settings)}`;
  }

  /** The fit kept under `key`, counted as a hit, or undefined. */
  get(key: string): { readonly id: number; readonly fit: Fit } | undefined {
    const entry = this.#fits.get(key);
    if (entry !== undefined) this.hits++;
    return entry;
  }

  /** Keeps `fit` under `key`; returns the id that later keys name it by. */
  set(key: string, fit: Fit): number {
    const id = this.#fits.size + 1;
    this.#fits.set(key, { id, fit });
    this.misses++;
    return id;
  }
}

/**
 * JSON with sorted keys and non-finite numbers and -0 spelled out. Anything JSON would drop or
 * flatten (a function, a Map, a class instance) is refused, so that two different scopes never
 * share a key.
 */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key: string, v: unknown) => {
    if (typeof v === "number") {
      return Number.isFinite(v) && !Object.is(v, -0) ? v : `#number ${Object.is(v, -0) ? "-0" : v}`;
    }
    if (typeof v === "bigint" || typeof v === "function" || typeof v === "symbol") {
      throw new TypeError(`Cannot key a fit by a ${typeof v}`);
    }
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    if (Object.getPrototypeOf(v) !== Object.prototype) {
      throw new TypeError(
        `Cannot key a fit by a ${v.constructor?.name ?? "null-prototype object"}`,
      );
    }
    const record = v as Record<string, unknown>;
    return Object.fromEntries(Object.keys(record).sort().map((k) => [k, record[k]]));
  });
}

/** The exact bytes of `view`, two to a UTF-16 code unit (a byte more when odd), length first. */
function bytesKey(view: ArrayBufferView): string {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const parts = [`${bytes.length}:`];
  for (let i = 0; i < bytes.length; i += 8192) {
    const units: number[] = [];
    for (let j = i; j < Math.min(i + 8192, bytes.length); j += 2) {
      units.push(bytes[j] | ((bytes[j + 1] ?? 0) << 8));
    }
    parts.push(String.fromCharCode(...units));
  }
  return parts.join("");
}

/** The weights' part of a fit's key: α's exact bytes (or "null") and the censoring level's. */
function weightingKey(weighting: Weighting): string {
  const alpha = weighting.alpha === null ? "null" : bytesKey(weighting.alpha);
  const censor = weighting.censor === undefined
    ? "none"
    : bytesKey(new Float64Array([weighting.censor]));
  return `alpha ${alpha} censor ${censor}`;
}

/**
 * The fit of a mechanism context: every refit with the same seed, and the thread count never
 * changes the draws (`fitModelParallel` equals the serial `fitModel`). On the CPU the first fit
 * samples around the Laplace approximation (`precondition.ts`), with the short warmup first when
 * `shortFirstWarmup` asks for it; every later fit is warm-started
 * from the fit before it with a short warmup, kept only when its diagnostics show it converged,
 * else refitted cold (`warm_start.ts`); a fit after one with divergences starts cold at once.
 *
 * @param model The model bound to the data.
 * @param options The sampler and where it runs.
 * @returns `(weighting, label) => fit`.
 */
export function fitter(model: Model, options: FitterOptions): MechanismContext["fit"] {
  const { seed, chains, warmup, drawsPerChain, gpu = null, warmStart = true, signal } = options;
  const warmWarmup = options.warmStartWarmup ?? WARM_WARMUP;
  let previous: Fit | null = null;
  // The id of `previous` in the cache (0: none yet); with the settings, the scope and the
  // weights it keys the next fit, whose warm start is `previous`.
  let previousId = 0;
  const cache = gpu === null ? options.cache : undefined;
  const settingsKey = cache === undefined ? "" : canonicalJson({
    seed,
    chains,
    warmup,
    drawsPerChain,
    warmStart,
    warmWarmup,
    inThread: options.inThread ?? false,
    threads: options.threads ?? null,
    shortFirstWarmup: options.shortFirstWarmup ?? false,
    continueUnmixed: options.continueUnmixed ?? false,
    refitDivergent: options.refitDivergent ?? false,
  });
  const fitOnce = cache === undefined ? fitAnew : async (weighting: Weighting, label: string) => {
    signal?.throwIfAborted();
    const key = `${cache.scope}\u0000${settingsKey}\u0000after ${previousId}\u0000` +
      weightingKey(weighting);
    const kept = cache.fits.get(key);
    if (kept !== undefined) {
      previous = kept.fit;
      previousId = kept.id;
      return kept.fit;
    }
    const made = await fitAnew(weighting, label);
    previousId = cache.fits.set(key, made);
    return made;
  };
  return fitOnce;

  /** The fit under `weighting`, warm-started from `previous` (which it becomes). */
  async function fitAnew(weighting: Weighting, label: string): Promise<Fit> {
    signal?.throwIfAborted();
    const onProgress = (done: number, total: number) => options.onProgress?.(label, done, total);
    const settings = { seed, chains, warmup, draws: drawsPerChain, onProgress };
    if (gpu !== null) {
      // GPU HMC reports progress between its batches: an abort ends it there.
      const progress = (done: number, total: number) => {
        signal?.throwIfAborted();
        onProgress(done, total);
      };
      return summarizeFit(
        model,
        await sampleGpuHmc(gpu, model, weighting, { ...settings, onProgress: progress }),
        undefined,
        warmup,
      );
    }
    const run = async (fitOptions: FitOptions) =>
      options.inThread
        ? fitModel(model, weighting, fitOptions)
        : await fitModelParallel(model, weighting, {
          ...fitOptions,
          threads: options.threads,
          signal,
        });
    // Divergences come from the posterior's geometry (a funnel), which nearby weights keep: the
    // successor of a fit that diverged diverges too, and its short warmup would be discarded.
    const from = warmStart && warmup > warmWarmup ? previous : null;
    const skip = from !== null && from.divergences > 0;
    const warm = from !== null && !skip ? warmStartFrom(model, from) : null;
    const shortFirst = options.shortFirstWarmup === true && previous === null &&
      warmup > warmWarmup;
    let fit: Fit;
    if (shortFirst) {
      const attempt = await run({ ...settings, warmup: warmWarmup });
      const problem = attempt.setup.precondition === "laplace"
        ? warmupProblem(attempt)
        : "no Laplace approximation";
      fit = problem === null ? attempt : withDiscardedAttempt(
        await run(settings),
        attempt.gradientEvaluations,
        `short warmup: ${problem}`,
      );
    } else if (warm === null) {
      fit = await run(settings);
      if (skip) fit = withWarmStartSkipped(fit);
    } else {
      // A start that fails under the new weights (a non-finite density there) is a problem too;
      // only the error's kind is kept, as its message may quote parameter values.
      const attempt = await run({ ...settings, warmup: warmWarmup, ...warm })
        .catch((error: Error) => error);
      const problem = attempt instanceof Error
        ? `the warm-started attempt failed (${attempt.name})`
        : warmupProblem(attempt);
      if (problem === null && !(attempt instanceof Error)) {
        fit = { ...attempt, setup: { ...attempt.setup, warmStart: true } };
      } else {
        const discarded = attempt instanceof Error ? 0 : attempt.gradientEvaluations;
        fit = withDiscardedAttempt(await run(settings), discarded, problem!);
      }
    }
    if (options.refitDivergent === true && fit.divergences > 0) {
      fit = withDiscardedAttempt(
        await run({ ...settings, adaptation: { targetAcceptance: DIVERGENT_REFIT_ACCEPTANCE } }),
        fit.gradientEvaluations,
        `${fit.divergences} divergent transitions: refitted at target acceptance ` +
          DIVERGENT_REFIT_ACCEPTANCE,
      );
    }
    if (options.continueUnmixed === true && fit.flagged && fit.divergences === 0) {
      fit = await continued(
        fit,
        (from) => run({ ...settings, warmup: warmWarmup, thin: CONTINUATION_THIN, ...from }),
      );
    }
    previous = fit;
    return fit;
  }

  /**
   * The fit run on from its own end (see `continueUnmixed`), or `fit` itself, with the
   * continuation's cost, when the continued run does not pass its diagnostics.
   */
  async function continued(fit: Fit, run: (from: WarmStart) => Promise<Fit>): Promise<Fit> {
    const from = warmStartFrom(model, fit);
    if (from === null) return fit;
    const attempt = await run(from).catch((error: Error) => error);
    const cost = attempt instanceof Error ? 0 : attempt.gradientEvaluations;
    // A release's checks, as for any fit (not a warm start's step-size spread: the chains ran on).
    if (attempt instanceof Error || attempt.flagged) {
      return {
        ...fit,
        gradientEvaluations: fit.gradientEvaluations + cost,
        setup: { ...fit.setup, setupEvaluations: fit.setup.setupEvaluations + cost },
      };
    }
    return {
      ...attempt,
      gradientEvaluations: attempt.gradientEvaluations + fit.gradientEvaluations,
      setup: {
        ...fit.setup,
        precondition: attempt.setup.precondition,
        setupEvaluations: attempt.setup.setupEvaluations + fit.gradientEvaluations,
        continuedAfter: unmixed(fit),
      },
    };
  }
}

/** Iterations per kept draw of an unmixed fit's continuation (`continueUnmixed`). */
export const CONTINUATION_THIN = 2;

/** What an unmixed fit failed, in words (R̂ and bulk ESS). */
function unmixed(fit: Fit): string {
  return [
    ...(!(fit.rhatMax <= RHAT_THRESHOLD) ? [`R-hat ${fit.rhatMax.toFixed(4)}`] : []),
    ...(!(fit.essBulkMin >= ESS_BULK_THRESHOLD) ? [`bulk ESS ${fit.essBulkMin.toFixed(0)}`] : []),
  ].join(", ");
}

/** A cold refit that did not try a warm start because the fit before it diverged. */
function withWarmStartSkipped(fit: Fit): Fit {
  return { ...fit, setup: { ...fit.setup, warmStartRejected: WARM_START_SKIPPED } };
}

/** The target acceptance of the refit of a fit with divergent transitions (`refitDivergent`). */
export const DIVERGENT_REFIT_ACCEPTANCE = 0.95;

/** Why a refit did not try a warm start: the fit it would start from had divergences. */
export const WARM_START_SKIPPED = "not tried: the fit before it had divergent transitions";

/** A cold refit that replaced a warm-started attempt: the attempt's cost and why it went. */
function withDiscardedAttempt(fit: Fit, discarded: number, problem: string): Fit {
  return {
    ...fit,
    gradientEvaluations: fit.gradientEvaluations + discarded,
    setup: {
      ...fit.setup,
      setupEvaluations: fit.setup.setupEvaluations + discarded,
      warmStartRejected: problem,
    },
  };
}

/** Options of {@linkcode runMechanismUnderCap}. */
export interface RunUnderCapOptions {
  /**
   * Refuse an outcome above `settings.epsilon` (default true). Only a study that measures where
   * a mechanism ends, above its target included, turns this off; it releases nothing.
   */
  readonly enforceCap?: boolean;
}

/**
 * Runs a mechanism and enforces the cap: with a target ε (`settings.epsilon`), no mechanism
 * releases more.
 *
 * @param settings The mechanism and its settings.
 * @param context The model, fit, Lipschitz backend and noise.
 * @param options Whether the cap is enforced (always, for a release).
 * @returns The outcome; throws a `CalibrationError` when ε ends above the target.
 */
export async function runMechanismUnderCap(
  settings: MechanismSettings,
  context: MechanismContext,
  options: RunUnderCapOptions = {},
): Promise<MechanismOutcome> {
  const outcome = await runMechanism(settings, context);
  const cap = options.enforceCap === false ? undefined : settings.epsilon;
  if (cap !== undefined && !(outcome.privacy.epsilon <= cap)) {
    throw new CalibrationError(
      cap,
      outcome.privacy.epsilon,
      `${settings.mechanism} could not bring epsilon under the target`,
    );
  }
  return outcome;
}

/**
 * The m posterior draws that generate the datasets: distinct and evenly spaced over the S
 * draws, s_j = ⌊(j + 1)·S/(m + 1)⌋ for j = 0..m−1.
 *
 * @param S The number of draws.
 * @param m The number of datasets (1 ≤ m ≤ S).
 * @returns The 0-based draw indices.
 */
export function datasetDrawIndices(S: number, m: number): number[] {
  if (!(m >= 1 && m <= S)) throw new RangeError(`Invalid m: must lie in [1, S=${S}]: m=${m}`);
  return Array.from({ length: m }, (_, j) => Math.floor(((j + 1) * S) / (m + 1)));
}

/** The m synthetic datasets of a mechanism's outcome and the posterior draws behind them. */
export interface SyntheticDatasets {
  /** 0-based posterior draw of each dataset (empty for the histogram, which has no fit). */
  readonly drawIndices: number[];
  readonly datasets: SyntheticDraw[];
}

/**
 * The m synthetic datasets of a mechanism's outcome (SPEC §7), as the release and every study
 * draw them: dataset j from the posterior draw {@linkcode datasetDrawIndices}(S, m)[j] (from the
 * noisy histogram when there is no fit) on the stream `streamOf(j)`.
 *
 * @param model The model.
 * @param outcome The mechanism's outcome.
 * @param m The number of datasets.
 * @param streamOf Dataset j's stream.
 * @param weightTotal The total a survey model scales its weights to (public in a release).
 * @returns The datasets, in order, with their draws.
 */
export function syntheticDatasets(
  model: Model,
  outcome: MechanismOutcome,
  m: number,
  streamOf: (j: number) => Rng,
  weightTotal?: number,
): SyntheticDatasets {
  const drawIndices = outcome.fit === null ? [] : datasetDrawIndices(outcome.fit.S, m);
  const datasets = Array.from(
    { length: m },
    (_, j) => simulateDataset(model, outcome, drawIndices[j] ?? 0, streamOf(j), weightTotal),
  );
  return { drawIndices, datasets };
}

/** One synthetic dataset: the outcomes and, for a survey model, the smoothed weights. */
export interface SyntheticDraw {
  readonly y: Float64Array;
  /** FBS/FBP's synthetic weights w* (zeros for other models). */
  readonly w: Float64Array;
  /** Several outcomes: each one's synthetic values in visit order (`y` is the first). */
  readonly outcomes?: readonly Float64Array[];
}

/**
 * Draws one synthetic dataset of n records: from the noisy histogram, or from the model at the
 * posterior draw `s` (a survey model also draws its weights, scaled to sum to `weightTotal`).
 *
 * @param model The model.
 * @param outcome The mechanism's outcome.
 * @param s The posterior draw (ignored for the histogram).
 * @param rng The dataset's stream.
 * @param weightTotal The total a survey model scales its weights to (public in a release).
 * @returns The synthetic outcomes (and weights).
 */
export function simulateDataset(
  model: Model,
  outcome: MechanismOutcome,
  s: number,
  rng: Rng,
  weightTotal?: number,
): SyntheticDraw {
  const n = model.design.n;
  const w = new Float64Array(n);
  if (outcome.fit === null) return { y: sampleFromHistogram(outcome.histogram!, n, rng), w };
  const theta = outcome.fit.draws.subarray(s * model.dim, (s + 1) * model.dim);
  if (isSurveyModel(model)) {
    return model.simulateSurvey(theta, rng, { y: new Float64Array(n), w }, weightTotal);
  }
  if (isJointModel(model)) {
    const outcomes = model.simulateJoint(theta, rng);
    return { y: outcomes[0], w, outcomes };
  }
  return { y: model.simulate(theta, rng, new Float64Array(n)), w };
}
