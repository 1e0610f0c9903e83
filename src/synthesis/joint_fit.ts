/**
 * The fit of several outcomes (SPEC §10, `src/models/joint.ts`): with one α_i per record and no
 * censoring the pseudo posterior factorises over the conditionals, so each is fitted alone (all
 * at once, each with its own warm-started refits) and draw s of the joint fit is the s-th draw
 * of every conditional, side by side. A censored fit clamps the joint record and does not
 * factorise: it samples θ as a whole.
 *
 * @module
 */
import type { Fit } from "../mcmc/fit.ts";
import type { MechanismContext } from "../mechanisms/mechanism.ts";
import type { JointModel } from "../models/joint.ts";
import { Rng } from "../random/rng.ts";
import { COMPONENT_STREAM } from "../random/streams.ts";
import { fitter, type FitterOptions } from "./release.ts";

/**
 * Conditional j's fitting seed: 53 bits of stream COMPONENT_STREAM + j of `seed`, so the
 * conditionals' chains never share random numbers and their paired draws stay independent.
 *
 * @param seed The synthesis seed.
 * @param j The conditional's index.
 */
export function componentSeed(seed: number, j: number): number {
  const stream = new Rng(seed).split(COMPONENT_STREAM + j);
  const high = stream.nextUint32() & 0x1fffff;
  return high * 2 ** 32 + stream.nextUint32();
}

/**
 * The fit of a joint model under a weighting: uncensored, the J conditionals' fits combined by
 * {@linkcode combineFits}; censored, one fit of θ as a whole.
 *
 * @param model The joint model.
 * @param options The sampler (the seed is the synthesis seed) and where it runs.
 * @returns `(weighting, label) => fit`.
 */
export function jointFitter(model: JointModel, options: FitterOptions): MechanismContext["fit"] {
  const parts = model.components.map((component, j) =>
    fitter(component.model, {
      ...options,
      seed: componentSeed(options.seed, j),
      cache: options.cache &&
        { ...options.cache, scope: `${options.cache.scope} conditional ${j}` },
      onProgress: (label, done, total) =>
        options.onProgress?.(label, done, total, component.outcome),
    })
  );
  const whole = fitter(model, {
    ...options,
    cache: options.cache && { ...options.cache, scope: `${options.cache.scope} joint` },
  });
  return async (weighting, label) => {
    if (weighting.censor !== undefined) return await whole(weighting, label);
    const fits = await Promise.all(parts.map((fit) => fit(weighting, label)));
    return combineFits(model, fits);
  };
}

/**
 * The joint fit of J independent conditional fits with the same chains and draws: draw s is
 * (θ_{1,s}, …, θ_{J,s}); R̂ and ESS are per parameter, so the worst over the conditionals; counts
 * add up; a fit is flagged when any conditional is; the step size of a chain is its smallest over
 * the conditionals.
 *
 * @param model The joint model.
 * @param fits One fit per conditional, in order.
 * @returns The joint fit.
 */
export function combineFits(model: JointModel, fits: readonly Fit[]): Fit {
  const { chains, drawsPerChain, S } = fits[0];
  fits.forEach((fit, j) => {
    if (fit.S !== S || fit.chains !== chains) {
      throw new RangeError(
        `Invalid fits: every conditional needs S=${S} draws in ${chains} chains: ` +
          `${model.components[j].outcome} has ${fit.S} in ${fit.chains}`,
      );
    }
  });
  const dim = model.dim;
  const draws = new Float64Array(S * dim);
  const lastPositions = new Float64Array(chains * dim);
  const summary: Fit["summary"] = {};
  fits.forEach((fit, j) => {
    const offset = model.offsets[j];
    for (let s = 0; s < S; s++) {
      draws.set(fit.draws.subarray(s * fit.dim, (s + 1) * fit.dim), s * dim + offset);
    }
    for (let c = 0; c < chains; c++) {
      lastPositions.set(
        fit.lastPositions.subarray(c * fit.dim, (c + 1) * fit.dim),
        c * dim + offset,
      );
    }
    const outcome = model.components[j].outcome;
    for (const [name, value] of Object.entries(fit.summary)) summary[`${outcome}:${name}`] = value;
  });
  const notes = (pick: (fit: Fit) => string | undefined) => {
    const parts = fits.flatMap((fit, j) => {
      const note = pick(fit);
      return note === undefined ? [] : [`${model.components[j].outcome}: ${note}`];
    });
    return parts.length === 0 ? undefined : parts.join("; ");
  };
  const same = fits.every((fit) => fit.setup.precondition === fits[0].setup.precondition);
  const preconditionFailure = notes((fit) =>
    fit.setup.preconditionFailure ?? (same ? undefined : `precondition ${fit.setup.precondition}`)
  );
  const warmStartRejected = notes((fit) => fit.setup.warmStartRejected);
  const continuedAfter = notes((fit) => fit.setup.continuedAfter);
  return {
    draws,
    S,
    dim,
    paramNames: model.paramNames,
    chains,
    drawsPerChain,
    summary,
    rhatMax: fits.some((fit) => Number.isNaN(fit.rhatMax))
      ? NaN
      : Math.max(...fits.map((fit) => fit.rhatMax)),
    essBulkMin: fits.some((fit) => Number.isNaN(fit.essBulkMin))
      ? NaN
      : Math.min(...fits.map((fit) => fit.essBulkMin)),
    divergences: fits.reduce((sum, fit) => sum + fit.divergences, 0),
    treeDepthHits: fits.reduce((sum, fit) => sum + fit.treeDepthHits, 0),
    flagged: fits.some((fit) => fit.flagged),
    gradientEvaluations: fits.reduce((sum, fit) => sum + fit.gradientEvaluations, 0),
    stepSizes: fits[0].stepSizes.map((_, c) => Math.min(...fits.map((fit) => fit.stepSizes[c]))),
    warmup: Math.max(...fits.map((fit) => fit.warmup)),
    setup: {
      // Mixed preconditioners: "none" here, and each conditional's in preconditionFailure.
      precondition: same ? fits[0].setup.precondition : "none",
      setupEvaluations: fits.reduce((sum, fit) => sum + fit.setup.setupEvaluations, 0),
      ...(preconditionFailure === undefined ? {} : { preconditionFailure }),
      ...(fits.every((fit) => fit.setup.warmStart) ? { warmStart: true } : {}),
      ...(warmStartRejected === undefined ? {} : { warmStartRejected }),
      ...(continuedAfter === undefined ? {} : { continuedAfter }),
    },
    lastPositions,
  };
}
