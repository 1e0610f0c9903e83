/**
 * The latent class synthesizer of whole files (SPEC §13) released through the mechanisms of the
 * registry, unchanged: SW, LW, LW-final, Weighted-e, censored, censored-w and the unweighted fit run on a
 * {@linkcode MechanismContext} whose parts are the latent class model's.
 *
 * What the mechanisms assume of a `Model` and how the adapter meets it:
 * - `design.n` (every mechanism's n): the file's n.
 * - `design.y`: read only by CW's isolation ball and the histogram (`accepts.outcomes` "one": a
 *   one-dimensional outcome); a file's record has no such outcome, so
 *   {@linkcode runFileMechanism} refuses those mechanisms before anything runs.
 * - the Lipschitz backend: the CPU backend bounds |α_i·ℓ_i|, which is not this model's term; the
 *   context's backend ({@linkcode latentClassLipschitz}) gives Δ_i = half the range of u_i(θ_s)
 *   over the draws, u_i = log (1/K) Σ_k (π_k f_k(x_i))^{α_i}, the complete-data term the Gibbs
 *   sampler raises (the model's `termMaxima` and `centredTerm`), so Δ is of exactly the released
 *   target's term, centred (SPEC §13: a θ-free constant may be subtracted from u_i).
 * - `fit(weighting)`: the blocked Gibbs sampler (`sampleLatentClass`) with the same seed for
 *   every refit; its `Fit` carries θ draws and label-invariant R̂/ESS. A censored weighting runs
 *   the sampler's exact Metropolis-corrected θ step on the clamped terms max(u_i, −C), so the
 *   censored mechanisms' 2Cm holds for every database (DP), as SPEC §3.
 * - `predict` is absent: every calibration candidate is a real refit, as the papers do it.
 * - gradients, `initialPoint`, the unconstrained scale and `Model.simulate` (one outcome per
 *   record) are never called by the mechanisms; the adapter's throw a `TypeError` naming the
 *   Gibbs sampler and `LatentClassModel.simulate`.
 *
 * LW's f_i is the unweighted fit's Δ_i, the half-range over draws of u_i = log p(x_i | θ) − log K
 * at α = 1, i.e. of log p(x_i | θ): the papers' LW weights computed on the centred term.
 *
 * Privacy guarantee: each synthetic file is simulated from one draw θ_s of the α-weighted
 * complete-data pseudo posterior's θ-marginal, so each costs ε = 2Δ and m files 2Δm (aDP,
 * add/remove neighbours), Δ = max over records of half the range of u_i over the final fit's
 * draws; the proof is `src/models/latent_class.ts`'s. A fit whose label-invariant R̂ > 1.01 or bulk ESS < 400
 * releases nothing (`FitFlaggedError`).
 *
 * @module
 */
import {
  type LatentClassBackendChoice,
  latentClassMaximaPass,
} from "../gpu/select_latent_class.ts";
import type { StopFlag } from "../data/worker_stop.ts";
import { FitFlaggedError } from "../mcmc/fit.ts";
import { type LatentClassGibbsOptions, sampleLatentClass } from "../mcmc/latent_class_gibbs.ts";
import type { LipschitzBackend } from "../mechanisms/lipschitz_backend.ts";
import { type LipschitzOptions, overallOf } from "../mechanisms/lipschitz.ts";
import type {
  MechanismContext,
  MechanismOutcome,
  MechanismSettings,
} from "../mechanisms/mechanism.ts";
import { lookupMechanism, MECHANISMS } from "../mechanisms/registry.ts";
import {
  centredTerm,
  type EncodedFile,
  type LatentClassModel,
  type TermMaxima,
} from "../models/latent_class.ts";
import { logLikView } from "../models/log_lik_view.ts";
import type { Model } from "../models/model.ts";
import { Rng } from "../random/rng.ts";
import { datasetDrawIndices, runMechanismUnderCap } from "./release.ts";

/** The Gibbs settings of every fit of a run: seed, chains, warmup, draws, thinning, prior. */
export type LatentClassFitOptions = LatentClassGibbsOptions;

/**
 * The mechanisms' view of the latent class model: n, θ's length and names, and log p(x_i | θ) as
 * `logLik`; the rest throws (see the module doc).
 *
 * @param model The latent class model bound to the file.
 * @returns A `Model` for the mechanism context.
 */
export function latentClassMechanismModel(model: LatentClassModel): Model {
  return logLikView({
    name: "latent-class",
    n: model.n,
    dim: model.dim,
    paramNames: model.paramNames(),
    logLik: (theta, out) => model.logLik(theta, out),
    label: "the latent class model",
    fittedBy: "fitted by the Gibbs sampler (sampleLatentClass) and simulates whole records " +
      "(LatentClassModel.simulate)",
  });
}

/**
 * A whole-file model's Lipschitz backend (SPEC §13): Δ_i = half the range of u_i(θ_s) over the
 * draws (`centredTerm`) from the per-record extremes `extremes` computes, the overall Δ with its
 * record and draw (`overallOf`), and, where `matrix` is given, the S×n matrix of the centred term
 * when a request asks for it.
 *
 * @param pass Where the extremes are computed; its `name` (read at each call) is the backend's.
 * @param extremes A request's per-record extremes; it throws on a request the backend refuses.
 * @param matrix The matrix of a request (absent: the result carries no `matrix`).
 * @returns The backend.
 */
export function centredTermBackend(
  pass: { readonly name: LipschitzBackend["name"] },
  extremes: (given: Model, draws: Float64Array, options: LipschitzOptions) => Promise<TermMaxima>,
  matrix?: (draws: Float64Array, alpha: Float64Array | null, extremes: TermMaxima) => Float64Array,
): LipschitzBackend {
  return {
    get name() {
      return pass.name;
    },
    compute: async (given, draws, options = {}) => {
      const found = await extremes(given, draws, options);
      const perRecord = centredTerm(found);
      const result = { perRecord, ...overallOf(perRecord, found.argDraw) };
      if (matrix === undefined) return result;
      const asked = options.matrix === true;
      return { ...result, matrix: asked ? matrix(draws, options.alpha ?? null, found) : undefined };
    },
  };
}

/**
 * The Lipschitz backend of the latent class term: Δ_i = half the range of u_i(θ_s) over the
 * draws with the weighting's α ({@linkcode centredTermBackend}; exact in f64, records with equal
 * codes and α evaluated once), on one thread, every core or the GPU (`select_latent_class.ts`:
 * the same bits from each); the matrix, when asked for, on this thread.
 *
 * @param model The latent class model bound to the file.
 * @param adapter The `Model` the context passes back (refused: any other).
 * @param backend Where the maxima are computed (default "cpu": this thread).
 * @param stop Read by the CPU passes once a draw (a stopped job's worker: `worker_stop.ts`).
 * @returns The backend; `name` says where the last maxima were computed.
 */
export function latentClassLipschitz(
  model: LatentClassModel,
  adapter: Model,
  backend: LatentClassBackendChoice = "cpu",
  stop?: StopFlag,
): LipschitzBackend {
  const pass = latentClassMaximaPass(backend);
  return centredTermBackend(
    pass,
    (given, draws, options) => {
      if (given !== adapter) {
        throw new TypeError("Invalid model: the latent class backend bounds its own model only");
      }
      return pass.compute(model, draws, options.alpha ?? null, stop);
    },
    (draws, alpha, extremes) => centredMatrix(model, draws, alpha, extremes),
  );
}

/**
 * The S×n matrix of the centred term, |u_i(θ_s) − c_i| with c_i = −(max_s |u_i| + min_s |u_i|)/2
 * (`centredTerm`): each column's maximum is the release's Δ_i.
 */
function centredMatrix(
  model: LatentClassModel,
  draws: Float64Array,
  alpha: Float64Array | null,
  extremes: TermMaxima,
): Float64Array {
  const terms = model.termMatrix(draws, alpha);
  const n = model.n;
  return terms.map((u, at) => {
    const i = at % n;
    return Math.abs(-u - (extremes.perRecord[i] + extremes.minimum[i]) / 2);
  });
}

/**
 * The mechanism context of the latent class model: its `Model` view, the Gibbs fit (same seed
 * every refit) and its Lipschitz backend.
 *
 * @param model The latent class model bound to the file.
 * @param options The Gibbs settings of every fit (their `stop` is read by the Lipschitz pass too).
 * @param backend Where the Lipschitz maxima are computed (default "cpu").
 * @returns The context.
 */
export function latentClassContext(
  model: LatentClassModel,
  options: LatentClassFitOptions,
  backend: LatentClassBackendChoice = "cpu",
): MechanismContext {
  const adapter = latentClassMechanismModel(model);
  return {
    model: adapter,
    fit: (weighting) =>
      Promise.resolve(
        sampleLatentClass(model, weighting.alpha, { ...options, censor: weighting.censor }),
      ),
    lipschitz: latentClassLipschitz(model, adapter, backend, options.stop),
    laplace: () => {
      throw new RangeError("Invalid mechanism: the latent class synthesizer draws no noise");
    },
  };
}

/**
 * Runs a registry mechanism on a whole-file model under the ε cap, refusing the mechanisms that
 * need a one-dimensional outcome (`accepts.outcomes` "one": CW, CW-final, the histogram).
 *
 * @param settings The mechanism and its settings.
 * @param context A {@linkcode latentClassContext} or the network's `bayesNetContext`.
 * @returns The outcome; a `CalibrationError` when ε ends above the target.
 */
export async function runFileMechanism(
  settings: MechanismSettings,
  context: MechanismContext,
): Promise<MechanismOutcome> {
  if (lookupMechanism(MECHANISMS, settings.mechanism).accepts.outcomes === "one") {
    throw new RangeError(
      `Invalid mechanism: ${settings.mechanism} needs a one-dimensional outcome, and a latent ` +
        "class record is a whole row of the file",
    );
  }
  return await runMechanismUnderCap(settings, context);
}

/** A latent class release: the mechanism's outcome and the m synthetic files. */
export interface LatentClassRelease {
  readonly outcome: MechanismOutcome;
  /** 0-based posterior draw of each file. */
  readonly drawIndices: number[];
  readonly files: EncodedFile[];
}

/**
 * Runs the mechanism and simulates the m synthetic files of n records, file j from draw
 * `datasetDrawIndices(S, m)[j]` on stream j of `seed`; nothing is released from a flagged fit.
 *
 * @param model The latent class model bound to the confidential file.
 * @param settings The mechanism, m and ε.
 * @param options The Gibbs settings; `seed`'s stream 1 also seeds the synthetic files (the
 *   chains split stream 0).
 * @returns The outcome and the files; throws `FitFlaggedError` or `CalibrationError`.
 */
export async function releaseLatentClass(
  model: LatentClassModel,
  settings: MechanismSettings,
  options: LatentClassFitOptions,
): Promise<LatentClassRelease> {
  const outcome = await runFileMechanism(settings, latentClassContext(model, options));
  const fit = outcome.fit!;
  if (fit.flagged) throw new FitFlaggedError(fit);
  const drawIndices = datasetDrawIndices(fit.S, settings.m);
  const streams = new Rng(options.seed, 1);
  const files = drawIndices.map((s, j) =>
    model.simulate(fit.draws.subarray(s * fit.dim, (s + 1) * fit.dim), model.n, streams.split(j))
  );
  return { outcome, drawIndices, files };
}
