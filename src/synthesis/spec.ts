/**
 * The synthesis request: the `synth` command's options, validated once with zod and shared by
 * the command line and the HTTP functions.
 *
 * @module
 */
import { z } from "zod";
import { COEFFICIENT_PRIORS } from "../data/design.ts";
import { chooseMechanism } from "../mechanisms/auto.ts";
import type { MechanismAccepts } from "../mechanisms/kinds/kind.ts";
import { MECHANISM_NAMES, type MechanismName } from "../mechanisms/mechanism.ts";
import type { Guarantee } from "../mechanisms/privacy.ts";
import { MECHANISMS } from "../mechanisms/registry.ts";
import {
  MODEL_NAMES,
  type ModelName,
  type ModelRequirements,
  modelRequirements,
  outcomeKind,
} from "../models/mod.ts";

const finite = z.number().finite();
const Column = z.string().min(1);
const ModelChoice = z.enum(MODEL_NAMES);

/**
 * What a model needs of the request (`models/registry.ts`); undefined for a name no model has
 * (the field's own check reports it).
 */
function requirementsOf(model: string): ModelRequirements | undefined {
  return MODEL_NAMES.includes(model as ModelName)
    ? modelRequirements(model as ModelName)
    : undefined;
}

/** Whether one of the models takes the survey weight column (it models it, not the pipeline). */
function modelsWeight(models: readonly string[]): boolean {
  return models.some((model) => requirementsOf(model)?.surveyWeight === true);
}

/**
 * The model of a survey weight synthesised with the other outcomes (issue 24): the last
 * conditional, log w | x, outcomes ~ N(x̃ᵀβ, σ²), FBS's co-model of the weight (survey paper §2)
 * extended to several outcomes, its ℓ summed into the record's like every other conditional's.
 */
export const WEIGHT_MODEL: ModelName = "lognormal";

/** The most outcomes one synthesis takes. */
export const MAX_OUTCOMES = 20;

/** Options of one synthesis (everything but the data), field by field. */
export const SynthesisFields = z.object({
  /**
   * Outcome column, or several (SPEC §10): the record density is the chain p(A | x)·p(B | x, A)···
   * in the order given, one model per outcome.
   */
  y: z.union([Column, z.array(Column).min(1).max(MAX_OUTCOMES)]),
  /** Public covariate columns (kept as they are in the synthetic data). */
  x: z.array(z.string().min(1)).default([]),
  /** The model, or one per outcome in the outcomes' order. */
  model: z.union([ModelChoice, z.array(ModelChoice).min(1).max(MAX_OUTCOMES)]),
  /**
   * A missing value (empty, NA, NaN) in a column the synthesis reads: an error naming its row
   * (absent or `error`), or `drop`: the record is removed and the count reported to the owner.
   */
  missing: z.enum(["error", "drop"]).optional(),
  /**
   * The declared level set of categorical columns, by column, in the order that codes them: a
   * binary or categorical outcome's levels, and a text covariate's (its first level is the
   * reference of its dummies). On a registered dataset the release policy sets them; elsewhere
   * a column without declared levels takes the data's (in order of appearance). A value outside
   * a declared set is an error naming its row.
   */
  levels: z.record(Column, z.array(z.string().max(200)).min(1).max(1000)).optional(),
  /**
   * Utility models `y ~ a + b` (over outcomes and public covariates) whose confidential and
   * synthetic fits the utility report compares (CI overlap, standardised differences).
   */
  utilityModels: z.array(z.string().min(1).max(1000)).max(20).optional(),
  /**
   * Whether to build the utility report (the owner's): always with several outcomes or utility
   * models; for one outcome only when asked (its other outputs stay as they were).
   */
  report: z.boolean().optional(),
  /**
   * Survey weight column: FBS and FBP model it and release smoothed synthetic weights; with any
   * other model(s) it is synthesised as the last outcome ({@linkcode WEIGHT_MODEL}, given the
   * covariates and the outcomes), never released as it is.
   */
  weight: z.string().min(1).optional(),
  /** Stratum column (public), used by FBP to scale its synthetic weights. */
  strata: z.string().min(1).optional(),
  /** Public population size of every stratum (FBP), by the stratum column's values. */
  stratumSizes: z.record(z.string(), finite.positive()).optional(),
  /**
   * The mechanism; "auto" lets {@linkcode resolveMechanism} choose it from public facts (the
   * allowed guarantees, ε, m) by the real-file frontier's rule (`src/mechanisms/auto.ts`).
   */
  mechanism: z.enum([...MECHANISM_NAMES, "auto"]),
  /**
   * Why "auto" chose the mechanism: set by {@linkcode resolveMechanism}, never by a request (the
   * API refuses it there).
   */
  autoReason: z.string().max(1000).optional(),
  /** Target total ε for the m datasets. */
  epsilon: finite.positive().optional(),
  /** Number of synthetic datasets. */
  m: z.number().int().min(1).max(1000).default(1),
  /** LW/CW weight scale c. */
  c: finite.nonnegative().optional(),
  /** LW/CW weight shift g (calibrated to ε when absent). */
  g: finite.optional(),
  /** CW and risk radius: ρ (relative) or r (absolute). */
  radius: finite.nonnegative().default(0.1),
  radiusMode: z.enum(["relative", "absolute"]).default("relative"),
  /** Weighted-e: truncation rounds after the first (default none, as the slides define it). */
  retruncations: z.number().int().min(0).max(10).optional(),
  /** SW: match this Lipschitz bound instead of hitting ε. */
  matchLipschitz: finite.positive().optional(),
  /** Histogram: public bounds and bins. */
  lower: finite.optional(),
  upper: finite.optional(),
  bins: z.number().int().min(1).max(100_000).optional(),
  /** Total posterior draws S (split over the chains). */
  draws: z.number().int().min(4).max(1_000_000).default(4000),
  /** Chains (NUTS: default 4; GPU HMC: default 64). */
  chains: z.number().int().min(1).max(65535).optional(),
  warmup: z.number().int().min(10).max(100_000).default(1000),
  /**
   * The coefficient prior of the regression models (`src/models/glm_prior.ts`): `student-t`
   * (default), β_k ~ Student-t(3, 0, 2.5), which NUTS samples without the funnel; `paper`, the
   * papers' β_k ~ N(0, σ_k²), σ_k ~ half-t(3, 0, 1). Both use no data. The survey models keep
   * their own.
   */
  prior: z.enum(COEFFICIENT_PRIORS).default("student-t"),
  /**
   * Research only: release even when the final fit fails its diagnostics (a divergence, R̂ >
   * 1.01 or bulk ESS < 400); the report then says `fitFlagged: true`. Without it such a
   * synthesis fails (`FitFlaggedError`). Refused on a registered dataset.
   */
  allowFlagged: z.boolean().optional(),
  /** Seed; absent: a fresh secret seed from the operating system's CSPRNG. */
  seed: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  /** Where the Lipschitz bound runs (the value is the same: the GPU confirms it in f64). */
  backend: z.enum(["auto", "cpu", "gpu"]).default("auto"),
  /** NUTS on the CPU, or many-chain ChEES-HMC on the GPU (`chains` GPU chains, default 64). */
  sampler: z.enum(["nuts", "gpu-hmc"]).default("nuts"),
}).strict();

/**
 * The rules of a synthesis request across fields (m ≤ draws, the survey models' columns, bounds
 * in order…). FBP's public stratum sizes come from the request, or, with `sizesFromPolicy`, from
 * a registered dataset's release policy.
 *
 * @param spec The request.
 * @param context Where issues go.
 * @param sizesFromPolicy The stratum sizes come from a release policy, not the request.
 */
export function synthesisRules(
  spec: z.infer<typeof SynthesisFields>,
  context: z.RefinementCtx,
  sizesFromPolicy = false,
): void {
  if (spec.mechanism === "auto" && spec.epsilon === undefined) {
    context.addIssue({
      code: "custom",
      path: ["epsilon"],
      message: 'mechanism "auto" needs an epsilon target',
    });
  }
  if (spec.sampler === "nuts" && spec.chains !== undefined && spec.chains > 64) {
    context.addIssue({ code: "custom", path: ["chains"], message: "NUTS runs at most 64 chains" });
  }
  if (spec.m > spec.draws) {
    context.addIssue({
      code: "custom",
      path: ["m"],
      message:
        `m=${spec.m} exceeds the number of draws ${spec.draws}: each dataset needs its own draw`,
    });
  }
  const ys = typeof spec.y === "string" ? [spec.y] : spec.y;
  const models = typeof spec.model === "string" ? [spec.model] : spec.model;
  if (ys.length !== models.length) {
    context.addIssue({
      code: "custom",
      path: ["model"],
      message: `give one model per outcome: ${ys.length} outcome(s), ${models.length} model(s)`,
    });
  }
  ys.forEach((y, k) => {
    if (ys.indexOf(y) !== k) {
      context.addIssue({ code: "custom", path: ["y", k], message: `the outcome ${y} is repeated` });
    }
  });
  const survey = modelsWeight(models);
  if (spec.weight !== undefined && !survey) {
    if (ys.includes(spec.weight) || spec.x.includes(spec.weight)) {
      context.addIssue({
        code: "custom",
        path: ["weight"],
        message: "the survey weight is synthesised as an outcome of its own; it cannot also be " +
          "an outcome or a covariate",
      });
    }
    if (spec.strata !== undefined) {
      context.addIssue({
        code: "custom",
        path: ["strata"],
        message: "strata go with the survey model fbp; a synthesis of several variables " +
          "synthesises the weight and releases no stratum",
      });
    }
  }
  if (ys.length + (spec.weight !== undefined && !survey ? 1 : 0) > 1) {
    severalOutcomeRules(spec, models, context);
  }
  const levelled = models.some((model) =>
    MODEL_NAMES.includes(model) &&
    (outcomeKind(model) === "binary" || outcomeKind(model) === "categorical")
  );
  if (levelled && acceptsOf(spec.mechanism)?.numericOutcome) {
    context.addIssue({
      code: "custom",
      path: ["mechanism"],
      message: `${spec.mechanism}'s ball |y − y_i| ≤ r needs a numeric outcome, not a level`,
    });
  }
  const single = typeof spec.model === "string" ? requirementsOf(spec.model) : undefined;
  if (single?.surveyWeight && spec.weight === undefined) {
    context.addIssue({
      code: "custom",
      path: ["weight"],
      message: `the ${spec.model} model needs the survey weight column`,
    });
  }
  if (
    single?.stratumSizes &&
    (spec.strata === undefined || (spec.stratumSizes === undefined && !sizesFromPolicy))
  ) {
    context.addIssue({
      code: "custom",
      path: ["stratumSizes"],
      message: `the ${spec.model} model needs --strata and the public --stratum-sizes of every ` +
        "stratum (its synthetic weights are scaled to their total)",
    });
  }
  if (ys.some((y) => spec.x.includes(y))) {
    context.addIssue({ code: "custom", path: ["x"], message: "the outcome cannot be a covariate" });
  }
  if (spec.lower !== undefined && spec.upper !== undefined && !(spec.lower < spec.upper)) {
    context.addIssue({ code: "custom", path: ["upper"], message: "upper must exceed lower" });
  }
}

/** What a mechanism accepts (`mechanisms/registry.ts`); "auto" has not chosen one yet. */
function acceptsOf(name: MechanismName | "auto"): MechanismAccepts | undefined {
  return name === "auto" ? undefined : MECHANISMS[name].accepts;
}

/**
 * What several outcomes (a synthesised weight counts as one) cannot have: a survey model, CW or
 * the histogram.
 */
function severalOutcomeRules(
  spec: z.infer<typeof SynthesisFields>,
  models: readonly ModelName[],
  context: z.RefinementCtx,
): void {
  models.forEach((model, k) => {
    const requirements = requirementsOf(model);
    if (requirements?.outcomes === "one") {
      context.addIssue({
        code: "custom",
        path: ["model", k],
        message: requirements.surveyWeight
          ? `the survey model ${model} takes one outcome with its weights, not several`
          : `the model ${model} takes one outcome, not several`,
      });
    }
  });
  if (acceptsOf(spec.mechanism)?.outcomes === "one") {
    context.addIssue({
      code: "custom",
      path: ["mechanism"],
      message: `${spec.mechanism} needs one outcome (${
        spec.mechanism === "histogram"
          ? "a histogram of one variable"
          : "its ball around a record is defined for one outcome"
      }); use lw, sw, lw-final, weighted-e or a censored mechanism`,
    });
  }
}

/** One outcome of a synthesis and its model. */
export interface OutcomeSpec {
  readonly y: string;
  readonly model: ModelName;
}

/**
 * The outcomes of a validated spec, in visit order, each with its model; a survey weight of a
 * synthesis without a survey model comes last, with {@linkcode WEIGHT_MODEL}.
 *
 * @param spec The validated request.
 */
export function outcomesOf(spec: Pick<SynthesisSpec, "y" | "model" | "weight">): OutcomeSpec[] {
  const ys = typeof spec.y === "string" ? [spec.y] : spec.y;
  const models = typeof spec.model === "string" ? [spec.model] : spec.model;
  const outcomes = ys.map((y, k) => ({ y, model: models[k] }));
  return spec.weight === undefined || modelsWeight(models)
    ? outcomes
    : [...outcomes, { y: spec.weight, model: WEIGHT_MODEL }];
}

/** A spec whose mechanism is chosen (not "auto"). */
export type ResolvedSpec = SynthesisSpec & { readonly mechanism: MechanismName };

/**
 * The spec with "auto" replaced by the mechanism {@linkcode chooseMechanism} picks for the allowed
 * guarantees and the spec's ε and m (public facts only), its reason in `autoReason`; any other
 * spec as it is.
 *
 * @param spec A validated spec.
 * @param guarantees The guarantees the data owner allows (both on one's own data).
 * @returns The resolved spec.
 * @throws {RangeError} When "auto" has no ε target.
 */
export function resolveMechanism(
  spec: SynthesisSpec,
  guarantees: readonly Guarantee[] = ["DP", "aDP"],
): ResolvedSpec {
  if (spec.mechanism !== "auto") return spec as ResolvedSpec;
  const choice = chooseMechanism({ guarantees, epsilon: spec.epsilon, m: spec.m });
  return { ...spec, mechanism: choice.mechanism, autoReason: choice.reason };
}

/** Options of one synthesis, validated with their cross-field rules. */
export const SynthesisSpec = SynthesisFields.superRefine((spec, context) =>
  synthesisRules(spec, context)
);

/** A validated synthesis request. */
export type SynthesisSpec = z.infer<typeof SynthesisSpec>;
