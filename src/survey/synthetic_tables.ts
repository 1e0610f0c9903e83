/**
 * Private survey tables from synthetic microdata (survey paper §2.3; SPEC §8): FBS or FBP
 * pseudo posteriors (LW_final weights) calibrated to a target ε for m synthetic samples, each tabulated with the
 * design's Taylor-linearised SEs, then combined with the partial-synthesis rules.
 *
 * - FBS tabulates every cell with its smoothed synthetic weights w*.
 * - FBP's synthetic outcomes are already corrected for the informative design within a
 *   field × gender cell ("within strata, the individuals in the synthetic population are equally
 *   weighted", §2.2), so interior cells take the unweighted mean and its SE; the smoothed
 *   weights count the cells (N̂_c = Σ_{i∈c} w*_i) and combine cells into the margins' means
 *   ("these weights are only needed when combining data across strata"): μ̂_margin =
 *   Σ_c N̂_c·ȳ_c / Σ_c N̂_c over its interior cells. Weighting each record's y* by its own
 *   w* ∝ e^{−κ_y ỹ*} instead would correct the bias a second time (see `fbpMeanWeights`).
 *
 * Privacy: the tables are post-processing of the m synthetic samples, so they carry the
 * synthesis's guarantee, ε = 2·Δ_{α,x}·m (aDP).
 *
 * @module
 */
import type { Dataset } from "../data/dataset.ts";
import { SynthesisSpec } from "../synthesis/spec.ts";
import type { ReleaseManifest } from "../synthesis/report.ts";
import { type SynthesisProgress, synthesize } from "../synthesis/synthesize.ts";
import { type CombinedTable, combineTables } from "./combine.ts";
import {
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
  /** Aborting it stops the synthesis (`SynthesizeOptions.signal`). */
  readonly signal?: AbortSignal;
}

/** A combined private table and the public privacy report of the synthesis behind it. */
export interface SyntheticTableResult {
  readonly table: CombinedTable;
  readonly report: ReleaseManifest;
}

/**
 * FBP's weights for means: every record of an interior cell c gets v_i = N̂_c / n_c, the cell's
 * mean smoothed weight, so a weighted mean over one cell is its unweighted mean ȳ_c (with the
 * unweighted Taylor SE) and over a margin Σ_c N̂_c·ȳ_c / Σ_c N̂_c.
 *
 * @param base The sample's groupings (they define the interior cells).
 * @param weight The smoothed synthetic weights w*.
 * @returns v, length n.
 */
export function fbpMeanWeights(base: TableInput, weight: Float64Array): Float64Array {
  const [a, b] = base.by;
  const cellOf = (i: number) => a.codes[i] * b.levels.length + b.codes[i];
  const cells = a.levels.length * b.levels.length;
  const total = new Float64Array(cells);
  const size = new Float64Array(cells);
  for (let i = 0; i < weight.length; i++) {
    total[cellOf(i)] += weight[i];
    size[cellOf(i)]++;
  }
  return weight.map((_, i) => total[cellOf(i)] / size[cellOf(i)]);
}

/**
 * The table of one synthetic sample (SPEC §8): FBS tabulates every cell with the smoothed
 * weights w*; FBP counts with w* and takes its means with {@linkcode fbpMeanWeights}.
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
  const counts = surveyTable({ ...base, y, weight });
  if (method === "fbs") return counts;
  const means = surveyTable({ ...base, y, weight: fbpMeanWeights(base, weight) });
  return { ...counts, mean: means.mean, meanSE: means.meanSE };
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
  const synthesis = await synthesize(data, spec, {
    onProgress: options.onProgress,
    signal: options.signal,
    // A table pairs each synthetic record with its sample's groupings and releases no file.
    order: "aligned",
  });
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
