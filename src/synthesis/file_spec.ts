/**
 * A whole-file request (issue 35): `--y all` under a declared schema, a whole-file model, a
 * mechanism of the registry that takes a whole record, ε, m and the sampler's settings; one zod
 * schema for the command line and the API. `model` and `mechanism` "auto" are resolved from public
 * facts only ({@linkcode resolveFileModel}, {@linkcode resolveFileMechanism}); `synthesisPlan`
 * (`plan.ts`) plans it.
 *
 * @module
 */
import { z } from "zod";
import type { MechanismName } from "../mechanisms/mechanism.ts";
import { DEFAULT_BAYES_NET_PRIOR } from "../models/bayes_net.ts";
import { FILE_MODELS, type FileModelName, type FileSynthesisSettings } from "./file_synthesis.ts";

/** The mechanisms a whole record can take (CW and the histogram need a one-dimensional outcome). */
export const FILE_MECHANISMS = [
  "unweighted",
  "sw",
  "lw",
  "lw-final",
  "weighted-e",
  "censored",
  "censored-w",
] as const satisfies readonly MechanismName[];

/**
 * Each model's default Dirichlet concentration a.
 * - latent class, 0.1: on ma2019 at ε ≈ 10 (SW, K = 30) a = 0.1 gave k-marginal 793 on the CRC's
 *   simple features against 680 for a = 1, whose prior mass (a·Σ_j L_j = 543 per class) outweighs
 *   the α-weighted records of a class (docs/decisions.md);
 * - Bayesian network, 0.5 (`DEFAULT_BAYES_NET_PRIOR`).
 */
export const FILE_DIRICHLET: Readonly<Record<FileModelName, number>> = {
  "bayes-net": DEFAULT_BAYES_NET_PRIOR.dirichlet,
  "latent-class": 0.1,
};

/** A whole file's default truncation K (see `classes`). */
export const FILE_CLASSES = 5;

/** A whole-file request, validated. */
export const FileSynthesisSpec = z.object({
  /** Every column of the file not named in `x` ("all"). */
  y: z.literal("all"),
  /**
   * Given columns (the network only): released as they are, each synthetic record keeping a
   * confidential record's values, and the other columns synthesised given them. On a registered
   * dataset each must be public under the policy (`publicColumns`).
   */
  x: z.array(z.string().min(1)).min(1).max(1000).optional(),
  /**
   * The whole-file synthesizer: "bayes-net" (`src/models/bayes_net.ts`), "latent-class"
   * (`src/models/latent_class.ts`), or "auto" ({@linkcode resolveFileModel}).
   */
  model: z.enum(["auto", ...FILE_MODELS]).default("auto"),
  mechanism: z.enum([...FILE_MECHANISMS, "auto"]).default("auto"),
  epsilon: z.number().positive().finite().optional(),
  m: z.number().int().min(1).max(100).default(1),
  /**
   * The truncation K. Default {@linkcode FILE_CLASSES} (5), not the model's 30. Measured with the
   * uncentred Δ, whose small α supported few classes (ma2019, seed 3, SW, a = 0.1, k-marginal on
   * the CRC's simple features at ε = 10: K = 2 809, 5 824, 10 802, 30 769–772; at ε = 5: K = 5
   * 789, 30 766; at ε = 1: K = 2 620, 5 618, 30 474; docs/decisions.md). The centred Δ leaves α
   * ≈ 0.85 at ε = 10, where K = 10 was still flagged after 1,000 sweeps without split–merge moves;
   * larger K has not been re-measured with them.
   */
  classes: z.number().int().min(1).max(200).default(FILE_CLASSES),
  /**
   * The Dirichlet concentration a of every table cell (the network's θ_{t,c,l}, the latent class
   * model's φ_kj). Default: the model's ({@linkcode FILE_DIRICHLET}).
   */
  dirichlet: z.number().positive().max(10).optional(),
  /** The network's most parents per column (public; default 2, `DEFAULT_BAYES_NET_PRIOR`). */
  parents: z.number().int().min(0).max(4).optional(),
  /** The network's most cells per table (public; default 3,000, `DEFAULT_BAYES_NET_PRIOR`). */
  maxCells: z.number().int().min(1).max(1_000_000).optional(),
  /**
   * How the network draws records from the released draw (public; default "balanced":
   * systematic counts within each parent configuration; "iid": independent records).
   */
  sampling: z.enum(["balanced", "iid"]).optional(),

  chains: z.number().int().min(1).max(64).default(2),
  /**
   * Sweeps discarded per chain. Default 300, with a split–merge move every sweep (`splitMerge`).
   */
  warmup: z.number().int().min(0).max(100_000).default(300),
  draws: z.number().int().min(10).max(100_000).default(500),
  thin: z.number().int().min(1).max(100).default(1),
  /**
   * Split–merge moves per sweep (Dahl 2003; `latent_class_gibbs.ts`). Default 1: with the centred
   * Δ a whole file's α is high (≈ 0.35 at ε = 5, 0.85 at ε = 10 on ma2019), and there the blocked
   * Gibbs chains settle in different modes: K = 5, seed 11, 2 × (1,500 + 500) sweeps without moves
   * gave R̂ 1.44 at α = 0.35 (no release); with one move per sweep 2 × (300 + 500) gave R̂ 1.004
   * (α = 0.35) and 1.006 (α = 0.85) in about 50 s a fit on 2 loaded cores. A move costs several
   * sweeps' time; the work limit counts sweeps.
   */
  splitMerge: z.number().int().min(0).max(3).default(1),
  seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  /** Where the Lipschitz extremes are computed (the same bits from each; `select_term.ts`). */
  backend: z.enum(["auto", "cpu", "cpu-parallel", "gpu"]).default("auto"),
  allowFlagged: z.boolean().optional(),
}).strict().superRefine((spec, context) => {
  if (spec.mechanism !== "unweighted" && spec.epsilon === undefined) {
    context.addIssue({
      code: "custom",
      path: ["epsilon"],
      message: `required by mechanism "${spec.mechanism}" (the target ε of the m files)`,
    });
  }
});

/** A validated whole-file request. */
export type FileSynthesisSpec = z.infer<typeof FileSynthesisSpec>;

/**
 * The smallest ε per file (ε/m) at which `auto` takes LW on the network: at ε = 5 and 10 LW beat
 * SW (ma2019, seed 1: 885 / 864 against 855 / 834 at ε = 5), at ε = 1 LW's calibration could not
 * reach the target (the smallest ε reached was 1.54 with the weights' sum down to 1 % of n), where
 * SW, whose one α can go to 0, always can.
 */
export const LW_MIN_FILE_EPSILON = 5;

/**
 * The mechanism of `auto` for a whole file, from public facts only (the model, itself from the
 * request, ε and m): LW on the Bayesian network from ε/m ≥ {@linkcode LW_MIN_FILE_EPSILON}, SW
 * below it and on the latent class model.
 *
 * - The network (ma2019, ε = 10, `synth --y all`, k-marginal simple / all): LW at a = 0.5 902 /
 *   879, 900 / 879 and 900 / 879 (seeds 1–3; mean α 0.87–0.90: only the records whose whole-record
 *   term is most variable are down-weighted), at a = 0.7 899 / 875–877; SW at a = 0.5 890 / 869
 *   (seed 1), and SW often stops well under the target (ε 7.7 and 9.0 for 10), as one α for every
 *   record follows the one worst record's Δ.
 * - The latent class model: with the uncentred Δ = max_s |u_i| LW's calibration drove most weights
 *   to about 0 (mean α 0.015 against SW's 0.08); with the centred Δ, at ε = 10, seed 1, SW 860 /
 *   844, LW 867 / 851 (mean α 0.55, 6 fits), within a seed's spread, so SW, simpler and cheaper,
 *   stays.
 *
 * @param spec The request.
 * @returns The mechanism and the reason the manifest states.
 */
export function resolveFileMechanism(
  spec: FileSynthesisSpec,
): { mechanism: FileSynthesisSettings["mechanism"]; reason?: string } {
  if (spec.mechanism !== "auto") return { mechanism: spec.mechanism };
  const network = resolveFileModel(spec).model === "bayes-net";
  if (network && (spec.epsilon ?? 0) / spec.m >= LW_MIN_FILE_EPSILON) {
    return {
      mechanism: "lw",
      reason: `a whole file (Bayesian network) at ε/m ≥ ${LW_MIN_FILE_EPSILON}: per-record ` +
        "weights from each record's Δ, calibrated to ε (aDP); measured best there (bench:crc)",
    };
  }
  if (network) {
    return {
      mechanism: "sw",
      reason: `a whole file (Bayesian network) at ε/m < ${LW_MIN_FILE_EPSILON}: one weight for ` +
        "every record, calibrated to ε (aDP); per-record weights could not reach ε = 1 (bench:crc)",
    };
  }
  return {
    mechanism: "sw",
    reason: "a whole file (latent class model): one weight for every record, calibrated to ε " +
      "(aDP); per-record risk weights measured no better on it (bench:crc)",
  };
}

/**
 * The model of `auto` for a whole file, from public facts only (the requested mechanism): the
 * Bayesian network, except under censoring (pure DP), which needs the latent class model's Gibbs
 * sampler and its correction step. Measured on ma2019 at ε = 10 (seed 1, `synth --y all`,
 * docs/performance.md): the network 902 / 879 (simple / all, LW) in seconds a fit, the latent
 * class model 860 / 844 (SW) in about a minute a fit.
 *
 * @param spec The request.
 * @returns The model.
 */
export function resolveFileModel(spec: FileSynthesisSpec): { model: FileModelName } {
  if (spec.model !== "auto") return { model: spec.model };
  const censored = spec.mechanism === "censored" || spec.mechanism === "censored-w";
  return { model: censored ? "latent-class" : "bayes-net" };
}
