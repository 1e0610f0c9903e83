/**
 * The Bayesian network of whole files (`src/models/bayes_net.ts`) released through the
 * mechanisms of the registry, unchanged: SW, LW, LW-final, Weighted-e and the unweighted fit run on
 * a {@linkcode MechanismContext} whose parts are the network's, as `latent_class_release.ts` does
 * for the latent class model.
 *
 * - `fit(weighting)`: exact draws of the α-weighted pseudo posterior (`sampleBayesNet`, the same
 *   seed every refit). A censored weighting is refused: censoring clamps the target's terms,
 *   whose posterior is no longer conjugate, and the exact sampler has no correction step (the
 *   latent class model's Gibbs sampler has one; `--model latent-class` for pure DP).
 * - the Lipschitz backend: Δ_i = half the range of u_i = α_i log p(x_i | G, θ) over the fit's
 *   draws (`termMaxima`, `centredTerm`), exactly the term the pseudo posterior raises, in f64 on
 *   one thread, every core or the GPU with its f64 confirmation (`select_bayes_net.ts`: the same
 *   bits from each). A draw's length varies with its structure, so the backend reads each fit's
 *   draw length from the fits it made.
 * - `Model.dim`, gradients, `initialPoint` and `Model.simulate` are never called by the
 *   mechanisms on this path; the adapter's throw a `TypeError` naming the exact sampler.
 *
 * @module
 */
import { bayesNetMaximaPass } from "../gpu/select_bayes_net.ts";
import type { TermBackendChoice } from "../gpu/select_term.ts";
import type { MechanismContext } from "../mechanisms/mechanism.ts";
import { type BayesNetSampleOptions, sampleBayesNet } from "../mcmc/bayes_net_exact.ts";
import { type BayesNetModel } from "../models/bayes_net.ts";
import { logLikView } from "../models/log_lik_view.ts";
import type { Model } from "../models/model.ts";
import { centredTermBackend } from "./latent_class_release.ts";

/** The model name a Bayesian network release states. */
export const BAYES_NET = "bayes-net";

/**
 * The mechanisms' view of the network: n and log p(x_i | G, θ) as `logLik`; the rest throws.
 *
 * @param model The network bound to the file.
 * @returns A `Model` for the mechanism context.
 */
export function bayesNetMechanismModel(model: BayesNetModel): Model {
  return logLikView({
    name: BAYES_NET,
    n: model.n,
    dim: null,
    paramNames: [],
    logLik: (theta, out) => model.logLik(theta, out),
    label: "the Bayesian network",
    fittedBy: "drawn exactly (sampleBayesNet) and simulates whole records (BayesNetModel.simulate)",
  });
}

/**
 * The mechanism context of the network: its `Model` view, the exact fit (same seed every refit)
 * and its Lipschitz backend.
 *
 * @param model The network bound to the file.
 * @param options The seed, streams and draws of every fit (their `stop` is read by the Lipschitz
 *   pass too).
 * @param backend Where the Lipschitz extremes are computed (default "cpu": this thread).
 * @returns The context; its backend's `name` says where the last extremes were computed.
 */
export function bayesNetContext(
  model: BayesNetModel,
  options: BayesNetSampleOptions,
  backend: TermBackendChoice = "cpu",
): MechanismContext {
  const adapter = bayesNetMechanismModel(model);
  const drawLength = new WeakMap<Float64Array, number>();
  const pass = bayesNetMaximaPass(backend);
  const lipschitz = centredTermBackend(pass, (given, draws, settings) => {
    const dim = drawLength.get(draws);
    if (given !== adapter || dim === undefined) {
      throw new TypeError(
        "Invalid model: the Bayesian network backend bounds its own fits' draws only",
      );
    }
    if (settings.matrix === true) {
      throw new TypeError("Invalid request: the Bayesian network backend gives no matrix");
    }
    return pass.compute(model, draws, dim, settings.alpha ?? null, options.stop);
  });
  return {
    model: adapter,
    fit: (weighting) => {
      if (weighting.censor !== undefined) {
        return Promise.reject(
          new RangeError(
            "Invalid mechanism: censoring needs a sampler with a correction step; the Bayesian " +
              "network is drawn exactly from the uncensored pseudo posterior (use model " +
              '"latent-class" for a censored, pure-DP release)',
          ),
        );
      }
      const fit = sampleBayesNet(model, weighting.alpha, options);
      drawLength.set(fit.draws, fit.dim);
      return Promise.resolve(fit);
    },
    lipschitz,
    laplace: () => {
      throw new RangeError("Invalid mechanism: the Bayesian network draws no noise");
    },
  };
}
