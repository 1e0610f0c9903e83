/**
 * Limits on the work one request may ask of the service (issue 22): without them one job could
 * ask for 10⁶ draws in 64 chains and hold a worker for hours.
 *
 * - {@linkcode checkWork}: a cap on the sampler iterations a synthesis (or an fbs/fbp table) asks
 *   for, `chains·warmup + draws` (draws are the total over the chains), checked when the request
 *   arrives (`PPSYNTH_MAX_ITERATIONS`). It reads the request only, so its refusal says nothing of
 *   the data.
 * - {@linkcode JobTimeLimitError} and {@linkcode timeLimitFailure}: a job that runs past
 *   `PPSYNTH_JOB_TIME_LIMIT_MS` is stopped (its handler's AbortSignal is aborted with this error,
 *   which ends its chain workers) and failed with the fixed code `time_limit` (`runLeasedJob`).
 *
 * @module
 */
import { SYNTHETIC_TABLE_METHODS, type TableMethodName } from "../survey/table_methods.ts";
import { PolicyError } from "./domain_errors.ts";
import type { JobFailure, JobKind } from "./store.ts";

/** The limits {@linkcode checkWork} applies (the API's settings carry them). */
export interface WorkLimits {
  /** Most sampler iterations, chains·warmup + draws, of one request. */
  readonly maxIterations: number;
}

/** The sampler settings of a request (a synthesis, or an fbs/fbp table); absent: defaults. */
export interface SamplerRequest {
  /** Total posterior draws over the chains (default 4000). */
  readonly draws?: number;
  /** Chains (default 4 for NUTS, 64 for GPU HMC, as `synthesize` takes them). */
  readonly chains?: number;
  /** Warmup iterations per chain (default 1000). */
  readonly warmup?: number;
  readonly sampler?: "nuts" | "gpu-hmc";
}

/** The defaults of `SynthesisSpec` and `synthesize`. */
const DEFAULT_DRAWS = 4000;
const DEFAULT_WARMUP = 1000;
const defaultChains = (sampler: SamplerRequest["sampler"]) => sampler === "gpu-hmc" ? 64 : 4;

/**
 * The sampler iterations of one fit of a request: chains·warmup + draws.
 *
 * @param request The request's sampler settings.
 * @returns The chains, warmup and draws it runs with, and their iterations.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { samplerWork } from "./work_limits.ts";
 * assert.equal(samplerWork({}).iterations, 4 * 1000 + 4000);
 * ```
 */
export function samplerWork(
  request: SamplerRequest,
): { chains: number; warmup: number; draws: number; iterations: number } {
  const chains = request.chains ?? defaultChains(request.sampler);
  const warmup = request.warmup ?? DEFAULT_WARMUP;
  const draws = request.draws ?? DEFAULT_DRAWS;
  return { chains, warmup, draws, iterations: chains * warmup + draws };
}

/**
 * The sampler iterations of one fit of a stored job's request ({@linkcode samplerWork}): a
 * synthesis's, an fbs or fbp table's; 0 for a table that samples nothing (laplace, sample).
 *
 * @param kind The job's kind.
 * @param spec Its request.
 * @returns The iterations.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jobIterations } from "./work_limits.ts";
 * assert.equal(jobIterations("synthesis", { draws: 2000 }), 6000);
 * assert.equal(jobIterations("table", { method: "laplace" }), 0);
 * ```
 */
export function jobIterations(
  kind: JobKind,
  spec: SamplerRequest & { readonly method?: string; readonly y?: unknown },
): number {
  if (kind === "synthesis" && spec.y === "all") {
    return fileSamplerWork(spec as FileSamplerRequest).iterations;
  }
  const samples = kind === "synthesis" ||
    SYNTHETIC_TABLE_METHODS.includes(spec.method as TableMethodName);
  return samples ? samplerWork(spec).iterations : 0;
}

/**
 * Refuses a request whose sampler work exceeds the limit: a 422 `too_much_work`
 * {@linkcode PolicyError} naming the limit and the field at fault (`draws` when the draws are
 * the larger part of the work, else `chains` or `warmup`, whichever is further above its
 * default). Data-independent: it reads the request and the settings only.
 *
 * @param request The request's sampler settings.
 * @param limits The service's limits.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkWork } from "./work_limits.ts";
 * checkWork({ draws: 4000, chains: 4, warmup: 1000 }, { maxIterations: 400_000 });
 * assert.throws(() => checkWork({ draws: 1_000_000, chains: 64 }, { maxIterations: 400_000 }));
 * ```
 */
export function checkWork(request: SamplerRequest, limits: WorkLimits): void {
  const { chains, warmup, draws, iterations } = samplerWork(request);
  if (iterations <= limits.maxIterations) return;
  const field = draws >= chains * warmup
    ? "draws"
    : chains / defaultChains(request.sampler) > warmup / DEFAULT_WARMUP
    ? "chains"
    : "warmup";
  throw new PolicyError(
    422,
    "too_much_work",
    `the request asks for ${iterations} sampler iterations (chains × warmup + draws: ` +
      `${chains} × ${warmup} + ${draws}); this service runs at most ${limits.maxIterations} ` +
      `per request (PPSYNTH_MAX_ITERATIONS): lower ${field}`,
    field,
  );
}

/** The Gibbs settings of a whole-file request (`FileSynthesisSpec`: draws per chain). */
export interface FileSamplerRequest {
  readonly chains: number;
  readonly warmup: number;
  readonly draws: number;
}

/**
 * The sampler iterations of one fit of a whole-file request (issue 35), counted as a synthesis's:
 * every chain's sweeps, chains·(warmup + draws) (its draws are per chain).
 *
 * @param request The request's Gibbs settings.
 * @returns The iterations.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fileSamplerWork } from "./work_limits.ts";
 * assert.equal(fileSamplerWork({ chains: 2, warmup: 400, draws: 500 }).iterations, 1800);
 * ```
 */
export function fileSamplerWork(request: FileSamplerRequest): { iterations: number } {
  return { iterations: request.chains * (request.warmup + request.draws) };
}

/**
 * Refuses a whole-file request whose Gibbs sweeps, chains·(warmup + draws), exceed the limit
 * (422 `too_much_work`, naming the largest factor's field). Data-independent.
 *
 * @param request The request's Gibbs settings.
 * @param limits The service's limits.
 */
export function checkFileWork(request: FileSamplerRequest, limits: WorkLimits): void {
  const { chains, warmup, draws } = request;
  const iterations = fileSamplerWork(request).iterations;
  if (iterations <= limits.maxIterations) return;
  // The factor furthest above the defaults (2 chains of 400 + 500 sweeps).
  const field = chains / 2 > (warmup + draws) / 900
    ? "chains"
    : draws >= warmup
    ? "draws"
    : "warmup";
  throw new PolicyError(
    422,
    "too_much_work",
    `the request asks for ${iterations} sampler iterations (chains × (warmup + draws): ` +
      `${chains} × (${warmup} + ${draws})); this service runs at most ${limits.maxIterations} ` +
      `per request (PPSYNTH_MAX_ITERATIONS): lower ${field}`,
    field,
  );
}

/** The code of a job stopped at the time limit. */
export const TIME_LIMIT_CODE = "time_limit";

/**
 * The fixed failure of a job stopped at the time limit (it names the limit only, never how far
 * the job got; on a registered dataset the store shows analysts `data_rejected` and keeps this
 * for the owner's diagnostics).
 *
 * @param limitMs The limit in milliseconds.
 */
export function timeLimitFailure(limitMs: number): JobFailure {
  return {
    code: TIME_LIMIT_CODE,
    message: `the job ran past the time limit of ${limitMs} ms per job ` +
      "(PPSYNTH_JOB_TIME_LIMIT_MS) and was stopped",
  };
}

/** The reason a job's AbortSignal is aborted when it runs past the time limit. */
export class JobTimeLimitError extends Error {
  override name = "JobTimeLimitError";
  readonly limitMs: number;

  /** @param limitMs The limit in milliseconds. */
  constructor(limitMs: number) {
    super(timeLimitFailure(limitMs).message);
    this.limitMs = limitMs;
  }
}
