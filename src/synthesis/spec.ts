/**
 * The synthesis request: the `synth` command's options, validated once with zod and shared by
 * the command line and the HTTP functions.
 *
 * @module
 */
import { z } from "zod";
import { MECHANISM_NAMES } from "../mechanisms/mechanism.ts";
import { MODEL_NAMES } from "../models/mod.ts";

const finite = z.number().finite();

/** Options of one synthesis (everything but the data), field by field. */
export const SynthesisFields = z.object({
  /** Outcome column. */
  y: z.string().min(1),
  /** Public covariate columns (kept as they are in the synthetic data). */
  x: z.array(z.string().min(1)).default([]),
  model: z.enum(MODEL_NAMES),
  /** Survey weight column (FBS and FBP model it and release smoothed synthetic weights). */
  weight: z.string().min(1).optional(),
  /** Stratum column (public), used by FBP to scale its synthetic weights. */
  strata: z.string().min(1).optional(),
  /** Public population size of every stratum (FBP), by the stratum column's values. */
  stratumSizes: z.record(z.string(), finite.positive()).optional(),
  mechanism: z.enum(MECHANISM_NAMES),
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
  if ((spec.model === "fbs" || spec.model === "fbp") && spec.weight === undefined) {
    context.addIssue({
      code: "custom",
      path: ["weight"],
      message: `the ${spec.model} model needs the survey weight column`,
    });
  }
  if (
    spec.model === "fbp" &&
    (spec.strata === undefined || (spec.stratumSizes === undefined && !sizesFromPolicy))
  ) {
    context.addIssue({
      code: "custom",
      path: ["stratumSizes"],
      message: "the fbp model needs --strata and the public --stratum-sizes of every stratum " +
        "(its synthetic weights are scaled to their total)",
    });
  }
  if (spec.x.includes(spec.y)) {
    context.addIssue({ code: "custom", path: ["x"], message: "the outcome cannot be a covariate" });
  }
  if (spec.lower !== undefined && spec.upper !== undefined && !(spec.lower < spec.upper)) {
    context.addIssue({ code: "custom", path: ["upper"], message: "upper must exceed lower" });
  }
}

/** Options of one synthesis, validated with their cross-field rules. */
export const SynthesisSpec = SynthesisFields.superRefine((spec, context) =>
  synthesisRules(spec, context)
);

/** A validated synthesis request. */
export type SynthesisSpec = z.infer<typeof SynthesisSpec>;
