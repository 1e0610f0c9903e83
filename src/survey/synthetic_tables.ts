/**
 * Private survey tables from synthetic microdata (survey paper §2.3; SPEC §8): FBS or FBP
 * pseudo posteriors (LW_final weights) calibrated to a target ε for m synthetic samples, each tabulated with the
 * design's Taylor-linearised SEs, then combined with the partial-synthesis rules.
 *
 * - FBS tabulates every cell with its smoothed synthetic weights w*.
 * - FBP's synthetic outcomes are already corrected for the informative design within a
 *   field × gender cell, so interior cells take the unweighted mean (w* = 1) and its SE; counts
 *   and the margins' means use the smoothed weights, scaled to the public stratum sizes.
 *
 * Privacy: the tables are post-processing of the m synthetic samples, so they carry the
 * synthesis's guarantee, ε = 2·Δ_{α,x}·m (aDP).
 *
 * @module
 */
import type { Dataset } from "../data/dataset.ts";
import { SynthesisSpec } from "../synthesis/spec.ts";
import type { ReleaseReport } from "../synthesis/report.ts";
import { type SynthesisProgress, synthesize } from "../synthesis/synthesize.ts";
import { type CombinedTable, combineTables } from "./combine.ts";
import {
  MARGIN_LABEL,
  type SurveyTable,
  surveyTable,
  type TableColumns,
  type TableInput,
  tableInput,
} from "./tables.ts";

/** Options of {@linkcode syntheticTable}. */
export interface SyntheticTableOptions extends TableColumns {
  readonly method: "fbs" | "fbp";
  /** Target total ε for the m samples. */
  readonly epsilon: number;
  /** Number of synthetic samples m. */
  readonly m: number;
  /** Seed (absent: a fresh secret one). */
  readonly seed?: number;
  /** Public population size of every stratum (required by FBP). */
  readonly stratumSizes?: Record<string, number>;
  /** Sampler settings (defaults of the synthesis spec otherwise). */
  readonly draws?: number;
  readonly chains?: number;
  readonly warmup?: number;
  readonly onProgress?: SynthesisProgress;
}

/** A combined private table and the public privacy report of the synthesis behind it. */
export interface SyntheticTableResult {
  readonly table: CombinedTable;
  readonly report: ReleaseReport;
}

/**
 * The table of one synthetic sample (SPEC §8): FBS tabulates every cell with the smoothed
 * weights w*; FBP takes the unweighted mean (and its SE) in the interior cells and the smoothed
 * weights for counts and margins.
 *
 * @param method fbs or fbp.
 * @param base The sample's strata and groupings.
 * @param y The synthetic outcomes y*.
 * @param weight The smoothed synthetic weights w*.
 */
export function syntheticSampleTable(
  method: "fbs" | "fbp",
  base: TableInput,
  y: Float64Array,
  weight: Float64Array,
): SurveyTable {
  const weighted = surveyTable({ ...base, y, weight });
  if (method === "fbs") return weighted;
  const unweighted = surveyTable({ ...base, y, weight: new Float64Array(y.length).fill(1) });
  const interior = (r: number) =>
    weighted.labels[0][r] !== MARGIN_LABEL && weighted.labels[1][r] !== MARGIN_LABEL;
  return {
    ...weighted,
    mean: weighted.mean.map((v, r) => interior(r) ? unweighted.mean[r] : v),
    meanSE: weighted.meanSE.map((v, r) => interior(r) ? unweighted.meanSE[r] : v),
  };
}

/**
 * Synthesises m samples with FBS or FBP (LW weights calibrated to ε, then re-weighted as in
 * Algorithm 3: `lw-final`, which also reaches targets no shift of the LW weights can) and returns
 * their combined table.
 *
 * @param data The confidential sample.
 * @param options The columns, method, ε, m and sampler settings.
 */
export async function syntheticTable(
  data: Dataset,
  options: SyntheticTableOptions,
): Promise<SyntheticTableResult> {
  const base = tableInput(data, options);
  const spec = SynthesisSpec.parse({
    y: options.y,
    x: [...options.by],
    weight: options.weight,
    strata: options.strata,
    stratumSizes: options.stratumSizes,
    model: options.method,
    mechanism: "lw-final",
    epsilon: options.epsilon,
    m: options.m,
    seed: options.seed,
    draws: options.draws,
    chains: options.chains,
    warmup: options.warmup,
  });
  const synthesis = await synthesize(data, spec, { onProgress: options.onProgress });
  const tables = synthesis.datasets.map((columns) =>
    syntheticSampleTable(
      options.method,
      base,
      columns.get(options.y) as Float64Array,
      columns.get(options.weight) as Float64Array,
    )
  );
  return { table: combineTables(tables), report: synthesis.report };
}
