/**
 * What the studies' report documents share (`study_document.ts`): the sampler and MCMC adequacy
 * paragraph, and the cells of a summary (quantiles, median with range, percentages), as typed
 * values (numbers with their formats, formatted by `formatReport`); the number and table
 * primitives live in `markdown_table.ts`.
 *
 * @module
 */
import type { SamplerSettings, Summary, TotalFitStats } from "./study_runner.ts";
import { GPU_STUDY_CHAINS, gpuDrawsPerChain, SAMPLER_NOTE } from "./study_runner.ts";
import { type Num, num, type Text, text } from "./study_document.ts";

export { markdownTable } from "./markdown_table.ts";

/** How a study words its sampler paragraph (the defaults are those of most studies). */
export interface SamplerWording {
  /** Whether the chains × (warmup + draws) sentence ends "per fit". */
  readonly perFit?: boolean;
  /** Whether {@linkcode SAMPLER_NOTE} follows the sampler settings. */
  readonly note?: boolean;
  /** What follows "are flagged": the criterion. */
  readonly flagged?: string;
  /** What follows the count of fits flagged on a likelihood parameter, up to its full stop. */
  readonly likelihood?: string;
}

/**
 * The report's "Sampler" bullet: the chains and draws per fit, optionally the note on what fewer
 * draws do to Δ, and how many distinct fits the MCMC diagnostics flag.
 *
 * @param sampler The study's sampler settings.
 * @param fits The fits' totals over replicates.
 * @param wording The study's wording.
 */
export function samplerParagraph(
  sampler: SamplerSettings,
  fits: TotalFitStats,
  wording: SamplerWording = {},
): Text {
  const {
    perFit = true,
    note = true,
    flagged = "(R̂ > 1.01, bulk ESS < 400 or a divergence)",
    likelihood = "on a likelihood parameter (β₀ or φ).",
  } = wording;
  const how = sampler.sampler === "gpu-hmc"
    ? `GPU many-chain HMC, ${GPU_STUDY_CHAINS} chains × (${sampler.warmup} warmup + ${
      gpuDrawsPerChain(sampler)
    } draws)`
    : `${sampler.chains} chains × (${sampler.warmup} warmup + ${sampler.draws} draws)`;
  const where = sampler.backend === "gpu"
    ? " Lipschitz bounds on the GPU's kernels (confirmed in f64: the CPU's bit for bit)."
    : "";
  const head = `- **Sampler**: ${how}${perFit ? " per fit" : ""}.${where}${
    note ? ` ${SAMPLER_NOTE}` : ""
  } `;
  return text`${head}Of ${num.plain(fits.fits)} distinct fits, ${num.plain(fits.flagged)} (${
    num.fixed(100 * fits.flaggedShare, 1)
  }%) are flagged ${flagged}, ${num.plain(fits.flaggedLikelihood)} (${
    num.fixed(100 * fits.flaggedLikelihoodShare, 1)
  }%) ${likelihood} Divergences: ${num.plain(fits.divergences)}.`;
}

/** min, q25, median, q75 and max of a summary, each with `digits` decimals. */
export function quantileCells(summary: Summary, digits: number): Num[] {
  return [summary.min, summary.q25, summary.median, summary.q75, summary.max].map((v) =>
    num.fixed(v, digits)
  );
}

/** "median [min, max]" of a summary, with `digits` decimals. */
export function medianRange(summary: Summary, digits: number): Text {
  const [median, min, max] = [summary.median, summary.min, summary.max];
  return text`${num.fixed(median, digits)} [${num.fixed(min, digits)}, ${num.fixed(max, digits)}]`;
}

/** A share in [0, 1] as a percentage with `digits` decimals and a "%" sign. */
export function percent(share: number, digits = 0): Text {
  return text`${num.fixed(100 * share, digits)}%`;
}
