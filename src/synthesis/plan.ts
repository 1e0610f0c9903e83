/**
 * The request plan: a validated request (the `synth` command's flags or the API's JSON, both
 * parsed by `spec.ts`, or for a whole file by `file_spec.ts`) normalised once into what every later
 * stage reads. A synthesis's plan ({@linkcode SynthesisPlan}) holds the outcomes in visit order with
 * their models and request fields, the public covariates, the survey design a survey model takes,
 * the mechanism ("auto" resolved) and its settings, the privacy target and the sampler; a whole
 * file's ({@linkcode FilePlan}) its model, mechanism, ε, m, given columns, sampler and backend. The
 * release policy, the model, the pipeline, the manifest and the release report read the plan; none
 * of them looks at the request's `y`, `model` or `weight` again, and this is the one place that
 * counts the outcomes.
 *
 * @module
 */
import type { MechanismSettings } from "../mechanisms/mechanism.ts";
import type { Guarantee } from "../mechanisms/privacy.ts";
import { type ModelName, modelRequirements, type OutcomeKind, outcomeKind } from "../models/mod.ts";
import {
  FILE_DIRICHLET,
  type FileSynthesisSpec,
  resolveFileMechanism,
  resolveFileModel,
} from "./file_spec.ts";
import type { FileModelName, FileSynthesisSettings } from "./file_synthesis.ts";
import { outcomesOf, type ResolvedSpec, resolveMechanism, type SynthesisSpec } from "./spec.ts";

/** One outcome of a plan, in visit order. */
export interface PlannedOutcome {
  /** Its column. */
  readonly y: string;
  readonly model: ModelName;
  /** What its column must hold (the model's outcome kind, `models/registry.ts`). */
  readonly kind: OutcomeKind;
  /** Its declared level set (`levels[y]`), in coding order; absent: the data's. */
  readonly levels?: readonly string[];
  /**
   * The request field that names it, for errors: "y" for a lone outcome, "y.k" for one of
   * several, "weight" for a survey weight synthesised as the last outcome.
   */
  readonly field: string;
}

/** The sampler of a plan. */
export interface PlannedSampler {
  readonly sampler: SynthesisSpec["sampler"];
  /** Chains (NUTS default 4; GPU HMC default 64). */
  readonly chains: number;
  readonly warmup: number;
  /** Draws kept per chain, ⌈draws / chains⌉. */
  readonly drawsPerChain: number;
  /** Where the Lipschitz bound runs. */
  readonly backend: SynthesisSpec["backend"];
}

/** A synthesis request normalised once (see the module documentation). */
export interface SynthesisPlan {
  readonly kind: "synthesis";
  /** The request as given. */
  readonly requested: SynthesisSpec;
  /** The request as it runs: its mechanism chosen ("auto" resolved, its reason in `autoReason`). */
  readonly spec: ResolvedSpec;
  /** The synthesised columns in visit order, a synthesised survey weight last. */
  readonly outcomes: readonly PlannedOutcome[];
  /** The public covariates, released as they are. */
  readonly covariates: readonly string[];
  /**
   * Several outcomes (a synthesised weight counts): one joint record of conditionals, each
   * outcome's diagnostics listed under it, the utility and identification-risk reports.
   */
  readonly joint: boolean;
  /**
   * The survey design a survey model takes (FBS, FBP: the weight is modelled and released as
   * smoothed synthetic weights; the strata are public); null for every other synthesis.
   */
  readonly survey: { readonly weight: string; readonly strata?: string } | null;
  /** The manifest's model: the lone outcome's model, or "joint" with each outcome's. */
  readonly manifest: {
    readonly model: string;
    readonly outcomes?: readonly { readonly y: string; readonly model: string }[];
  };
  /** Every column the synthesis reads (a missing value there is an error or dropped). */
  readonly reads: readonly string[];
  /** The mechanism and its settings, the privacy target ε and m among them. */
  readonly mechanism: MechanismSettings;
  readonly sampler: PlannedSampler;
  /** Whether the owner's utility report is built: several outcomes, utility models or asked. */
  readonly utilityReport: boolean;
  /**
   * A note for the person running it that the request alone decides: a survey model that needs
   * no stratum sizes given none (its synthetic weights are not scaled to a population); null
   * otherwise.
   */
  readonly unscaledWeightsNote: string | null;
}

/**
 * A whole-file request normalised once: the settings `synthesizeFile` runs, "auto" resolved (its
 * mechanism's reason in `autoReason`), each default the model's.
 */
export interface FilePlan extends FileSynthesisSettings {
  readonly kind: "file";
  /** The request as given. */
  readonly requested: FileSynthesisSpec;
  readonly model: FileModelName;
}

/** The plan of any request: a synthesis, or a whole file. */
export type RequestPlan = SynthesisPlan | FilePlan;

/**
 * Plans a validated request: a synthesis, or a whole file (a {@linkcode FileSynthesisSpec}).
 *
 * @param requested The validated request.
 * @param guarantees The guarantees a synthesis's "auto" may choose from (a registered dataset's
 *   policy may allow only DP; one's own data: both).
 * @returns The plan; throws a `RangeError` when "auto" has no ε target.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { synthesisPlan } from "./plan.ts";
 * import { SynthesisSpec } from "./spec.ts";
 * const plan = synthesisPlan(
 *   SynthesisSpec.parse({ y: ["a", "b"], model: ["poisson", "logistic"], mechanism: "sw", epsilon: 2 }),
 * );
 * assert.deepEqual(plan.outcomes.map(({ y, field }) => [y, field]), [["a", "y.0"], ["b", "y.1"]]);
 * assert.equal(plan.manifest.model, "joint");
 * ```
 */
export function synthesisPlan(requested: FileSynthesisSpec): FilePlan;
export function synthesisPlan(
  requested: SynthesisSpec,
  guarantees?: readonly Guarantee[],
): SynthesisPlan;
export function synthesisPlan(
  requested: SynthesisSpec | FileSynthesisSpec,
  guarantees?: readonly Guarantee[],
): RequestPlan;
export function synthesisPlan(
  requested: SynthesisSpec | FileSynthesisSpec,
  guarantees: readonly Guarantee[] = ["DP", "aDP"],
): RequestPlan {
  // `splitMerge` (default 1) is a field of a whole-file request alone.
  return "splitMerge" in requested
    ? filePlan(requested)
    : outcomePlan(requested as SynthesisSpec, guarantees);
}

function outcomePlan(requested: SynthesisSpec, guarantees: readonly Guarantee[]): SynthesisPlan {
  const spec = resolveMechanism(requested, guarantees);
  const listed = typeof spec.y !== "string";
  const outcomes: PlannedOutcome[] = outcomesOf(spec).map(({ y, model }, k) => ({
    y,
    model,
    kind: outcomeKind(model),
    ...(spec.levels?.[y] === undefined ? {} : { levels: spec.levels[y] }),
    field: y === spec.weight ? "weight" : listed ? `y.${k}` : "y",
  }));
  const joint = outcomes.length > 1;
  const lone = joint ? null : modelRequirements(outcomes[0].model);
  const survey = lone?.surveyWeight === true && spec.weight !== undefined
    ? { weight: spec.weight, ...(spec.strata === undefined ? {} : { strata: spec.strata }) }
    : null;
  const chains = spec.chains ?? (spec.sampler === "gpu-hmc" ? 64 : 4);
  const scaled = spec.strata !== undefined && spec.stratumSizes !== undefined;
  return {
    kind: "synthesis",
    requested,
    spec,
    outcomes,
    covariates: spec.x,
    joint,
    survey,
    manifest: joint
      ? { model: "joint", outcomes: outcomes.map(({ y, model }) => ({ y, model })) }
      : { model: outcomes[0].model },
    reads: [
      ...outcomes.map(({ y }) => y),
      ...spec.x,
      ...[spec.weight, spec.strata].filter((name) => name !== undefined),
    ],
    mechanism: {
      mechanism: spec.mechanism,
      m: spec.m,
      epsilon: spec.epsilon,
      c: spec.c,
      g: spec.g,
      radius: spec.radius,
      relativeRadius: spec.radiusMode === "relative",
      matchLipschitz: spec.matchLipschitz,
      retruncations: spec.retruncations,
      // A lone outcome bounded by definition (beta's [0, 1]) gives the histogram its range.
      lower: spec.lower ?? lone?.bounds?.lower,
      upper: spec.upper ?? lone?.bounds?.upper,
      bins: spec.bins,
    },
    sampler: {
      sampler: spec.sampler,
      chains,
      warmup: spec.warmup,
      drawsPerChain: Math.ceil(spec.draws / chains),
      backend: spec.backend,
    },
    utilityReport: joint || spec.report === true || spec.utilityModels !== undefined,
    unscaledWeightsNote: survey !== null && !lone!.stratumSizes && !scaled
      ? `ppsynth: ${outcomes[0].model} without public stratum sizes (--stratum-sizes): the ` +
        "synthetic weights are not scaled to a population size (their sum is about 10% below " +
        "it, the lognormal's median): totals from them run low; means and proportions are " +
        "unaffected"
      : null,
  };
}

/** A whole file's plan: the model's defaults, "auto" resolved from public facts. */
function filePlan(requested: FileSynthesisSpec): FilePlan {
  const { mechanism, reason } = resolveFileMechanism(requested);
  const { model } = resolveFileModel(requested);
  return {
    kind: "file",
    requested,
    model,
    ...(requested.x === undefined ? {} : { given: requested.x }),
    mechanism,
    epsilon: requested.epsilon,
    m: requested.m,
    classes: requested.classes,
    dirichlet: requested.dirichlet ?? FILE_DIRICHLET[model],
    parents: requested.parents,
    maxCells: requested.maxCells,
    sampling: requested.sampling,
    seed: requested.seed,
    backend: requested.backend,
    chains: requested.chains,
    warmup: requested.warmup,
    draws: requested.draws,
    thin: requested.thin,
    splitMerge: requested.splitMerge,
    allowFlagged: requested.allowFlagged,
    ...(reason === undefined ? {} : { autoReason: reason }),
  };
}

/**
 * A plan, or the plan of a request on one's own data (both guarantees allowed for "auto"): for
 * the callers that hold only a request (the studies, the survey tables).
 *
 * @param request A plan or a validated request.
 * @returns The plan.
 */
export function planOf(request: SynthesisPlan | SynthesisSpec): SynthesisPlan {
  return isPlan(request) ? request : outcomePlan(request, ["DP", "aDP"]);
}

function isPlan(request: SynthesisPlan | SynthesisSpec): request is SynthesisPlan {
  return "outcomes" in request && "requested" in request;
}
