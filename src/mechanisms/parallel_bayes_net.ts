/**
 * The Bayesian network's Lipschitz pass (SPEC §13) on every core: max_s |u_i(θ_s)| and
 * min_s |u_i(θ_s)|, u_i = α_i log p(x_i | G_s, θ_s) (`BayesNetModel.termMaxima`; the release's
 * Δ_i is their half-difference), with the S draws cut into contiguous shares, each share's
 * `termMaxima` run in a worker thread on a network rebuilt from the same encoded file and prior
 * (so the same candidates, cell indices and arithmetic), and the per-record extremes merged in
 * draw order (`termMaximaInWorkers`). Every extreme and its first draw are then exactly the
 * one-thread `termMaxima`'s. Small problems stay in this thread, where a worker's start-up would
 * cost more than it saves.
 *
 * @module
 */
import type { StopFlag } from "../data/worker_stop.ts";
import type { BayesNetModel } from "../models/bayes_net.ts";
import type { TermMaxima } from "../models/latent_class.ts";
import type { BayesNetJob } from "./bayes_net_worker.ts";
import { termMaximaInWorkers } from "./parallel_latent_class.ts";

/**
 * Draw × record × column lookups from which the pass is split over workers (each a gather and
 * an add: about 0.6 s on one thread, where a worker's start and its network's cell indices cost
 * a few tenths; docs/performance.md, "Bayesian network Lipschitz pass").
 */
export const PARALLEL_MIN_TERM_LOOKUPS = 100_000_000;

/** Options of {@linkcode parallelBayesNetMaxima}. */
export interface ParallelBayesNetOptions {
  /** Worker threads (default: the logical cores). */
  readonly threads?: number;
  /** Lookups from which workers are used (default {@linkcode PARALLEL_MIN_TERM_LOOKUPS}). */
  readonly minLookups?: number;
  /** Read once a draw, here or in the workers: when set, the pass throws (`worker_stop.ts`). */
  readonly stop?: StopFlag;
}

/**
 * `model.termMaxima(draws, dim, alpha)` with the draws split over worker threads (see the
 * module).
 *
 * @param model The network bound to the confidential file.
 * @param draws S×dim draws, row-major.
 * @param dim A draw's length.
 * @param alpha α (null: all 1).
 * @param options Threads and the size from which they are used.
 * @returns Exactly `termMaxima`'s per-record extremes and their first draws.
 */
export async function parallelBayesNetMaxima(
  model: BayesNetModel,
  draws: Float64Array,
  dim: number,
  alpha: Float64Array | null,
  options: ParallelBayesNetOptions = {},
): Promise<TermMaxima> {
  const S = Math.floor(draws.length / dim);
  const threads = Math.min(options.threads ?? navigator.hardwareConcurrency, S);
  const lookups = S * model.n * model.order.length;
  if (
    !(S * dim === draws.length) || threads < 2 ||
    lookups < (options.minLookups ?? PARALLEL_MIN_TERM_LOOKUPS)
  ) {
    return model.termMaxima(draws, dim, alpha, options.stop);
  }
  // The codes alone (an encoded column may carry more).
  const file = {
    n: model.n,
    columns: model.file.columns.map(({ name, levels, codes }) => ({ name, levels, codes })),
  };
  const job = { file, prior: model.prior, given: model.given, dim, alpha, stop: options.stop };
  return await termMaximaInWorkers<BayesNetJob>(
    new URL("./bayes_net_worker.ts", import.meta.url),
    "Bayesian network Lipschitz",
    job,
    draws,
    dim,
    threads,
  );
}
