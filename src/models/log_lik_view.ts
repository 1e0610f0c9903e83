/**
 * The `Model` view of a whole-file model that no gradient sampler fits (the latent class model,
 * the Bayesian network): the mechanisms read its n, θ's length and names and log p(x_i | θ) as
 * `logLik`; constrain and unconstrain are the identity, and the rest throws.
 *
 * @module
 */
import type { Model } from "./model.ts";

/** What the view states and how its refusals read. */
export interface LogLikViewOptions {
  /** The model name the release states. */
  readonly name: string;
  /** Records n. */
  readonly n: number;
  /** θ's length, or null where each fit has its own (reading `dim` then throws). */
  readonly dim: number | null;
  /** Names of θ's entries. */
  readonly paramNames: readonly string[];
  /** log p(x_i | θ) of every record, written into `out`. */
  logLik(theta: Float64Array, out: Float64Array): Float64Array;
  /** The model in refusals ("the latent class model"). */
  readonly label: string;
  /** How it is fitted and simulates, ending every refusal. */
  readonly fittedBy: string;
}

/**
 * Builds the view (see the module).
 *
 * @param options The model's name, size, θ and log-likelihood, and its refusals' words.
 * @returns A `Model` for the mechanism context.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { logLikView } from "./log_lik_view.ts";
 * const view = logLikView({
 *   name: "m", n: 1, dim: 1, paramNames: ["p"], label: "m", fittedBy: "drawn exactly",
 *   logLik: (theta, out) => out.fill(Math.log(theta[0])),
 * });
 * assert.deepEqual(view.constrain(Float64Array.of(0.5)), Float64Array.of(0.5));
 * assert.throws(() => view.initialPoint(), TypeError);
 * ```
 */
export function logLikView(options: LogLikViewOptions): Model {
  const { name, n, dim, paramNames, label, fittedBy } = options;
  const refuse = (what: string) => () => {
    throw new TypeError(
      `Invalid use of ${label}: ${what} is not defined; it is ${fittedBy}`,
    );
  };
  const identity = (theta: Float64Array, out?: Float64Array) => {
    const result = out ?? new Float64Array(theta.length);
    result.set(theta);
    return result;
  };
  return {
    name,
    design: { n, k: 0, y: new Float64Array(0), x: new Float64Array(0), coefficientNames: [] },
    get dim(): number {
      return dim ?? refuse("a fixed draw length (each fit has its own)")();
    },
    paramNames,
    constrain: identity,
    unconstrain: identity,
    initialPoint: refuse("a starting point"),
    logLik: (theta, out) => options.logLik(theta, out),
    logDensity: refuse("a gradient log density"),
    simulate: refuse("one outcome per record"),
  };
}
