/**
 * The rstan side of bench:scale (issue 13): the unweighted negative binomial model with
 * covariates (test/reference/nb_covariates.stan with α = 1, ppsynth's `negbin` posterior) fitted
 * by rstan through bench/scale_stan.R on the same CSV (columns y, z, b) as ppsynth.
 *
 *     deno run --allow-read --allow-write --allow-run bench/scale_peer.ts --csv FILE \
 *       [--chains 4] [--warmup 1000] [--draws 1000] [--seed 7]
 *
 * prints the figures as JSON.
 *
 * @module
 */
import { benchArgs, timed } from "./_common.ts";

/** What {@linkcode rstanSide} reports; times in seconds. */
export interface RstanSide {
  /** Wall time of the whole `Rscript` process: R start-up, compile, sampling, summaries. */
  seconds: number;
  /**
   * Stan's per-chain warmup + sampling times (get_elapsed_time, which Stan 2.21 takes with
   * clock(): the CPU time of the chain's process, which other load moves far less than the wall
   * time), summed over the chains and divided by min(cores, chains): the sampling wall time on
   * dedicated cores with the chains evenly spread and no process overhead.
   */
  samplingSeconds: number;
  /** Measured wall time of rstan's `sampling()`, worker start-up and draw transfer included. */
  samplingWallSeconds: number;
  /** Wall time of `stan_model()`, a fresh C++ compile. */
  compileSeconds: number;
  /** Σ n_leapfrog__ over every iteration of every chain, warmup included; null if unknown. */
  gradientEvaluations: number | null;
  /** Smallest bulk ESS over the coefficients, their scales and φ. */
  essBulkMin: number;
  /** essBulkMin / samplingSeconds. */
  essPerSecond: number;
  /** Posterior means by ppsynth's parameter names (intercept, z, b, sigma_beta_…, phi). */
  means: Record<string, number>;
}

/**
 * Fits the CSV's data with rstan, or returns null when `Rscript` is not on the PATH.
 *
 * @param csvPath A CSV file with an integer column y and numeric covariates.
 * @param options The chains, warmup and draws per chain, and rstan's seed.
 * @returns The timings, ESS and means of bench/scale_stan.R's JSON.
 */
export async function rstanSide(
  csvPath: string,
  options: { chains: number; warmup: number; draws: number; seed: number },
): Promise<RstanSide | null> {
  const out = await Deno.makeTempFile({ prefix: "scale_stan_", suffix: ".json" });
  try {
    let seconds: number;
    try {
      ({ seconds } = await timed("Rscript", [
        new URL("./scale_stan.R", import.meta.url).pathname,
        csvPath,
        out,
        String(options.chains),
        String(options.warmup),
        String(options.draws),
        String(options.seed),
      ]));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null; // no Rscript on the PATH
      throw error;
    }
    const stan = JSON.parse(await Deno.readTextFile(out));
    return {
      seconds,
      samplingSeconds: stan.samplingSeconds,
      samplingWallSeconds: stan.samplingWallSeconds,
      compileSeconds: stan.compileSeconds,
      gradientEvaluations: stan.gradientEvaluations ?? null,
      essBulkMin: stan.essBulkMin,
      essPerSecond: stan.essPerSecond,
      means: stan.means,
    };
  } finally {
    await Deno.remove(out).catch(() => {});
  }
}

if (import.meta.main) {
  const values = benchArgs({ csv: "", chains: "4", warmup: "1000", draws: "1000", seed: "7" });
  if (values.csv === "") throw new RangeError("bench/scale_peer.ts needs --csv FILE");
  const side = await rstanSide(values.csv, {
    chains: Number(values.chains),
    warmup: Number(values.warmup),
    draws: Number(values.draws),
    seed: Number(values.seed),
  });
  console.log(side === null ? "Rscript is not on the PATH" : JSON.stringify(side, null, 2));
}
