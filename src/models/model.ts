/**
 * The model contract every synthesizer model implements (SPEC §5).
 *
 * A model is bound to one dataset (outcome and public covariates). Parameters live on two
 * scales: the constrained scale θ (what is reported and what the Lipschitz matrix is evaluated
 * at) and the unconstrained scale u (what the sampler moves on). Both have the same length
 * `dim`; every transform is element-wise (log for positive parameters).
 *
 * @module
 */
import type { Design, OutcomeKind } from "../data/design.ts";
import type { Rng } from "../random/rng.ts";
import type { ExactCoordinates } from "./exact_coordinates.ts";
import type { CoefficientPriorTerms, HalfStudentT } from "./glm_prior.ts";

export type { Design, OutcomeKind } from "../data/design.ts";
export type { ExactCoordinates } from "./exact_coordinates.ts";

/**
 * Which Euclidean metric the NUTS sampler adapts and uses (Stan's `diag_e` and `dense_e`); a model
 * names the one its fits use by default (`src/mcmc/metric.ts` implements them).
 */
export type MetricKind = "diag" | "dense";

/**
 * How record log-likelihoods enter the log target (SPEC §1 and §3).
 *
 * The contribution of record i is c_i = α_i·ℓ_i(θ); when `censor` is set it is clamped to
 * [−censor, censor] (the censored likelihood, with zero gradient where clamped).
 * `alpha === null` means every α_i = 1.
 */
export interface Weighting {
  /**
   * α_i ∈ [0, 1] per record, or null for all 1. Without `censor` its entries must not change
   * while the weighting is in use: a model may keep sums over it (`normal.ts`).
   */
  readonly alpha: Float64Array | null;
  /** The censoring bound C > 0 of SPEC §3 (ε/2), or absent for none. */
  readonly censor?: number;
}

/** The unweighted pseudo posterior: every α_i = 1, no censoring. */
export const UNWEIGHTED: Weighting = Object.freeze({ alpha: null });

/** A model bound to one dataset. */
export interface Model {
  /** The model's name, e.g. "negbin". */
  readonly name: string;
  /** The data the model is bound to. */
  readonly design: Design;
  /** Length of θ and of u. */
  readonly dim: number;
  /** Names of θ's entries, in order (e.g. intercept, covariates, phi). */
  readonly paramNames: readonly string[];
  /**
   * The NUTS metric a fit of this model uses unless its options name one: `dense` for models
   * whose posteriors are strongly correlated (FBS, FBP); absent means `diag`, Stan's default.
   */
  readonly metric?: MetricKind;
  /** Coordinates of u the sampler draws exactly instead of by NUTS (absent: none). */
  readonly exactCoordinates?: ExactCoordinates;
  /**
   * The regression coefficients' prior (`glm_prior.ts`), for the GPU sampler to read its kind
   * and scales; absent for models with their own priors (the survey models).
   */
  readonly coefficientPrior?: CoefficientPriorTerms;
  /** Maps unconstrained u to constrained θ (writes `out`, returns it). */
  constrain(u: Float64Array, out?: Float64Array): Float64Array;
  /** Maps constrained θ to unconstrained u (writes `out`, returns it). */
  unconstrain(theta: Float64Array, out?: Float64Array): Float64Array;
  /** A reasonable starting point on the unconstrained scale (the sampler jitters it). */
  initialPoint(): Float64Array;
  /** Per-record log-likelihood ℓ_i(θ) at constrained θ, written into `out` (length n). */
  logLik(theta: Float64Array, out: Float64Array): Float64Array;
  /**
   * Log target at unconstrained u: Σ_i c_i(θ(u)) + log ξ(θ(u)) + log|dθ/du|, with its
   * gradient with respect to u written into `grad` when given. Non-finite values are returned
   * as they are (the sampler rejects them); this never throws on a bad point.
   */
  logDensity(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number;
  /** Draws a synthetic outcome for every record from p(y | x_i, θ) into `out` (length n). */
  simulate(theta: Float64Array, rng: Rng, out: Float64Array): Float64Array;
}

/**
 * The WGSL record functions a model runs on the GPU: `shaders/lipschitz_<kernel>.wgsl` and, for
 * the models the GPU HMC sampler runs, `<kernel>_chain`/`<kernel>_record` (`categorical_levels`
 * for the categorical model) in `shaders/hmc_models.wgsl` (normal and lognormal share the
 * Gaussian ones; `hurdle`, `fbs` and `fbp` have the Lipschitz kernel only).
 */
export type GpuKernelName =
  | "poisson"
  | "negbin"
  | "beta"
  | "gaussian"
  | "logistic"
  | "categorical"
  | "hurdle"
  | "fbs"
  | "fbp";

/**
 * One per-record constant the kernels read, from the record's outcome y and its survey weight w
 * (NaN where the design has none; only the survey models FBS and FBP read it).
 */
export type RecordConstant = (y: number, w: number) => number;

/** How the GPU kernels evaluate a model: plain data, read by `src/gpu`. */
export interface ModelGpu {
  /** The record functions. */
  readonly kernel: GpuKernelName;
  /**
   * The two per-record constants of an outcome y (and survey weight w) that the kernels read
   * (log Γ(y+1), log y, log w, …), computed in f64 and rounded once to f32 when packed.
   */
  readonly record: readonly [RecordConstant, RecordConstant];
  /** Whether the many-chain GPU HMC sampler (`src/gpu/hmc.ts`) runs the model. */
  readonly hmc: boolean;
  /**
   * Whether a record has one linear predictor η_il = x_iᵀβ_l per outcome level l but the
   * reference (θ's coefficients are L − 1 blocks of K, the categorical model) instead of one.
   */
  readonly perLevel: boolean;
  /** The prior of the model's extra parameter (φ or σ) on e^u, or null when it has none. */
  readonly extraPrior: HalfStudentT | null;
}

/**
 * Everything the rest of the program needs to know about one model: its registry entry
 * (`registry.ts`), written next to the model's class.
 */
export interface ModelDescriptor<N extends string = string> {
  /** The name `createModel` and the command line take. */
  readonly name: N;
  /** What the outcome column must hold, checked when data are read. */
  readonly outcome: OutcomeKind;
  /** Binds the model to a design. */
  readonly create: (design: Design) => Model;
  /** The NUTS metric its fits use unless told otherwise. */
  readonly metric: MetricKind;
  /** Its GPU kernels, or null when it runs on the CPU only. */
  readonly gpu: ModelGpu | null;
  /**
   * For a model whose record loop depends on the whole design (the logistic and categorical
   * models group records that share a row): given the parent design, binds the model to a
   * design of some of its records so that each record's ℓ is the parent's bit for bit (the f64
   * confirmation of `src/gpu/lipschitz_confirm.ts`). Absent: `create` does.
   */
  readonly subset?: (parent: Design) => (design: Design) => Model;
}

/**
 * A registry entry: `gpu` defaults to none (the CPU only), `metric` to `diag`.
 *
 * @param name the model's name (also the class's `name`).
 * @param outcome what its outcome column must hold.
 * @param create binds the model to a design.
 * @param options its GPU kernels, default metric and subset builder (`ModelDescriptor.subset`).
 * @returns the descriptor.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PoissonModel } from "./poisson.ts";
 * import { describeModel } from "./model.ts";
 * const entry = describeModel("counts", "count", (design) => new PoissonModel(design));
 * assert.deepEqual([entry.metric, entry.gpu], ["diag", null]);
 * ```
 */
export function describeModel<N extends string>(
  name: N,
  outcome: OutcomeKind,
  create: (design: Design) => Model,
  options: {
    readonly gpu?: ModelGpu;
    readonly metric?: MetricKind;
    readonly subset?: (parent: Design) => (design: Design) => Model;
  } = {},
): ModelDescriptor<N> {
  return Object.freeze({
    name,
    outcome,
    create,
    metric: options.metric ?? "diag",
    gpu: options.gpu ?? null,
    ...(options.subset === undefined ? {} : { subset: options.subset }),
  });
}

/**
 * The GPU description of a model that both the Lipschitz kernels and the HMC sampler run.
 *
 * @param kernel its record functions.
 * @param record its two per-record constants of y, in f64.
 * @param extraPrior the prior of its extra parameter, null for none.
 * @param perLevel one linear predictor per non-reference outcome level (default one in all).
 * @returns the description.
 */
export function hmcKernels(
  kernel: GpuKernelName,
  record: ModelGpu["record"],
  extraPrior: HalfStudentT | null,
  perLevel = false,
): ModelGpu {
  return Object.freeze({ kernel, record, hmc: true, perLevel, extraPrior });
}

/**
 * The GPU description of a model that only the Lipschitz kernels run (the GPU HMC sampler does
 * not): no extra parameter.
 *
 * @param kernel its record functions.
 * @param record its two per-record constants of y (and w), in f64.
 * @returns the description.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { lipschitzKernel } from "./model.ts";
 * const gpu = lipschitzKernel("logistic", [(y) => 2 * y - 1, () => 0]);
 * assert.deepEqual([gpu.kernel, gpu.hmc, gpu.record[0](0, NaN)], ["logistic", false, -1]);
 * ```
 */
export function lipschitzKernel(kernel: GpuKernelName, record: ModelGpu["record"]): ModelGpu {
  return Object.freeze({ kernel, record, hmc: false, perLevel: false, extraPrior: null });
}
